// Package jsontext scans JSON text strictly: RFC 8259 in valid UTF-8,
// with no repeated member names at any depth and no escaped lone
// surrogates (decisions 11 and 12). It knows nothing of schemas or paths:
// a syntax error is recorded as a byte offset and a reason, for the caller
// to place. The decoder of the generated code reads through it, and so
// does object.Object.
package jsontext

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest, as in encoding/json.
const MaxDepth = 10000

// A Scanner reads JSON values from Buf, from Pos on. The first syntax
// error stops it: Fatal is set, with the error's byte offset and reason,
// and every later call returns at once.
type Scanner struct {
	Buf   []byte
	Pos   int
	Depth int // arrays and objects open

	Fatal  bool
	Off    int    // of the syntax error
	Reason string // of the syntax error
	Cause  Cause  // of the syntax error

	// Escaped reports whether the last string read had escapes, so that
	// its content is in the scanner's scratch buffer; otherwise it is
	// Buf[StrStart:StrStart+len].
	Escaped  bool
	StrStart int

	tmp []byte // unescaped strings; valid until the next string is read

	// kept is a copy of Buf[keptFrom:], made by the first Keep.
	kept     []byte
	keptFrom int

	// spaced is where the last run of white space that WS skipped ends,
	// and marked just past the last byte json.Marshal escapes that Skip
	// read in a string, so that KeepCanonical can tell, without looking
	// again, whether the text of a value is canonical already.
	spaced int
	marked int

	// names finds repeats in large objects, from the first one to the
	// end of the outermost (see skipLargeObject).
	names *nameTables

	// unmarked is set by a caller that keeps nothing (Check), for which
	// finding the bytes json.Marshal escapes is wasted work.
	unmarked bool

	// borrowing makes Keep return the bytes of Buf themselves (see
	// Borrow).
	borrowing bool

	// goOn makes a repeated member name no error: its offset goes to
	// repeats, and the scan goes on (see GoOnAtRepeats).
	goOn    bool
	repeats []int
}

// Reset makes s ready to scan data, keeping its scratch buffer.
func (s *Scanner) Reset(data []byte) {
	*s = Scanner{Buf: data, tmp: s.tmp[:0], repeats: s.repeats[:0]}
}

// GoOnAtRepeats tells s, until the next Reset, that a repeated member name
// in a value it skips is not an error that stops it, but a finding its
// caller collects with Repeats: the first name that repeats in each
// object, whose other members are then read without comparing their
// names. A caller that reports every violation of a document at once
// (decision 12 makes a repeat one) goes on reading past it.
func (s *Scanner) GoOnAtRepeats() { s.goOn = true }

// Repeated reports whether a repeated name was found since the last call
// of Repeats.
func (s *Scanner) Repeated() bool { return len(s.repeats) > 0 }

// Repeats returns the byte offsets of the repeated names found since the
// last call (see GoOnAtRepeats), in ascending order, each that of the
// opening quote of the name that repeats one before it; the slice is
// valid until the next scan.
func (s *Scanner) Repeats() []int {
	r := s.repeats
	s.repeats = s.repeats[:0]
	slices.Sort(r)
	return r
}

// Keep returns the bytes Buf[start:end] from a copy of Buf made on the
// first call, from that call's start to the end, for a decoded value to
// keep after the call that decoded it returns: all that a value keeps
// costs one allocation and one copy, of no more than the input from the
// first byte kept. The copy is never written once made, and the slice
// returned is capped at its length, so that appending to it copies it
// rather than overwrite what follows. Bytes before the first ones kept,
// which a caller that gathers places before keeping them may ask for,
// are copied on their own, and so is every value kept from an input of
// more than keepWhole bytes: a message of many megabytes may keep little
// of itself (a long array of numbers where strings are wanted), and a
// copy of it all would double what decoding it costs.
func (s *Scanner) Keep(start, end int) []byte {
	if s.borrowing {
		return s.Buf[start:end:end]
	}
	if s.kept == nil && len(s.Buf)-start > keepWhole {
		k := append([]byte(nil), s.Buf[start:end]...)
		return k[:len(k):len(k)]
	}
	if s.kept == nil {
		s.keptFrom = start
		s.kept = append([]byte(nil), s.Buf[start:]...)
	}
	if start < s.keptFrom {
		k := append([]byte(nil), s.Buf[start:end]...)
		return k[:len(k):len(k)]
	}
	start, end = start-s.keptFrom, end-s.keptFrom
	return s.kept[start:end:end]
}

