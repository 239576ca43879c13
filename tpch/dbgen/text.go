package dbgen

import "sync"

// poolSize is the text pool's length: comments are slices of it.
const poolSize = 300 * 1024 * 1024

var (
	poolOnce sync.Once
	pool     []byte
)

// textPool returns the pool, made once: sentences of the specification's
// grammar (clause 4.2.2.14) from the text stream, each followed by a space,
// the last one cut at the pool's length.
func textPool() []byte {
	poolOnce.Do(func() { pool, _ = buildPool() }) // kept for the process
	return pool
}

func buildPool() ([]byte, func()) {
	var s streams
	s.seek(1, []int{textSD})
	buf, free := poolBuffer(poolSize)
	var sent []byte
	for len(buf) < poolSize {
		sent = s.sentence(sent[:0])
		if need := poolSize - len(buf); need >= len(sent)+1 {
			buf = append(append(buf, sent...), ' ')
		} else {
			buf = append(buf, sent[:need]...)
		}
	}
	return buf, free
}

// sentence appends one sentence: a grammar form's noun phrases, verb
// phrases and prepositional phrases, each word followed by a space, then
// the terminator in place of the last space.
func (s *streams) sentence(b []byte) []byte {
	for _, tok := range grammar.tokens[s.pick(grammar, textSD)] {
		switch tok[0] {
		case 'V':
			b = s.phrase(b, verbPhrases)
		case 'N':
			b = s.phrase(b, nounPhrases)
		case 'P':
			b = append(b, prepositions.bytes[s.pick(prepositions, textSD)]...)
			b = append(b, " the "...)
			b = s.phrase(b, nounPhrases)
		case 'T':
			b = b[:len(b)-1]
			b = append(b, terminators.bytes[s.pick(terminators, textSD)]...)
		}
	}
	return b
}

// phrase appends a noun or verb phrase: a form of d, each part of speech
// a word of its list, punctuation after it as the form has it, and a space.
func (s *streams) phrase(b []byte, d *dist) []byte {
	for _, tok := range d.tokens[s.pick(d, textSD)] {
		var words *dist
		switch tok[0] {
		case 'A':
			words = articles
		case 'J':
			words = adjectives
		case 'D':
			words = adverbs
		case 'N':
			words = nouns
		case 'V':
			words = verbs
		case 'X':
			words = auxiliaries
		}
		b = append(b, words.bytes[s.pick(words, textSD)]...)
		b = append(b, tok[1:]...)
		b = append(b, ' ')
	}
	return b
}

// text returns a comment: a slice of the pool between min and max bytes
// long, at a place and of a length drawn from stream i.
func (s *streams) text(avg int, i int) []byte {
	lo, hi := vstrRange(avg)
	p := textPool()
	off := s.random(0, poolSize-hi, i)
	n := s.random(lo, hi, i)
	return p[off : off+n]
}

// vstrRange is a variable string's length range for an average length:
// 0.4 to 1.6 times it, truncated as dbgen's integer conversion does.
func vstrRange(avg int) (lo, hi int64) {
	a := float64(avg)
	return int64(a * vstrLow), int64(a * vstrHigh)
}

var vstrLow, vstrHigh = 0.4, 1.6
