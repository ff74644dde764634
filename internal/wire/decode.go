package wire

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/msg"
	"github.com/google/uuid"
)

// MaxDepth is how deeply arrays and objects may nest, as in encoding/json.
const MaxDepth = 10000

// A Decoder reads one JSON document in a single pass. Generated code drives
// it member by member: the reader methods check the JSON type and format
// the schema declares, record a violation and skip the value when it does
// not match, and go on, so that one pass reports every violation. A syntax
// error (malformed JSON, invalid UTF-8, an escaped lone surrogate) is fatal:
// it is recorded once, and every later call returns at once.
//
// Every reader takes the location of the value as a base path and a name,
// static strings that are joined only if a violation is recorded.
type Decoder struct {
	Errors
	buf   []byte
	pos   int
	last  int // where the last value read began, for violation values
	depth int
	fatal bool
	tmp   []byte // unescaped strings; valid until the next string is read
	// item is the index of the array item being read, -1 if none: it
	// ends the path of a syntax error inside the item.
	item int
	// escaped reports whether the last string read had escapes, so that
	// it lives in tmp rather than in buf.
	escaped bool

	synOff    int
	synReason string
	pending   bool // a syntax error is not yet placed: see fail

	// copy is a copy of the input, made on the first string or raw value
	// the decoded message keeps: what it keeps points into it, at the
	// offsets where it was read, so that keeping costs one allocation and
	// one copy in all. Nothing writes to it after it is made; raw values
	// are capped at their length, so that appending to one copies it
	// rather than overwrite its neighbour.
	copy []byte
	// strStart is where the content of the last string read began in the
	// input, when it had no escapes.
	strStart int
}

// Reset makes d ready to decode data, keeping its scratch buffer.
func (d *Decoder) Reset(data []byte) {
	*d = Decoder{buf: data, tmp: d.tmp[:0], item: -1}
}

// keep returns the bytes buf[start:end] of the input, from the copy.
func (d *Decoder) keep(start, end int) []byte {
	if d.copy == nil {
		d.copy = append([]byte(nil), d.buf...)
	}
	return d.copy[start:end:end]
}

// keepString returns the last string read, b, as a string the decoded
// message can keep: from the copy of the input if it had no escapes.
func (d *Decoder) keepString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if d.escaped {
		return string(b)
	}
	k := d.keep(d.strStart, d.strStart+len(b))
	return unsafe.String(unsafe.SliceData(k), len(k))
}

// Failed reports whether a syntax error has stopped the decoder.
func (d *Decoder) Failed() bool { return d.fatal }

// End checks that nothing but white space follows the document.
func (d *Decoder) End() {
	if d.fatal {
		return
	}
	if d.ws() != 0 || d.pos < len(d.buf) {
		d.syntax("", "", "", d.pos, "unexpected "+describe(d.buf, d.pos)+" after the document")
	}
}

// syntax records a fatal syntax error at byte offset off, in the value
// at base+name+"/"+sub.
func (d *Decoder) syntax(base, name, sub string, off int, reason string) {
	d.fail(off, reason)
	d.place(base, name, sub)
}

// fail records a fatal syntax error whose place (its path) the caller
// gives with place: the scanners on the hot path take no path, so that
// passing one costs nothing when there is no error.
func (d *Decoder) fail(off int, reason string) {
	if d.fatal {
		return
	}
	d.fatal = true
	d.pending = true
	d.synOff, d.synReason = off, reason
}

// place records the violation of a pending syntax error, at
// base+name+"/"+sub (and the array item being read, if any).
func (d *Decoder) place(base, name, sub string) {
	if !d.pending {
		return
	}
	d.pending = false
	path := join(name, sub)
	if d.item >= 0 {
		path += "/" + strconv.Itoa(d.item)
	}
	d.Add(base, path, msg.RuleSyntax, "", d.synReason+" at byte offset "+strconv.Itoa(d.synOff))
}

// Err returns nil if the message had no violation, and an *msg.Error
// listing them otherwise.
func (d *Decoder) Err() error {
	d.place("", "", "")
	return d.Errors.Err()
}

// join appends the member name sub, as a JSON Pointer token, to name.
func join(name, sub string) string {
	if sub == "" {
		return name
	}
	return name + "/" + Pointer(sub)
}