// Borrow makes Keep, until the next Reset, return the bytes of Buf
// themselves rather than a copy, for a caller that owns Buf and keeps it
// unchanged while the values kept from it are used.
func (s *Scanner) Borrow() { s.borrowing = true }

// TrimScratch drops s's scratch buffer, which holds unescaped strings
// and which Reset keeps, if it has grown past max bytes: for a scanner
// kept from message to message, so that one huge string does not stay
// with it.
func (s *Scanner) TrimScratch(max int) {
	if cap(s.tmp) > max {
		s.tmp = nil
	}
}

// KeepNothing tells s, until the next Reset, that its caller keeps
// nothing it reads, as Check does: it no longer notes the bytes
// json.Marshal escapes, and KeepCanonical must not be called.
func (s *Scanner) KeepNothing() { s.unmarked = true }

// keepWhole is the size of the largest rest of an input that Keep copies
// whole: far more than any message of the catalogue needs.
const keepWhole = 1 << 20

// KeepCanonical is Keep for the text of a value Skip read whole from start to
// end, held in canonical form (see AppendCanonical): the kept bytes when
// they are canonical already, as they are unless the value has white
// space between its tokens or one of the characters encoding/json
// escapes, and a canonical copy otherwise.
func (s *Scanner) KeepCanonical(start, end int) []byte {
	if s.spaced <= start && s.marked <= start {
		return s.Keep(start, end)
	}
	c := AppendCanonical(make([]byte, 0, end-start+16), s.Buf[start:end])
	return c[:len(c):len(c)]
}

// AppendCanonical appends to dst the JSON text src, which must be
// well-formed, in the form json.Marshal gives the output of a
// MarshalJSON method: white space between tokens removed, and '<', '>',
// '&', U+2028 and U+2029 in strings escaped as \u003c, \u003e, \u0026,
// \u2028 and \u2029. Values held as JSON text are kept in this form, so
// that they come back from json.Marshal and decoding byte for byte as
// they were; the JSON value they denote is unchanged.
func AppendCanonical(dst, src []byte) []byte {
	in := false // inside a string
	start := 0  // of the bytes not yet appended
	for i := 0; i < len(src); {
		if in {
			i += nextInString(src[i:])
		} else {
			i += nextCanonical(src[i:])
		}
		if i >= len(src) {
			break
		}
		switch c := src[i]; {
		case c == '"':
			in = !in
		case c == '\\':
			i++ // the escaped byte, which may be a quote
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			start = i + 1
		case c == 0xe2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xf])
			i += 2
			start = i + 1
		case !in && c <= ' ': // white space, the only bytes below '!' outside strings
			dst = append(dst, src[start:i]...)
			for i+1 < len(src) && src[i+1] <= ' ' { // the rest of the run
				i++
			}
			start = i + 1
		}
		i++
	}
	return append(dst, src[start:]...)
}

const hexDigits = "0123456789abcdef"

// escapedMask flags, as needsLook does, the bytes of w that json.Marshal
// escapes: '<' and '>' (which differ only in bit 1), '&', and 0xe2, which
// begins U+2028 and U+2029.
func escapedMask(w uint64) uint64 {
	return zeroByte((w|0x0202020202020202)^0x3e3e3e3e3e3e3e3e) |
		zeroByte(w^0x2626262626262626) | zeroByte(w^0xe2e2e2e2e2e2e2e2)
}

// inStringMask flags, as needsLook does, the bytes of w that
// AppendCanonical looks at inside a string: those escapedMask flags,
// quotes and backslashes.
func inStringMask(w uint64) uint64 {
	return escapedMask(w) | quoteOrBackslash(w)
}

// nextInString returns the index of the first byte of b that
// AppendCanonical must look at inside a string, or len(b): one that
// escapedMask flags, a quote or a backslash. A well-formed string holds
// no byte below ' ', and spaces in it are kept.
func nextInString(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := inStringMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '<' || c == '>' || c == '&' || c == 0xe2 || c == '"' || c == '\\' {
			break
		}
	}
	return i
}

// nextCanonical returns the index of the first byte of b that
// AppendCanonical must look at, or len(b): one that escapedMask flags, a
// quote, a backslash, or a byte below '!' (white space, outside strings).
func nextCanonical(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if m := inStringMask(w) | (w-0x2121212121212121)&^w&0x8080808080808080; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '<' || c == '>' || c == '&' || c == 0xe2 || c == '"' || c == '\\' || c <= ' ' {
			break
		}
	}
	return i
}

// A Cause says why the scanner stopped: a text that is not JSON, or JSON
// that breaks one of the two rules the scanner enforces beyond it.
type Cause uint8

