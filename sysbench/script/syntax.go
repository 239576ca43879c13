package script

import (
	"fmt"
	"regexp"
	"strings"
)

// gopher-lua words a syntax error "f.lua line:2(column:5) near '=':
// syntax error", or "f.lua at EOF: parse error" at the end of the chunk;
// Lua (and sysbench, which prints it after FATAL) says "f.lua:2:
// unexpected symbol near '='" and, at the end, what was expected there.
var (
	parseNear = regexp.MustCompile(`^(.*) line:(\d+)\(column:\d+\) near '(.*)':\s+(.*)$`)
	parseEOF  = regexp.MustCompile(`^(.*) at EOF:\s+(parse|syntax) error$`)
)

// luaSyntaxError rewords gopher-lua's syntax error in src as Lua's.
func luaSyntaxError(msg, src string) string {
	msg = strings.TrimSpace(msg)
	if m := parseNear.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%s: unexpected symbol near '%s'", m[1], m[2], m[3])
	}
	m := parseEOF.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	eof := strings.Count(src, "\n") + 1
	if m[2] == "parse" { // a name that starts a statement and nothing after it
		return fmt.Sprintf("%s:%d: '=' expected near '<eof>'", m[1], eof)
	}
	open, line := unclosed(src)
	if open == "" {
		return fmt.Sprintf("%s:%d: unexpected symbol near '<eof>'", m[1], eof)
	}
	closer := map[string]string{"(": ")", "{": "}", "[": "]", "repeat": "until"}[open]
	if closer == "" {
		closer = "end"
	}
	if line == eof {
		return fmt.Sprintf("%s:%d: '%s' expected near '<eof>'", m[1], eof, closer)
	}
	return fmt.Sprintf("%s:%d: '%s' expected (to close '%s' at line %d) near '<eof>'", m[1], eof, closer, open, line)
}

// unclosed finds the innermost block or bracket left open at the end of
// src, and its line: a small scan of Lua's tokens (comments and strings
// skipped), enough to name what a missing "end" or ")" would close.
func unclosed(src string) (string, int) {
	type opener struct {
		tok  string
		line int
	}
	var stack []opener
	line := 1
	loopDo := 0 // "do" of a while or for: not a block of its own
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case strings.HasPrefix(src[i:], "--[["):
			end := strings.Index(src[i+4:], "]]")
			if end < 0 {
				return "", 0
			}
			line += strings.Count(src[i:i+4+end], "\n")
			i += end + 6
		case strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "[["):
			end := strings.Index(src[i+2:], "]]")
			if end < 0 {
				return "", 0
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case c == '"' || c == '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			switch w := src[i:j]; w {
			case "function", "if", "repeat":
				stack = append(stack, opener{w, line})
			case "while", "for":
				stack = append(stack, opener{w, line})
				loopDo++
			case "do":
				if loopDo > 0 {
					loopDo--
				} else {
					stack = append(stack, opener{w, line})
				}
			case "end", "until":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
			i = j
		case c == '(' || c == '{' || c == '[':
			stack = append(stack, opener{string(c), line})
			i++
		case c == ')' || c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		default:
			i++
		}
	}
	if len(stack) == 0 {
		return "", 0
	}
	top := stack[len(stack)-1]
	return top.tok, top.line
}