// describe names the byte at off for a syntax error.
func describe(b []byte, off int) string {
	if off >= len(b) {
		return "end of input"
	}
	c := b[off]
	if c >= 0x20 && c < 0x7f {
		return "character " + strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// ws skips white space and returns the next byte, or 0 at the end.
func (d *Decoder) ws() byte {
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		if c > ' ' {
			return c
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		d.pos++
	}
	return 0
}

// Object begins reading an object at base+name. It reports false, having
// recorded a type violation and skipped the value, if the value is not an
// object.
func (d *Decoder) Object(base, name string) bool {
	if d.fatal {
		return false
	}
	if d.ws() != '{' {
		d.mistyped(base, name, "", "an object")
		return false
	}
	return d.open(base, name, "")
}

// Array begins reading an array at base+name, like Object.
func (d *Decoder) Array(base, name string) bool {
	if d.fatal {
		return false
	}
	if d.ws() != '[' {
		d.mistyped(base, name, "", "an array")
		return false
	}
	return d.open(base, name, "")
}

func (d *Decoder) open(base, name, sub string) bool {
	d.last = d.pos
	d.pos++
	d.depth++
	if d.depth > MaxDepth {
		d.syntax(base, name, sub, d.pos-1, "nesting deeper than "+strconv.Itoa(MaxDepth))
		return false
	}
	return true
}

// More reports whether the object or array being read, which closes with
// end, has an i-th member or item (counting from 0), consuming the comma
// before it or the closing end after the last.
func (d *Decoder) More(base, name string, end byte, i int) bool {
	if d.fatal {
		return false
	}
	c := d.ws()
	if c == end {
		d.pos++
		d.depth--
		return false
	}
	if i > 0 {
		if c != ',' {
			d.syntax(base, name, "", d.pos, "want ',' or '"+string(end)+"', got "+describe(d.buf, d.pos))
			return false
		}
		d.pos++
		if d.ws() == end {
			d.syntax(base, name, "", d.pos, "trailing comma before '"+string(end)+"'")
			return false
		}
	}
	return true
}

// Key reads a member name and the colon after it. The name is unescaped
// and valid until the next string is read.
func (d *Decoder) Key(base, name string) []byte {
	if d.fatal {
		return nil
	}
	if d.ws() != '"' {
		d.syntax(base, name, "", d.pos, "want a member name, got "+describe(d.buf, d.pos))
		return nil
	}
	key := d.str()
	if d.fatal {
		d.place(base, name, "")
		return nil
	}
	if d.ws() != ':' {
		d.syntax(base, name, "", d.pos, "want ':' after member name, got "+describe(d.buf, d.pos))
		return nil
	}
	d.pos++
	return key
}

// Null consumes a null and reports true if the next value is null.
func (d *Decoder) Null() bool {
	if d.fatal || d.ws() != 'n' {
		return false
	}
	if !d.literal("null") {
		return false
	}
	d.last = d.pos
	d.pos += 4
	return true
}

func (d *Decoder) literal(lit string) bool {
	return len(d.buf)-d.pos >= len(lit) && string(d.buf[d.pos:d.pos+len(lit)]) == lit
}

// Last returns the JSON text of the last value read, shortened if long,
// for the Value of a violation.
func (d *Decoder) Last() string {
	if d.last > d.pos {
		return ""
	}
	return Shorten(string(d.buf[d.last:d.pos]))
}

// Duplicate records that the member base+name appears again, and skips
// its value.
func (d *Decoder) Duplicate(base, name string) {
	d.duplicate(base, name, "")
}

func (d *Decoder) duplicate(base, name, sub string) {
	start := d.pos
	d.skip(base, name, sub)
	if d.fatal {
		return
	}
	d.Add(base, join(name, sub), msg.RuleDuplicate, Shorten(string(d.buf[start:d.pos])),
		"member appears more than once (byte offset "+strconv.Itoa(start)+")")
}

// mistyped records that the value at base+name is not of the type want,
// and skips it.
func (d *Decoder) mistyped(base, name, sub, want string) {
	start := d.pos
	got := kind(d.buf, d.pos)
	d.skip(base, name, sub)
	if d.fatal {
		return
	}
	d.last = start
	value := Shorten(string(d.buf[start:d.pos]))
	d.Add(base, join(name, sub), msg.RuleType, value, "want "+want+", got "+got)
}

// kind names the JSON type of the value that begins at off.
func kind(b []byte, off int) string {
	if off >= len(b) {
		return "nothing"
	}
	switch b[off] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// String reads a string. Like every reader, it reports false, having
// recorded a violation, if the value is not of the type it reads.
func (d *Decoder) String(base, name string) (string, bool) {
	s, ok := d.Bytes(base, name)
	if !ok {
		return "", false
	}
	return d.keepString(s), true
}

// StringItem reads the i-th item of the array at base+name, a string.
func (d *Decoder) StringItem(base, name string, i int) (string, bool) {
	if d.fatal {
		return "", false
	}
	if d.ws() != '"' {
		d.mistyped(base, name, strconv.Itoa(i), "a string")
		return "", false
	}
	d.last = d.pos
	d.item = i
	s := d.str()
	if d.fatal {
		d.place(base, name, "")
	}
	d.item = -1
	return d.keepString(s), !d.fatal
}

// Strings reads an array of strings. The items are gathered first, so
// that the slice is allocated once, at its final size. An empty array
// gives an empty, non-nil slice.
func (d *Decoder) Strings(base, name string) ([]string, bool) {
	if !d.Array(base, name) {
		return nil, false
	}
	sp := stringsPool.Get().(*[]string)
	items := (*sp)[:0]
	for i := 0; d.More(base, name, ']', i); i++ {
		if s, ok := d.StringItem(base, name, i); ok {
			items = append(items, s)
		}
	}
	list := append(make([]string, 0, len(items)), items...)
	clear(items)
	*sp = items[:0]
	stringsPool.Put(sp)
	return list, !d.fatal
}

var stringsPool = sync.Pool{New: func() any { return new([]string) }}

// Bytes reads a string and returns it unescaped, without copying: it is
// valid until the next string is read. It reports false, having recorded a
// violation, if the value is not a string.
func (d *Decoder) Bytes(base, name string) ([]byte, bool) {
	if d.fatal {
		return nil, false
	}
	if d.ws() != '"' {
		d.mistyped(base, name, "", "a string")
		return nil, false
	}
	d.last = d.pos
	s := d.str()
	if d.fatal {
		d.place(base, name, "")
		return nil, false
	}
	return s, true
}

// Bool reads a boolean.
func (d *Decoder) Bool(base, name string) (v, ok bool) {
	if d.fatal {
		return false, false
	}
	switch d.ws() {
	case 't':
		if d.literal("true") {
			d.last = d.pos
			d.pos += 4
			return true, true
		}
	case 'f':
		if d.literal("false") {
			d.last = d.pos
			d.pos += 5
			return false, true
		}
	}
	d.mistyped(base, name, "", "a boolean")
	return false, false
}

// Int reads an integer: any number whose value is a mathematical integer,
// such as 1.0 or 1e2, that fits in an int64.
func (d *Decoder) Int(base, name string) (int64, bool) {
	if d.fatal {
		return 0, false
	}
	c := d.ws()
	if c != '-' && (c < '0' || c > '9') {
		d.mistyped(base, name, "", "an integer")
		return 0, false
	}
	d.last = d.pos
	num := d.number()
	if d.fatal {
		d.place(base, name, "")
		return 0, false
	}
	n, reason, isInt := format.ParseInt(num)
	switch {
	case !isInt:
		d.Add(base, name, msg.RuleType, Shorten(string(num)), "want an integer, got "+Shorten(string(num)))
		return 0, false
	case reason != "":
		d.Add(base, name, msg.RuleRange, Shorten(string(num)), "integer "+reason)
		return 0, false
	}
	return n, true
}

// UUID reads a string in uuid format.
func (d *Decoder) UUID(base, name string) (uuid.UUID, bool) {
	s, ok := d.Bytes(base, name)
	if !ok {
		return uuid.UUID{}, false
	}
	u, reason := format.ParseUUID(s)
	if reason != "" {
		d.Add(base, name, msg.RuleFormat, d.Last(), "not a uuid: "+reason)
		return uuid.UUID{}, false
	}
	return u, true
}

// DateTime reads a string in date-time format.
func (d *Decoder) DateTime(base, name string) (time.Time, bool) {
	s, ok := d.Bytes(base, name)
	if !ok {
		return time.Time{}, false
	}
	t, reason := format.ParseDateTime(s)
	if reason != "" {
		d.Add(base, name, msg.RuleFormat, d.Last(), "not a date-time: "+reason)
		return time.Time{}, false
	}
	return t, true
}

// Raw reads any JSON value and returns a copy of its text.
func (d *Decoder) Raw(base, name string) json.RawMessage {
	return d.raw(base, name, "")
}

func (d *Decoder) raw(base, name, sub string) json.RawMessage {
	if d.fatal {
		return nil
	}
	d.ws()
	start := d.pos
	d.skip(base, name, sub)
	if d.fatal {
		return nil
	}
	return d.keep(start, d.pos)
}

// RawObject reads an object whose members may hold any JSON value, null
// included, into a map of their texts.
func (d *Decoder) RawObject(base, name string) map[string]json.RawMessage {
	if !d.Object(base, name) {
		return nil
	}
	// The members are gathered first, so that the map is made at its
	// final size: growing it member by member costs more than reading
	// them.
	sp := pairPool.Get().(*[]pair)
	pairs := (*sp)[:0]
	for i := 0; d.More(base, name, '}', i); i++ {
		key := d.Key(base, name)
		if d.fatal {
			break
		}
		k := d.keepString(key)
		start := d.pos
		v := d.raw(base, name, k)
		if d.fatal {
			break
		}
		pairs = append(pairs, pair{k, v, start})
	}
	m := make(map[string]json.RawMessage, len(pairs))
	for _, p := range pairs {
		// One hash per member: a name seen before leaves the length as
		// it was. Which of the repeats the map keeps does not matter, as
		// the message is then invalid.
		n := len(m)
		m[p.key] = p.value
		if len(m) == n {
			d.Add(base, join(name, p.key), msg.RuleDuplicate, Shorten(string(p.value)),
				"member appears more than once (byte offset "+strconv.Itoa(p.offset)+")")
		}
	}
	clear(pairs)
	*sp = pairs[:0]
	pairPool.Put(sp)
	return m
}

// A pair is a member of an object being gathered.
type pair struct {
	key    string
	value  json.RawMessage
	offset int
}

var pairPool = sync.Pool{New: func() any { return new([]pair) }}

// Extra reads the value of a member the schema does not declare into
// *extra, allocating the map on first use; a name that repeats is a
// violation.
func (d *Decoder) Extra(extra *map[string]json.RawMessage, base string, key []byte) {
	if *extra == nil {
		*extra = make(map[string]json.RawMessage)
	}
	m := *extra
	if _, dup := m[string(key)]; dup {
		d.duplicate(base, "", string(key))
		return
	}
	k := d.keepString(key)
	if v := d.raw(base, "", k); !d.fatal {
		m[k] = v
	}
}

// Skip reads and discards any JSON value, checking it as strictly as the
// rest of the document.
func (d *Decoder) Skip(base, name string) {
	d.skip(base, name, "")
}

func (d *Decoder) skip(base, name, sub string) {
	if d.fatal {
		return
	}
	switch c := d.ws(); {
	case c == '"':
		d.str()
		d.place(base, name, sub)
	case c == '{':
		d.skipObject(base, name, sub)
	case c == '[':
		if !d.open(base, name, sub) {
			return
		}
		for i := 0; d.More(base, name, ']', i); i++ {
			d.skip(base, name, sub)
		}
	case c == 't':
		d.word(base, name, sub, "true")
	case c == 'f':
		d.word(base, name, sub, "false")
	case c == 'n':
		d.word(base, name, sub, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		d.number()
		d.place(base, name, sub)
	case d.pos >= len(d.buf):
		d.syntax(base, name, sub, d.pos, "unexpected end of input, want a value")
	default:
		d.syntax(base, name, sub, d.pos, "want a value, got "+describe(d.buf, d.pos))
	}
}

func (d *Decoder) word(base, name, sub, lit string) {
	if !d.literal(lit) {
		d.syntax(base, name, sub, d.pos, "invalid literal, want "+lit)
		return
	}
	d.pos += len(lit)
}

// skipObject skips an object, checking that no member name repeats.
func (d *Decoder) skipObject(base, name, sub string) {
	if !d.open(base, name, sub) {
		return
	}
	var names keySet
	for i := 0; d.More(base, name, '}', i); i++ {
		keyStart := d.pos
		key := d.Key(base, name)
		if d.fatal {
			return
		}
		if !names.add(key, d.escaped) {
			d.syntax(base, name, sub, keyStart, "duplicate member name "+Quote(string(key)))
			return
		}
		d.skip(base, name, sub)
	}
}

// keySet holds the member names of one object, to find repeats. Small
// objects are searched linearly; large ones through a map, so that the
// cost stays linear in the number of members.
type keySet struct {
	n     int
	small [16][]byte
	big   map[string]struct{}
}

// add adds key and reports whether it was new. A key that points into
// the input is kept as it is; a scratch one, unescaped, is copied.
func (s *keySet) add(key []byte, scratch bool) bool {
	if s.big != nil {
		if _, ok := s.big[string(key)]; ok {
			return false
		}
		s.big[string(key)] = struct{}{}
		return true
	}
	for _, k := range s.small[:s.n] {
		if string(k) == string(key) {
			return false
		}
	}
	if s.n == len(s.small) {
		s.big = make(map[string]struct{}, 2*len(s.small))
		for _, k := range s.small[:s.n] {
			s.big[string(k)] = struct{}{}
		}
		s.big[string(key)] = struct{}{}
		return true
	}
	if scratch {
		key = append([]byte(nil), key...)
	}
	s.small[s.n] = key
	s.n++
	return true
}

// number reads a number, checking the JSON grammar, and returns its text.
func (d *Decoder) number() []byte {
	b, start := d.buf, d.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		d.fail(i, "want a digit in number, got "+describe(b, i))
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.fail(i, "want a digit after decimal point, got "+describe(b, i))
			return nil
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.fail(i, "want a digit in exponent, got "+describe(b, i))
			return nil
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	d.pos = i
	return b[start:i]
}

// str reads a string whose opening quote is at d.pos and returns its
// unescaped content: a sub-slice of the input when it has no escapes, of
// the scratch buffer otherwise.
func (d *Decoder) str() []byte {
	b := d.buf
	start := d.pos + 1
	i := start
	// Eight bytes at a time (reading on past the string is fine: it ends
	// at its closing quote, within the input) up to the first byte that
	// needs a closer look: a quote, backslash, control character or
	// non-ASCII byte. The lowest flagged byte is always such a byte;
	// flags above it may be false.
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		m := (zeroByte(w^0x2222222222222222) | zeroByte(w^0x5c5c5c5c5c5c5c5c) |
			(w - 0x2020202020202020) | w) & 0x8080808080808080
		if m != 0 {
			i += bits.TrailingZeros64(m) / 8
			break
		}
		i += 8
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.escaped = false
			d.strStart = start
			return b[start:i]
		case c == '\\':
			return d.strEscaped(start, i)
		case c < 0x20:
			d.fail(i, "control character in string")
			return nil
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				d.fail(i, "invalid UTF-8")
				return nil
			}
			i += size
		}
	}
	d.fail(len(b), "unterminated string")
	return nil
}

// zeroByte has the high bit of each byte of the result set where that
// byte of w is zero (and possibly above a zero byte, which is harmless
// here: it only sends the caller to the byte-wise loop).
func zeroByte(w uint64) uint64 {
	return (w - 0x0101010101010101) &^ w & 0x8080808080808080
}

// strEscaped goes on from str at the first backslash, at i, unescaping into
// the scratch buffer.
func (d *Decoder) strEscaped(start, i int) []byte {
	b := d.buf
	out := append(d.tmp[:0], b[start:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.tmp = out
			d.escaped = true
			return out
		case c == '\\':
			if i+1 >= len(b) {
				d.fail(i, "unterminated string")
				return nil
			}
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
				r, n := unicodeEscape(b[i:])
				if n == 0 {
					d.fail(i, "invalid \\u escape")
					return nil
				}
				if r < 0 {
					d.fail(i, "escaped lone surrogate")
					return nil
				}
				out = utf8.AppendRune(out, r)
				i += n
				continue
			default:
				d.fail(i, "invalid escape \\"+string(rune(e)))
				return nil
			}
			i += 2
		case c < 0x20:
			d.fail(i, "control character in string")
			return nil
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				d.fail(i, "invalid UTF-8")
				return nil
			}
			out = append(out, b[i:i+size]...)
			i += size
		}
	}
	d.fail(len(b), "unterminated string")
	return nil
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
	if simple(b) {
		return 0, ""
	}
	var d Decoder
	d.Reset(b)
	d.Skip("", "")
	d.End()
	if d.fatal {
		return d.synOff, d.synReason
	}
	return 0, ""
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