// The causes of a scanner's error.
const (
	CauseSyntax    Cause = iota // not well-formed JSON in valid UTF-8
	CauseDuplicate              // an object repeats a member name (decision 12)
	CauseDepth                  // arrays and objects nest deeper than MaxDepth
)

// Rule returns the name of the rule, as package msg names it, that an
// error of this cause breaks: "syntax", "duplicate" or "depth".
func (c Cause) Rule() string {
	switch c {
	case CauseDuplicate:
		return "duplicate"
	case CauseDepth:
		return "depth"
	}
	return "syntax"
}

// Fail records a syntax error at byte offset off, unless one is recorded
// already.
func (s *Scanner) Fail(off int, reason string) {
	s.failFor(CauseSyntax, off, reason)
}

func (s *Scanner) failFor(cause Cause, off int, reason string) {
	if s.Fatal {
		return
	}
	s.Fatal = true
	s.Off, s.Reason, s.Cause = off, reason, cause
}

// End checks that nothing but white space follows the value read.
func (s *Scanner) End() {
	if s.Fatal {
		return
	}
	if s.WS() != 0 || s.Pos < len(s.Buf) {
		s.Fail(s.Pos, "unexpected "+Describe(s.Buf, s.Pos)+" after the document")
	}
}

// Skip reads and discards any JSON value, checking it strictly.
func (s *Scanner) Skip() {
	if s.Fatal {
		return
	}
	switch c := s.WS(); {
	case c == '"':
		// A string of plain bytes (marking, unless the scanner keeps
		// nothing) is stepped over at once, here rather than in a call;
		// any other is read by str.
		b, p := s.Buf, s.Pos+1
		if n := plainEnd(b, p, !s.unmarked); n < len(b) && b[n] == '"' {
			s.Pos = n + 1
			return
		}
		s.str(true)
	case c == '{':
		s.skipObject()
	case c == '[':
		if !s.Enter() {
			return
		}
		for i := 0; s.Next(']', i); i++ {
			s.Skip()
		}
	case c == 't':
		s.word("true")
	case c == 'f':
		s.word("false")
	case c == 'n':
		s.word("null")
	case c == '-' || (c >= '0' && c <= '9'):
		s.Number()
	case s.Pos >= len(s.Buf):
		s.Fail(s.Pos, "unexpected end of input, want a value")
	default:
		s.Fail(s.Pos, "want a value, got "+Describe(s.Buf, s.Pos))
	}
}

// word reads the literal lit.
func (s *Scanner) word(lit string) {
	if !s.Literal(lit) {
		s.Fail(s.Pos, "invalid literal, want "+lit)
		return
	}
	s.Pos += len(lit)
}

// skipObject skips an object, checking that no member name repeats. The
// first few names are compared with each before them; past them, or at
// the first name with escapes, the object's names go to a table (see
// skipLargeObject).
func (s *Scanner) skipObject() {
	if !s.Enter() {
		return
	}
	// Names read without escapes, where they lie in the input.
	var names [smallNames]nameRef
	n := 0
	for i := 0; ; i++ {
		keyStart, key, ok := s.member(i)
		if !ok {
			return
		}
		if s.Escaped {
			s.skipLargeObject(names[:n], keyStart, key)
			return
		}
		if n == len(names) {
			s.skipLargeObject(names[:n], keyStart, key)
			return
		}
		for _, r := range names[:n] {
			// The lengths first, before the slice's bounds are checked.
			if r.n == len(key) && string(s.Buf[r.off:r.off+r.n]) == string(key) {
				s.duplicate(keyStart, key)
				s.skipRest(i)
				return
			}
		}
		names[n] = nameRef{off: s.StrStart, n: len(key)}
		n++
		s.Skip()
	}
}

// skipLargeObject goes on from skipObject at the name key, read from
// keyStart, with the names before it, which are distinct views of the
// input, and finds repeats through a table, or, past deferAfter names,
// by gathering them and checking them all when the object ends.
func (s *Scanner) skipLargeObject(first []nameRef, keyStart int, key []byte) {
	ts := s.names
	if ts == nil {
		ts = tablesPool.Get().(*nameTables)
		ts.buf = s.Buf
		s.names = ts
		defer func() {
			s.names = nil
			ts.release()
		}()
	}
	t, mark := ts.push()
	s.readLargeObject(ts, t, first, keyStart, key)
	if t.gathering {
		// A repeat among the names gathered is before whatever else
		// stopped the reading, if anything did: it comes first.
		switch start, name := ts.checkGathered(t); {
		case start >= 0 && s.goOn:
			s.repeats = append(s.repeats, start)
		case start >= 0 && (!s.Fatal || start < s.Off):
			s.Fatal = false
			s.duplicate(start, name)
		}
	}
	ts.pop(mark)
}

