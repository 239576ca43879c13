package plan

import (
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps a key's dotted path to the line it is on, so that a check
// after decoding can still name the line: "step.1.threads" is the threads
// key of the second [[step]], "dataset" the [dataset] header.
type keyLines map[string]int

// line is the key's line, else its nearest parent's, else 0.
func (k keyLines) line(path string) int {
	for path != "" {
		if n, ok := k[path]; ok {
			return n
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// scanKeyLines reads the document with go-toml's own parser (the decoder
// keeps no positions). A document that does not parse has been refused
// by the decoder already.
func scanKeyLines(b []byte) keyLines {
	lines := keyLines{}
	var p unstable.Parser
	p.Reset(b)
	arrays := map[string]int{}     // [[name]] -> times seen
	current := map[string]string{} // [[name]] -> the path of the last one
	prefix := ""
	lineOf := func(n *unstable.Node) int { return p.Shape(n.Raw).Start.Line }
	keyOf := func(it unstable.Iterator) (string, int) {
		var parts []string
		line := 0
		for it.Next() {
			n := it.Node()
			parts = append(parts, string(n.Data))
			if line == 0 {
				line = lineOf(n)
			}
		}
		return strings.Join(parts, "."), line
	}
	var inline func(prefix string, n *unstable.Node)
	inline = func(prefix string, n *unstable.Node) {
		it := n.Children()
		for it.Next() {
			kv := it.Node()
			if kv.Kind != unstable.KeyValue {
				continue
			}
			k, line := keyOf(kv.Key())
			path := prefix + "." + k
			lines[path] = line
			if v := kv.Value(); v.Kind == unstable.InlineTable {
				inline(path, v)
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			k, line := keyOf(e.Key())
			prefix = k
			lines[prefix] = line
		case unstable.ArrayTable:
			k, line := keyOf(e.Key())
			// [[step.events]] belongs to the last [[step]]: step.N.events.M.
			for parent, at := range current {
				if rest, ok := strings.CutPrefix(k, parent+"."); ok {
					k = at + "." + rest
					break
				}
			}
			prefix = k + "." + strconv.Itoa(arrays[k])
			arrays[k]++
			current[k] = prefix
			lines[prefix] = line
		case unstable.KeyValue:
			k, line := keyOf(e.Key())
			path := k
			if prefix != "" {
				path = prefix + "." + k
			}
			lines[path] = line
			if v := e.Value(); v.Kind == unstable.InlineTable {
				inline(path, v)
			}
		}
	}
	return lines
}