// readLargeObject is skipLargeObject's reading of the object's members.
func (s *Scanner) readLargeObject(ts *nameTables, t *nameTable, first []nameRef, keyStart int, key []byte) {
	for _, r := range first {
		ts.add(t, r, s.Buf[r.off:r.off+r.n], false)
	}
	gatherFrom := deferAfter
	if uint64(len(s.Buf)) > maxGathered {
		gatherFrom = math.MaxInt
	}
	i := len(first)
	for ; len(t.entries) < gatherFrom; i++ {
		r := nameRef{off: s.StrStart, n: len(key)}
		if s.Escaped {
			r.off = keyStart // for store
		}
		if !ts.add(t, r, key, s.Escaped) {
			s.duplicate(keyStart, key)
			s.skipRest(i)
			return
		}
		s.Skip()
		var ok bool
		if keyStart, key, ok = s.member(i + 1); !ok {
			return
		}
	}
	// The rest of the names are gathered, to be checked when the object
	// ends (see checkGathered), here rather than in a call a name.
	ts.startGathering(t, keyStart)
	for ; ; i++ {
		if len(t.gathered) == cap(t.gathered) {
			ts.moreRoom(t, keyStart)
		}
		t.gathered = append(t.gathered, uint64(hashName(key))<<32|uint64(keyStart))
		s.Skip()
		var ok bool
		if keyStart, key, ok = s.member(i + 1); !ok {
			return
		}
	}
}

// duplicate records that the name key, read from off, repeats one before
// it in its object: an error, or with goOn a finding.
func (s *Scanner) duplicate(off int, key []byte) {
	if s.goOn {
		s.repeats = append(s.repeats, off)
		return
	}
	s.failFor(CauseDuplicate, off, RepeatedName(key))
}

// RepeatedName returns the reason of an error at a member name, name,
// that repeats one before it in its object.
func RepeatedName(name []byte) string {
	return "duplicate member name " + quoteShort(name)
}

// skipRest skips, once the name of the i-th member of an object being
// skipped repeated one before it, that member's value and the members
// after it, whose names it no longer compares: the object has its
// finding. After an error it does nothing.
func (s *Scanner) skipRest(i int) {
	for ; ; i++ {
		s.Skip()
		if _, _, ok := s.member(i + 1); !ok {
			return
		}
	}
}

// member reads, as Next('}', i) does, whether the object being read has
// an i-th member, and if it has, that member's name and the colon after
// it, as name(true) does, returning the offset of the name's opening
// quote. At the end of the object, or at an error, ok is false.
//
// Mostly, in compact JSON, a member's name follows its comma at once, is
// made of plain bytes and is followed at once by its colon: member reads
// such a name itself, in one call, and leaves any other to Next and
// name.
func (s *Scanner) member(i int) (keyStart int, key []byte, ok bool) {
	if s.Fatal {
		return 0, nil, false
	}
	b, p := s.Buf, s.Pos
	if i > 0 && p < len(b) && b[p] == ',' {
		p++
	}
	if (i == 0 || p > s.Pos) && p < len(b) && b[p] == '"' {
		start := p + 1
		if n := plainEnd(b, start, !s.unmarked); n+1 < len(b) && b[n] == '"' && b[n+1] == ':' {
			s.Pos = n + 2
			s.Escaped, s.StrStart = false, start
			return p, b[start:n:n], true
		}
	}
	if !s.Next('}', i) {
		return 0, nil, false
	}
	keyStart = s.Pos
	if key = s.name(true); s.Fatal {
		return 0, nil, false
	}
	return keyStart, key, true
}

// Number reads a number, checking the JSON grammar, and returns its text.
func (s *Scanner) Number() []byte {
	b, start := s.Buf, s.Pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		s.Fail(i, "want a digit in number, got "+Describe(b, i))
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.Fail(i, "want a digit after decimal point, got "+Describe(b, i))
			return nil
		}
		i = digitsEnd(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.Fail(i, "want a digit in exponent, got "+Describe(b, i))
			return nil
		}
		i = digitsEnd(b, i+1)
	}
	s.Pos = i
	return b[start:i]
}

// digitsEnd returns the index of the first byte of b from i on that is
// not a decimal digit, or len(b). It looks at eight bytes at a time, so
// that the loop's end, at a number's length, which a branch predictor
// cannot guess where numbers vary, is mostly its first word.
func digitsEnd(b []byte, i int) int {
	for ; len(b)-i >= 8; i += 8 {
		if m := nonDigits(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
	}
	return i
}

// nonDigits flags, in the high bit of each byte, the bytes of w that are
// not decimal digits. As in needsLook, the lowest flagged byte is always
// one, and the flags above it may be false: below it, every byte is a
// digit, which neither the subtraction borrows from nor the addition
// carries from. A byte below '0' is flagged by subtracting '0', which
// wraps it past 0x80, one above '9' by adding 0x7f-'9', which takes it
// to 0x80 or past, and one outside ASCII by its own high bit.
func nonDigits(w uint64) uint64 {
	return ((w - 0x3030303030303030) | (w + 0x4646464646464646) | w) & msb
}

// Str reads a string whose opening quote is at Pos and returns its
// unescaped content: a sub-slice of the input when it has no escapes, of
// the scratch buffer otherwise.
func (s *Scanner) Str() []byte {
	return s.str(false)
}

// str is Str. Where marking is set, as it is for the strings of values
// held as text, it also marks the characters json.Marshal escapes (see
// marked); elsewhere it may or may not.
func (s *Scanner) str(marking bool) []byte {
	b := s.Buf
	start := s.Pos + 1
	i := start
	// Reading on past the string is fine: it ends at its closing quote,
	// within the input.
	if marking {
		i += plainMarking(b[i:])
	} else {
		i += Plain(b[i:])
	}
	// From the first escape on, the content is unescaped into the
	// scratch buffer, which holds it up to b[copied].
	copied := -1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.Pos = i + 1
			if copied < 0 {
				s.Escaped = false
				s.StrStart = start
				return b[start:i]
			}
			s.tmp = append(s.tmp, b[copied:i]...)
			s.Escaped = true
			return s.tmp
		case c == '\\':
			if copied < 0 {
				s.tmp, copied = s.tmp[:0], start
			}
			n := s.unescape(b[copied:i], i)
			if n == 0 {
				return nil
			}
			i += n
			copied = i
		case c < 0x20:
			s.Fail(i, "control character in string")
			return nil
		case c < utf8.RuneSelf:
			if escapedByMarshal(rune(c)) {
				s.marked = i + 1
			}
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				s.Fail(i, "invalid UTF-8")
				return nil
			}
			if escapedByMarshal(r) {
				s.marked = i + size
			}
			i += size
		}
	}
	s.Fail(len(b), "unterminated string")
	return nil
}

// Plain returns the length of the longest prefix of b in which no byte
// needs a closer look inside a JSON string: no quote, backslash, control
// character or non-ASCII byte. It goes eight bytes at a time, the last
// eight overlapping those before them, and byte by byte only through a b
// shorter than eight.
func Plain(b []byte) int {
	return plainEndWords(b, 0, false)
}

// PlainFrom returns p + Plain(b[p:]).
func PlainFrom(b []byte, p int) int {
	return plainEndWords(b, p, false)
}

// plainEndWords is plainEnd eight bytes at a time: p + Plain(b[p:]), or,
// if marking, p + plainMarking(b[p:]).
func plainEndWords(b []byte, p int, marking bool) int {
	if marking {
		for ; len(b)-p >= 8; p += 8 {
			if m := markingLook(binary.LittleEndian.Uint64(b[p : p+8])); m != 0 {
				return p + bits.TrailingZeros64(m)/8
			}
		}
		for ; p < len(b); p++ {
			if c := b[p]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
				break
			}
		}
		return p
	}
	start := p
	for ; len(b)-p >= 8; p += 8 {
		if m := needsLook(binary.LittleEndian.Uint64(b[p : p+8])); m != 0 {
			return p + bits.TrailingZeros64(m)/8
		}
	}
	if p < len(b) && len(b)-start >= 8 {
		// The bytes from start to p are plain, so the lowest flag in the
		// last word, the only one that counts, is at p or after it.
		if m := needsLook(binary.LittleEndian.Uint64(b[len(b)-8:])); m != 0 {
			return len(b) - 8 + bits.TrailingZeros64(m)/8
		}
		return len(b)
	}
	for ; p < len(b) && !looks[b[p]]; p++ {
	}
	return p
}

// looks holds the bytes that need a look inside a JSON string, for a
// byte at a time: quotes, backslashes, control characters and those
// outside ASCII.
var looks = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

// escapedByMarshal reports whether json.Marshal escapes r in a string that
// a MarshalJSON method returns, as AppendCanonical does.
func escapedByMarshal(r rune) bool {
	return r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029'
}

// plainMarking is Plain, but stops at '<', '>' and '&' too, which
// json.Marshal escapes, as it does U+2028 and U+2029, which begin with a
// byte outside ASCII.
func plainMarking(b []byte) int {
	return plainEndWords(b, 0, true)
}

// needsLook flags, in the high bit of each byte, the bytes of w that
// need a look inside a JSON string. The lowest flagged byte is always one
// that does; flags above it may be false.
//
// A quote or backslash is a zero byte of w^0x22… or w^0x5c…, which
// subtracting one from each byte flags, as subtracting 0x20 flags a
// control character. The subtractions flag other bytes too, but only
// ones that need a look anyway, outside ASCII (their high bit, kept by
// the exclusive or, is set), or ones above a byte that needs a look,
// from which the subtraction borrows: never one below the lowest byte
// that does. It takes fewer operations than a test for zero bytes that
// flags no others (see zeroByte).
func needsLook(w uint64) uint64 {
	q := (w ^ 0x2222222222222222) - lsb
	e := (w ^ 0x5c5c5c5c5c5c5c5c) - lsb
	return (q | e | (w - 0x2020202020202020) | w) & msb
}

// markingLook is needsLook for plainMarking, flagging '<', '>' and '&'
// too.
func markingLook(w uint64) uint64 {
	// '"' and '&' differ only in bit 2, '<' and '>' only in bit 1. As in
	// needsLook, a byte that matches is zero, which the subtraction
	// flags, and a byte it flags otherwise is outside ASCII or above
	// one that matches.
	qa := ((w | 0x0404040404040404) ^ 0x2626262626262626) - lsb
	lg := ((w | 0x0202020202020202) ^ 0x3e3e3e3e3e3e3e3e) - lsb
	e := (w ^ 0x5c5c5c5c5c5c5c5c) - lsb
	return (qa | lg | e | (w - 0x2020202020202020) | w) & msb
}

// lsb and msb have the lowest and the highest bit of each byte set.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// quoteOrBackslash flags the quotes and backslashes of w, the bytes that
// end a string or begin an escape in it.
func quoteOrBackslash(w uint64) uint64 {
	return zeroByte(w^0x2222222222222222) | zeroByte(w^0x5c5c5c5c5c5c5c5c)
}

// zeroByte has the high bit of each byte of the result set where that
// byte of w is zero (and possibly above a zero byte, which is harmless
// here: it only sends the caller to the byte-wise loop).
func zeroByte(w uint64) uint64 {
	return (w - 0x0101010101010101) &^ w & 0x8080808080808080
}

// unescape appends to the scratch buffer text, the string's content
// before the escape at Buf[i], and what the escape stands for, and returns
// the escape's length; or it fails and returns 0.
func (s *Scanner) unescape(text []byte, i int) int {
	b := s.Buf
	if i+1 >= len(b) {
		s.Fail(i, "unterminated string")
		return 0
	}
	out, n := append(s.tmp, text...), 2
	switch e := b[i+1]; e {
	case '"', '\\', '/':
		out = append(out, e)
	case 'b':
		out = append(out, '\b')
	case 'f':
		out = append(out, '\f')
	case 'n':
		out = append(out, '\n')
	case 'r':
		out = append(out, '\r')
	case 't':
		out = append(out, '\t')
	case 'u':
		var r rune
		if r, n = unicodeEscape(b[i:]); n == 0 {
			s.Fail(i, "invalid \\u escape")
			return 0
		}
		if r < 0 {
			s.Fail(i, "escaped lone surrogate")
			return 0
		}
		out = utf8.AppendRune(out, r)
	default:
		s.Fail(i, "invalid escape \\"+string(rune(e)))
		return 0
	}
	s.tmp = out
	return n
}

// unicodeEscape decodes the \uXXXX escape at the start of b, and the low
// surrogate escape after it if it is a high surrogate. It returns the rune
// and the bytes used; n == 0 means a malformed escape, r < 0 a lone
// surrogate.
func unicodeEscape(b []byte) (r rune, n int) {
	r = hex4(b)
	if r < 0 {
		return 0, 0
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return -1, 6
	case r >= 0xD800 && r <= 0xDBFF:
		if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
			return -1, 6
		}
		lo := hex4(b[6:])
		if lo < 0xDC00 || lo > 0xDFFF {
			return -1, 6
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
	}
	return r, 6
}

// hex4 decodes the four hex digits of the \u escape at the start of b, or
// returns -1.
func hex4(b []byte) rune {
	if len(b) < 6 {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Check reports whether b is exactly one JSON value, as strictly as the
// decoder reads messages. When it is not, it returns the byte offset and
// the reason of the first problem.
func Check(b []byte) (off int, reason string) {
	off, reason, _ = CheckCause(b)
	return off, reason
}

// CheckCause is Check, also returning the cause of the problem, if there
// is one: for a repeated member name, PathTo(b, off) says where it is.
func CheckCause(b []byte) (off int, reason string, cause Cause) {
	if simple(b) {
		return 0, "", 0
	}
	var s Scanner
	s.Reset(b)
	s.unmarked = true
	s.Skip()
	s.End()
	if s.Fatal {
		return s.Off, s.Reason, s.Cause
	}
	return 0, "", 0
}

// PathTo returns the steps from the root of the JSON text b to byte
// offset off: the name of each member and the index of each item (in
// decimal) whose value holds it, and last the name of the member, if
// any, that begins there, as the offset of a repeated name does. It reads
// b from its start to off, which must be well-formed up to there, as it
// is up to the first problem a scan finds; it is for the error path, and
// costs a scan of that much.
func PathTo(b []byte, off int) []string {
	var s Scanner
	s.Reset(b)
	var path []string
	s.pathTo(off, &path)
	return path
}

// PointerTo is PathTo as a JSON Pointer: each step, made a reference
// token by token (which escapes '~' and '/', and may shorten), after a
// '/'. The caller's token keeps how names are shown in one place.
func PointerTo(b []byte, off int, token func(string) string) string {
	var p strings.Builder
	for _, step := range PathTo(b, off) {
		p.WriteByte('/')
		p.WriteString(token(step))
	}
	return p.String()
}

// PathsTo is PathTo for each of offs, in ascending order, in one reading
// of b: it stops once it has found the steps to as many as want, and
// returns those. Each offset must be that of a member name, as a repeat's
// is, in a b well-formed up to it.
func PathsTo(b []byte, offs []int, want int) [][]string {
	w := pathWalk{offs: offs[:min(want, len(offs))]}
	var s Scanner
	s.Reset(b)
	s.pathsTo(&w)
	return w.found
}

// A pathWalk is the state of PathsTo: the offsets left to find, the steps
// to where the scan is, and those found.
type pathWalk struct {
	offs  []int
	path  []string
	found [][]string
}

// pathsTo reads the value at Pos, noting for each offset left in w that
// a member name within it holds the steps that lead there.
func (s *Scanner) pathsTo(w *pathWalk) {
	c := s.WS()
	if s.Fatal || len(w.offs) == 0 {
		return
	}
	switch c {
	case '{':
		if !s.Enter() {
			return
		}
		for i := 0; len(w.offs) > 0 && s.Next('}', i); i++ {
			name := s.Name()
			if s.Fatal {
				return
			}
			w.path = append(w.path, string(name))
			for len(w.offs) > 0 && w.offs[0] < s.Pos {
				w.found = append(w.found, slices.Clone(w.path))
				w.offs = w.offs[1:]
			}
			s.pathsTo(w)
			w.path = w.path[:len(w.path)-1]
		}
	case '[':
		if !s.Enter() {
			return
		}
		for i := 0; len(w.offs) > 0 && s.Next(']', i); i++ {
			w.path = append(w.path, strconv.Itoa(i))
			s.pathsTo(w)
			w.path = w.path[:len(w.path)-1]
		}
	default:
		s.Skip()
	}
}

// pathTo reads the value at Pos, appending to path the steps into it
// that lead to off, and reports whether it reached off (or an error,
// where it stops as well).
func (s *Scanner) pathTo(off int, path *[]string) bool {
	c := s.WS()
	if s.Fatal || s.Pos >= off {
		return true
	}
	switch c {
	case '{':
		if !s.Enter() {
			return true
		}
		for i := 0; s.Next('}', i); i++ {
			at := s.Pos
			name := s.Name()
			if s.Fatal {
				return true
			}
			*path = append(*path, string(name))
			if at >= off || s.pathTo(off, path) {
				return true
			}
			*path = (*path)[:len(*path)-1]
		}
	case '[':
		if !s.Enter() {
			return true
		}
		for i := 0; s.Next(']', i); i++ {
			*path = append(*path, strconv.Itoa(i))
			if s.pathTo(off, path) {
				return true
			}
			*path = (*path)[:len(*path)-1]
		}
	default:
		s.Skip()
	}
	return s.Fatal || s.Pos > off
}

// simple reports whether b is one of the values free-form members mostly
// hold, written plainly: a literal, an integer without exponent or
// fraction, or a string of printable ASCII without escapes. It answers
// false when unsure, leaving the rest to the decoder.
func simple(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch c := b[0]; {
	case c == 'n':
		return string(b) == "null"
	case c == 't':
		return string(b) == "true"
	case c == 'f':
		return string(b) == "false"
	case c == '"':
		if len(b) < 2 || b[len(b)-1] != '"' {
			return false
		}
		for _, c := range b[1 : len(b)-1] {
			if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				return false
			}
		}
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		digits := b
		if c == '-' {
			digits = b[1:]
		}
		if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
			return false
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return false
}

// Describe names the byte at off for a syntax error.
func Describe(b []byte, off int) string {
	if off >= len(b) {
		return "end of input"
	}
	c := b[off]
	if c >= 0x20 && c < 0x7f {
		return "character " + strconv.QuoteRune(rune(c))
	}
	switch r, size := utf8.DecodeRune(b[off:]); {
	case r == '\uFEFF':
		// Editors on some systems start files with one; JSON text must
		// not (RFC 8259, section 8.1), and a byte alone would not say why.
		return "a byte order mark (U+FEFF)"
	case size > 1:
		return fmt.Sprintf("character %U %s", r, strconv.QuoteRune(r))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// WS skips white space and returns the next byte, or 0 at the end.
func (s *Scanner) WS() byte {
	for s.Pos < len(s.Buf) {
		c := s.Buf[s.Pos]
		if c > ' ' {
			return c
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		s.Pos++
		s.spaced = s.Pos
	}
	return 0
}

// Next reports whether the object or array being read, which closes with
// end, has an i-th member or item (counting from 0), consuming the comma
// before it or the closing end after the last.
func (s *Scanner) Next(end byte, i int) bool {
	if s.Fatal {
		return false
	}
	// Mostly, in compact JSON, a comma is followed at once by what it
	// separates.
	if i > 0 && s.Pos+1 < len(s.Buf) && s.Buf[s.Pos] == ',' {
		if c := s.Buf[s.Pos+1]; c > ' ' && c != end {
			s.Pos++
			return true
		}
	}
	c := s.WS()
	if c == end {
		s.Pos++
		s.Depth--
		return false
	}
	if i > 0 {
		if c != ',' {
			s.Fail(s.Pos, "want ',' or '"+string(end)+"', got "+Describe(s.Buf, s.Pos))
			return false
		}
		s.Pos++
		if s.WS() == end {
			s.Fail(s.Pos, "trailing comma before '"+string(end)+"'")
			return false
		}
	}
	return true
}

// Name reads a member name and the colon after it. The name is unescaped
// and valid until the next string is read.
func (s *Scanner) Name() []byte {
	return s.name(false)
}

// name is Name, marking as str does.
func (s *Scanner) name(marking bool) []byte {
	if s.Fatal {
		return nil
	}
	if s.WS() != '"' {
		s.Fail(s.Pos, "want a member name, got "+Describe(s.Buf, s.Pos))
		return nil
	}
	key := s.str(marking)
	if s.Fatal {
		return nil
	}
	if s.WS() != ':' {
		s.Fail(s.Pos, "want ':' after member name, got "+Describe(s.Buf, s.Pos))
		return nil
	}
	s.Pos++
	return key
}

// Literal reports whether the literal lit begins at Pos.
func (s *Scanner) Literal(lit string) bool {
	return len(s.Buf)-s.Pos >= len(lit) && string(s.Buf[s.Pos:s.Pos+len(lit)]) == lit
}

// Enter steps into the array or object whose opening bracket is at Pos.
func (s *Scanner) Enter() bool {
	s.Pos++
	s.Depth++
	if s.Depth > MaxDepth {
		s.failFor(CauseDepth, s.Pos-1, "nesting deeper than "+strconv.Itoa(MaxDepth))
		return false
	}
	return true
}

// quoteShort quotes a member name for an error's reason, its first 64
// bytes only if it is long: a reason is read by people, and must not
// grow with the input.
func quoteShort(name []byte) string {
	const max = 64
	if len(name) <= max {
		return strconv.Quote(string(name))
	}
	n := max
	for n > max-utf8.UTFMax && !utf8.RuneStart(name[n]) {
		n--
	}
	q := strconv.Quote(string(name[:n]))
	return q[:len(q)-1] + "…"
}
