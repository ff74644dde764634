package wire

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/internal/rawobject"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
	"github.com/google/uuid"
)

// MaxDepth is how deeply arrays and objects may nest, as in encoding/json.
const MaxDepth = jsontext.MaxDepth

// A Decoder reads one JSON document in a single pass. Generated code drives
// it member by member: the reader methods check the JSON type and format
// the schema declares, record a violation and skip the value when it does
// not match, and go on, so that one pass reports every violation. A
// repeated member name is one: in a value read whole (a free object, an
// undeclared member), the first that repeats in each of its objects,
// at its own path. A syntax error (malformed JSON, invalid UTF-8, an
// escaped lone surrogate, nesting past MaxDepth) is fatal: it is recorded
// once, and every later call returns at once.
//
// Every reader takes the location of the value as a base path and a name,
// static strings that are joined only if a violation is recorded.
//
// What the decoded message keeps of the input is the decoder's Mode: a
// copy (Reset), the input's own bytes, or nothing (ResetMode).
type Decoder struct {
	jsontext.Scanner
	Errors
	last   int  // where the last value read began, for violation values
	placed bool // the syntax error, if any, is recorded as a violation
	// item is the index of the array item being read, -1 if none: it
	// ends the path of a syntax error inside the item.
	item int
	mode Mode // what the message may keep of the input (see borrow.go)
	// keyAt is where the last member name Member read in full began,
	// for a decoder in mode Judge to read it again.
	keyAt int
	names *extraNames // the undeclared names in mode Judge, once some are read
}

// Reset makes d ready to decode data, keeping its scratch buffer.
func (d *Decoder) Reset(data []byte) {
	d.Scanner.Reset(data)
	d.GoOnAtRepeats()
	d.Errors = Errors{}
	d.last, d.placed, d.item, d.mode = 0, false, -1, Copy
}

// keepString returns the last string read, b, as a string the decoded
// message can keep: from the copy of the input if it had no escapes.
func (d *Decoder) keepString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if d.Escaped {
		return string(b)
	}
	k := d.Keep(d.StrStart, d.StrStart+len(b))
	return unsafe.String(unsafe.SliceData(k), len(k))
}

// Failed reports whether a syntax error has stopped the decoder.
func (d *Decoder) Failed() bool { return d.Fatal }

// End checks that nothing but white space follows the document.
func (d *Decoder) End() {
	d.Scanner.End()
	d.place("", "", "")
}

// place records the scanner's syntax error, if it has one not yet
// recorded, as a violation at base+name+"/"+sub (and the array item being
// read, if any). The scanner takes no path, so that passing one costs
// nothing when there is no error; its callers, which know the path, place
// its error.
func (d *Decoder) place(base, name, sub string) {
	if !d.Fatal || d.placed {
		return
	}
	d.placed = true
	path := join(name, sub)
	if d.item >= 0 {
		path += "/" + strconv.Itoa(d.item)
	}
	if d.Cause == jsontext.CauseDuplicate {
		// The scanner found it in a value read whole, where the path
		// says no more than where that value is: the repeated member's
		// own path is found by reading the document again up to it.
		base, path = "", jsontext.PointerTo(d.Buf, d.Off, PathToken)
	}
	if d.Full() {
		// The error that stopped the reading is the one a reader most
		// needs, so it takes the place of the last listed, which is
		// counted instead.
		d.list = d.list[:len(d.list)-1]
		d.Omit()
	}
	d.Add(base, path, msg.Rule(d.Cause.Rule()), "", d.Reason+" at byte offset "+strconv.Itoa(d.Off))
}

// repeated records, as violations, the repeated member names the scanner
// found in the value it read from start, at base+name+"/"+sub (and the
// array item being read, if any): each at its own member, with the steps
// into the value that lead there. It finds the paths of no more than the
// list has room for, in one reading of the value; the rest are counted.
func (d *Decoder) repeated(start int, base, name, sub string) {
	offs := d.Repeats()
	path := join(name, sub)
	if d.item >= 0 {
		path += "/" + strconv.Itoa(d.item)
	}
	room := max(msg.MaxViolations-len(d.list), 0)
	steps := jsontext.PathsTo(d.Buf[start:], offsetsFrom(offs, start), room)
	for i, off := range offs {
		if i >= len(steps) {
			d.Omit()
			continue
		}
		p := path
		for _, step := range steps[i] {
			p += "/" + PathToken(step)
		}
		d.Add(base, p, msg.RuleDuplicate, "", repeatedAt(start+off))
	}
}

// offsetsFrom makes offs, offsets in the input, offsets from start, in
// place.
func offsetsFrom(offs []int, start int) []int {
	for i := range offs {
		offs[i] -= start
	}
	return offs
}

// Err returns nil if the message had no violation, and an *msg.Error
// listing them otherwise.
func (d *Decoder) Err() error {
	if d.Repeated() {
		// Each reader that skips a value records what it found; this is
		// for any that might not.
		d.repeated(0, "", "", "")
	}
	d.place("", "", "")
	return d.Errors.Err()
}

// extraName returns the name and sub (see join) of an undeclared member
// named key: key as the last token of its path, and for the empty name,
// which join would take for none, the token it is, "/".
func extraName(key string) (name, sub string) {
	if key == "" {
		return "/", ""
	}
	return "", key
}

// join appends the member name sub, as a JSON Pointer token, to name.
func join(name, sub string) string {
	if sub == "" {
		return name
	}
	return msg.Pointer(name, Shorten(sub))
}

// Object begins reading an object at base+name. It reports false, having
// recorded a type violation and skipped the value, if the value is not an
// object.
func (d *Decoder) Object(base, name string) bool {
	if d.Fatal {
		return false
	}
	if d.WS() != '{' {
		d.mistyped(base, name, "", "an object")
		return false
	}
	return d.open(base, name, "")
}

// Array begins reading an array at base+name, like Object.
func (d *Decoder) Array(base, name string) bool {
	if d.Fatal {
		return false
	}
	if d.WS() != '[' {
		d.mistyped(base, name, "", "an array")
		return false
	}
	return d.open(base, name, "")
}

func (d *Decoder) open(base, name, sub string) bool {
	d.last = d.Pos
	if !d.Enter() {
		d.place(base, name, sub)
		return false
	}
	if d.mode == Judge {
		d.opened()
	}
	return true
}

// More reports whether the object or array being read, which closes with
// end, has an i-th member or item (counting from 0), consuming the comma
// before it or the closing end after the last.
func (d *Decoder) More(base, name string, end byte, i int) bool {
	// A comma followed at once by what it separates, as mostly, is read
	// here as Next reads it, without calling it.
	if b, p := d.Buf, d.Pos; i > 0 && !d.Fatal && p+1 < len(b) && b[p] == ',' {
		if c := b[p+1]; c > ' ' && c != end {
			d.Pos = p + 1
			return true
		}
	}
	more := d.Next(end, i)
	if d.Fatal {
		d.place(base, name, "")
	}
	return more
}

// Members lists the members an object type declares, in the order its
// schema gives them, for Member to match names against.
type Members struct {
	names  []string
	quoted []quotedName // each name as JSON writes it, and its colon: `"message_id":`
	paths  []string     // each name as a JSON Pointer token: "/message_id"
	byLen  [][]uint8    // the places of the names of each length
}

// A quotedName is a member name as JSON writes it, without escapes,
// followed by a colon, `"message_id":`, as Member compares it with the
// input: three words of eight bytes at once rather than through a call
// to compare strings, when it has at most 24 bytes and the input 24
// more.
type quotedName struct {
	text string
	// word holds the first 24 bytes of text as little-endian words, the
	// bytes past its end zero, and mask has the bits of text's bytes
	// set.
	word, mask [3]uint64
}

// newQuotedName returns the quotedName of text.
func newQuotedName(text string) quotedName {
	q := quotedName{text: text}
	var b, m [24]byte
	copy(b[:], text)
	for i := range min(len(text), len(m)) {
		m[i] = 0xff
	}
	for i := range q.word {
		q.word[i] = binary.LittleEndian.Uint64(b[8*i:])
		q.mask[i] = binary.LittleEndian.Uint64(m[8*i:])
	}
	return q
}

// at reports whether b[p:] begins with q's text.
func (q *quotedName) at(b []byte, p int) bool {
	return p <= len(b)-len(q.text) && string(b[p:p+len(q.text)]) == q.text
}

// wordsAt reports whether w begins with the first 24 bytes of q's text,
// or all of it if it is shorter.
func (q *quotedName) wordsAt(w *[24]byte) bool {
	le := binary.LittleEndian
	return (le.Uint64(w[0:])&q.mask[0]^q.word[0])|
		(le.Uint64(w[8:])&q.mask[1]^q.word[1])|
		(le.Uint64(w[16:])&q.mask[2]^q.word[2]) == 0
}

// NewMembers returns the Members of names, in order. There may be at most
// 64, each written in JSON without escapes, as the generator ensures.
func NewMembers(names ...string) *Members {
	if len(names) > 64 {
		panic("wire: more than 64 declared members")
	}
	ms := &Members{names: names}
	for i, name := range names {
		q := strconv.Quote(name)
		if q[1:len(q)-1] != name {
			panic("wire: member name " + q + " needs escaping")
		}
		ms.quoted = append(ms.quoted, newQuotedName(q+":"))
		ms.paths = append(ms.paths, msg.Pointer("", name))
		for len(ms.byLen) <= len(name) {
			ms.byLen = append(ms.byLen, nil)
		}
		ms.byLen[len(name)] = append(ms.byLen[len(name)], uint8(i))
	}
	return ms
}

// index returns the place of the member named name, or false.
func (ms *Members) index(name []byte) (int, bool) {
	if len(name) < len(ms.byLen) {
		for _, j := range ms.byLen[len(name)] {
			if ms.names[j] == string(name) {
				return int(j), true
			}
		}
	}
	return 0, false
}

// Seen is what Member knows of the object being read: which declared
// members it has read, and which one it expects next.
type Seen struct {
	Bits uint64 // bit i is set once the i-th declared member is read
	next int
}

// What Member returns instead of a declared member's index.
const (
	Undeclared = -1 // a member the object does not declare
	Skipped    = -2 // a repeated member, recorded and skipped, or a syntax error
)

// Member reads a member name and the colon after it, in the object at
// base whose declared members are ms. It returns the index in ms of the
// member named, which seen records; Undeclared and the name, unescaped and
// valid until the next string is read, for a member ms does not declare;
// or Skipped, having recorded a violation and skipped the value, for a
// declared member read before.
//
// Messages mostly list their members in the schema's order, as MarshalJSON
// writes them, so the name is first compared with the one after the last
// declared member read, and the few after it, where it lies: a match
// costs a comparison of three words each (of bytes for a long name or
// near the end of the input, and only with the first). Otherwise a name
// of printable ASCII without escapes, followed at once by the colon, is
// looked up where it lies; any other is read in full first.
func (d *Decoder) Member(base string, ms *Members, seen *Seen) (int, []byte) {
	// The bytes at Pos are, as mostly, the name after the last one read,
	// or one of the few after it (those between being absent), with
	// nothing to unescape, and the colon, and the member is new: found
	// here by comparing words. Anything else is member's.
	b, p := d.Buf, d.Pos
	if p <= len(b)-24 {
		w := (*[24]byte)(b[p:])
		for j := seen.next; j < len(ms.quoted) && j < seen.next+lookAhead; j++ {
			if q := &ms.quoted[j]; q.wordsAt(w) && len(q.text) <= 24 {
				if seen.Bits&(1<<j) != 0 {
					break
				}
				d.Pos = p + len(q.text)
				seen.Bits |= 1 << j
				seen.next = j + 1
				return j, nil
			}
		}
	}
	return d.member(base, ms, seen)
}

// lookAhead is how many declared names Member compares in place, from the
// one after the last read: optional members are often absent.
const lookAhead = 8

// member is Member for a name not found by comparing words: the one
// expected compared as bytes, then the general lookup.
func (d *Decoder) member(base string, ms *Members, seen *Seen) (int, []byte) {
	b, p := d.Buf, d.Pos
	if j := seen.next; j < len(ms.quoted) && ms.quoted[j].at(b, p) {
		d.Pos = p + len(ms.quoted[j].text)
		return d.declared(base, ms, seen, j), nil
	}
	if p < len(b) && b[p] == '"' {
		end := p + 1 + jsontext.Plain(b[p+1:]) // where the name's plain bytes end
		if end+1 < len(b) && b[end] == '"' && b[end+1] == ':' {
			if j, ok := ms.index(b[p+1 : end]); ok {
				d.Pos = end + 2
				return d.declared(base, ms, seen, j), nil
			}
		}
	}
	d.keyAt = p
	key := d.Key(base, "")
	if d.Fatal {
		return Skipped, nil
	}
	j, ok := ms.index(key)
	if !ok {
		return Undeclared, key
	}
	return d.declared(base, ms, seen, j), nil
}

// declared marks the j-th member of ms as seen and returns j, or records
// it as a repeat and returns Skipped.
func (d *Decoder) declared(base string, ms *Members, seen *Seen, j int) int {
	bit := uint64(1) << j
	if seen.Bits&bit != 0 {
		d.Duplicate(base, ms.paths[j])
		return Skipped
	}
	seen.Bits |= bit
	seen.next = j + 1
	return j
}

// Key reads a member name and the colon after it. The name is unescaped
// and valid until the next string is read.
func (d *Decoder) Key(base, name string) []byte {
	key := d.Name()
	if d.Fatal {
		d.place(base, name, "")
		return nil
	}
	return key
}

// Null consumes a null and reports true if the next value is null.
func (d *Decoder) Null() bool {
	if d.Fatal || d.WS() != 'n' {
		return false
	}
	if !d.Literal("null") {
		return false
	}
	d.last = d.Pos
	d.Pos += 4
	return true
}

// Last returns the JSON text of the last value read, shortened if long,
// for the Value of a violation.
func (d *Decoder) Last() string {
	if d.last > d.Pos {
		return ""
	}
	return ShortenBytes(d.Buf[d.last:d.Pos])
}

// Duplicate records that the member base+name appears again, and skips
// its value.
func (d *Decoder) Duplicate(base, name string) {
	d.duplicate(base, name, "")
}

func (d *Decoder) duplicate(base, name, sub string) {
	start := d.Pos
	d.skip(base, name, sub)
	if d.Fatal {
		return
	}
	if d.Full() {
		d.Omit()
		return
	}
	d.Add(base, join(name, sub), msg.RuleDuplicate, ShortenBytes(d.Buf[start:d.Pos]), repeatedAt(start))
}

// repeatedAt says that a member repeats one before it, at byte offset
// off: a declared member (Duplicate) and one inside a value read whole
// (repeated) alike.
func repeatedAt(off int) string {
	return "member appears more than once (byte offset " + strconv.Itoa(off) + ")"
}

// mistyped records that the value at base+name is not of the type want,
// and skips it.
func (d *Decoder) mistyped(base, name, sub, want string) {
	start := d.Pos
	got := kind(d.Buf, d.Pos)
	d.skip(base, name, sub)
	if d.Fatal {
		return
	}
	d.last = start
	if d.Full() {
		d.Omit()
		return
	}
	value := ShortenBytes(d.Buf[start:d.Pos])
	d.Add(base, join(name, sub), msg.RuleType, value, "want "+want+", got "+got)
}

// mistypedItem is mistyped for the i-th item of the array at base+name.
// Once the violations are capped it names the item only if it must place
// a syntax error, so that a long array of wrong items costs a scan.
func (d *Decoder) mistypedItem(base, name string, i int, want string) {
	if !d.Full() {
		d.mistyped(base, name, strconv.Itoa(i), want)
		return
	}
	d.item = i
	d.skip(base, name, "")
	d.item = -1
	if !d.Fatal {
		d.Omit()
	}
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
	if d.mode == Judge {
		return judgedString(s), true
	}
	return d.keepString(s), true
}

// StringItem reads the i-th item of the array at base+name, a string.
func (d *Decoder) StringItem(base, name string, i int) (string, bool) {
	s, ok := d.stringItem(base, name, i)
	if !ok {
		return "", false
	}
	return d.keepString(s), true
}

// stringItem is StringItem, returning the string as Bytes does.
func (d *Decoder) stringItem(base, name string, i int) ([]byte, bool) {
	if d.Fatal {
		return nil, false
	}
	if d.WS() != '"' {
		d.mistypedItem(base, name, i, "a string")
		return nil, false
	}
	d.last = d.Pos
	d.item = i
	s := d.Str()
	if d.Fatal {
		d.place(base, name, "")
	}
	d.item = -1
	return s, !d.Fatal
}

// Strings reads an array of strings that the message only holds. The
// items are gathered first, so that the slice is allocated once, at its
// final size. An empty array gives an empty, non-nil slice. A decoder in
// mode Judge checks the items and returns nil: the generated code reads
// an array whose items its checks need with StringList.
func (d *Decoder) Strings(base, name string) ([]string, bool) {
	if d.mode == Judge {
		return nil, d.judgeStrings(base, name)
	}
	return d.StringList(base, name)
}

// StringList is Strings for an array of strings that is checked once
// read (its length, its items' uniqueness): a decoder in mode Judge
// gathers it too, borrowing its strings from the input.
func (d *Decoder) StringList(base, name string) ([]string, bool) {
	if !d.Array(base, name) {
		return nil, false
	}
	// The items are gathered as places in the input, which hold no
	// pointer (so that gathering them costs no write barrier and no
	// clearing), a few on the stack and more in pooled scratch space. An
	// item the general path reads, one with escapes or outside ASCII, is
	// gathered as a string of its own and its place as its index among
	// those.
	var small [16]span
	n := 0
	var pooled *[]span
	var big []span
	var others []string
	for i := 0; d.More(base, name, ']', i); i++ {
		sp, ok := d.plainItem()
		if !ok {
			s, ok := d.StringItem(base, name, i)
			if !ok {
				continue
			}
			others = append(others, s)
			sp = span{off: -len(others)}
		}
		switch {
		case pooled == nil && n < len(small):
			small[n] = sp
			n++
		default:
			if pooled == nil {
				pooled = spansPool.Get().(*[]span)
				big = append((*pooled)[:0], small[:n]...)
			}
			big = append(big, sp)
		}
	}
	spans := small[:n]
	if pooled != nil {
		spans = big
	}
	list := make([]string, len(spans))
	for i, sp := range spans {
		switch {
		case sp.off < 0:
			list[i] = others[-sp.off-1]
		case sp.len > 0:
			k := d.Keep(sp.off, sp.off+sp.len)
			list[i] = unsafe.String(unsafe.SliceData(k), len(k))
		}
	}
	if pooled != nil {
		*pooled = big[:0]
		spansPool.Put(pooled)
	}
	return list, !d.Fatal
}

// A span is where a string's content lies in the input; a negative off
// stands for something else, which its user says.
type span struct{ off, len int }

var spansPool = sync.Pool{New: func() any { return new([]span) }}

// plainItem reads, if the value at Pos is a string of printable ASCII
// without escapes, as most items of a list are, that string, and returns
// where its content lies. Otherwise it reads nothing and reports false,
// for the general path to read the value.
func (d *Decoder) plainItem() (span, bool) {
	p := d.Pos
	if p >= len(d.Buf) || d.Buf[p] != '"' {
		return span{}, false
	}
	n := jsontext.Plain(d.Buf[p+1:])
	if p+1+n >= len(d.Buf) || d.Buf[p+1+n] != '"' {
		return span{}, false
	}
	d.last = p
	d.Pos = p + 2 + n
	return span{off: p + 1, len: n}, true
}

// Bytes reads a string and returns it unescaped, without copying: it is
// valid until the next string is read. It reports false, having recorded a
// violation, if the value is not a string.
func (d *Decoder) Bytes(base, name string) ([]byte, bool) {
	if d.Fatal {
		return nil, false
	}
	// A string of plain bytes right at Pos, as most are, is read
	// without Str's general path, and left as Str leaves it.
	if b, p := d.Buf, d.Pos; p < len(b) && b[p] == '"' {
		if end := jsontext.PlainFrom(b, p+1); end < len(b) && b[end] == '"' {
			d.last, d.Pos = p, end+1
			d.Escaped, d.StrStart = false, p+1
			return b[p+1 : end], true
		}
	}
	if d.WS() != '"' {
		d.mistyped(base, name, "", "a string")
		return nil, false
	}
	d.last = d.Pos
	s := d.Str()
	if d.Fatal {
		d.place(base, name, "")
		return nil, false
	}
	return s, true
}

// Bool reads a boolean.
func (d *Decoder) Bool(base, name string) (v, ok bool) {
	if d.Fatal {
		return false, false
	}
	switch d.WS() {
	case 't':
		if d.Literal("true") {
			d.last = d.Pos
			d.Pos += 4
			return true, true
		}
	case 'f':
		if d.Literal("false") {
			d.last = d.Pos
			d.Pos += 5
			return false, true
		}
	}
	d.mistyped(base, name, "", "a boolean")
	return false, false
}

// Int reads an integer: any number whose value is a mathematical integer,
// such as 1.0 or 1e2, that fits in an int64.
func (d *Decoder) Int(base, name string) (int64, bool) {
	if d.Fatal {
		return 0, false
	}
	c := d.WS()
	if c != '-' && (c < '0' || c > '9') {
		d.mistyped(base, name, "", "an integer")
		return 0, false
	}
	d.last = d.Pos
	num := d.Number()
	if d.Fatal {
		d.place(base, name, "")
		return 0, false
	}
	n, reason, isInt := format.ParseInt(num)
	switch {
	case d.Full() && (!isInt || reason != ""):
		d.Omit()
		return 0, false
	case !isInt:
		value := ShortenBytes(num)
		d.Add(base, name, msg.RuleType, value, "want an integer, got "+value)
		return 0, false
	case reason != "":
		d.Add(base, name, msg.RuleRange, ShortenBytes(num), "integer "+reason)
		return 0, false
	}
	return n, true
}

// UUID reads a string in uuid format.
func (d *Decoder) UUID(base, name string) (uuid.UUID, bool) {
	// A uuid holds no byte a string must escape, so a string that holds
	// one is the 36 bytes between two quotes, which can be parsed in place.
	if !d.Fatal && d.WS() == '"' && d.Pos+37 < len(d.Buf) && d.Buf[d.Pos+37] == '"' {
		if u, reason := format.ParseUUID(d.Buf[d.Pos+1 : d.Pos+37]); reason == "" {
			d.last = d.Pos
			d.Pos += 38
			return u, true
		}
	}
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
	// A date-time holds no byte a string must escape, so a string that
	// holds one is the bytes between two quotes, which can be parsed in
	// place: their end is where the layout says it is.
	if b, p := d.Buf, d.Pos; !d.Fatal && p < len(b) && b[p] == '"' {
		if end := dateTimeEnd(b, p+1); end < len(b) && b[end] == '"' {
			if t, reason := format.ParseDateTime(b[p+1 : end]); reason == "" {
				d.last, d.Pos = p, end+1
				d.Escaped, d.StrStart = false, p+1
				return t, true
			}
		}
	}
	return d.dateTimeString(base, name)
}

// dateTimeString is DateTime for any string: read, then parsed.
func (d *Decoder) dateTimeString(base, name string) (time.Time, bool) {
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

// dateTimeEnd returns where a date-time that begins at start ends, if it
// is one: past its 19 bytes up to the seconds, the digits of a fraction
// after a dot, and a Z or an offset of six bytes. It may be past the end
// of b.
func dateTimeEnd(b []byte, start int) int {
	i := start + 19
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(b) {
		switch b[i] {
		case 'Z', 'z':
			i++
		case '+', '-':
			i += 6
		}
	}
	return i
}

// Raw reads any JSON value and returns a copy of its text, in canonical
// form (see jsontext.AppendCanonical); in mode Borrow the input's own
// bytes when they are canonical already, and in mode Judge the input's
// bytes as they are, for checks that compare JSON values.
func (d *Decoder) Raw(base, name string) json.RawMessage {
	return d.raw(base, name, "")
}

func (d *Decoder) raw(base, name, sub string) json.RawMessage {
	if d.Fatal {
		return nil
	}
	if d.mode == Judge {
		return d.rawJudged(base, name, sub)
	}
	d.WS()
	start := d.Pos
	if !d.skip(base, name, sub) {
		return nil
	}
	return d.KeepCanonical(start, d.Pos)
}

// FreeObject reads an object whose members are free (any name, any
// value) into an object.Object, which keeps its text, as Raw keeps it in
// each mode.
func (d *Decoder) FreeObject(base, name string) (object.Object, bool) {
	if d.Fatal {
		return object.Object{}, false
	}
	if d.WS() != '{' {
		d.mistyped(base, name, "", "an object")
		return object.Object{}, false
	}
	d.last = d.Pos
	start := d.Pos
	d.Scanner.Skip()
	if d.Repeated() {
		d.repeated(start, base, name, "")
		d.place(base, name, "")
		return object.Object{}, false
	}
	if d.Fatal {
		d.place(base, name, "")
		return object.Object{}, false
	}
	if d.mode == Judge {
		return d.judgeFreeObject(start), true
	}
	return rawobject.New[object.Object](d.KeepCanonical(start, d.Pos)), true
}

// Extra reads the value of a member the schema does not declare into
// *extra, allocating the map on first use; a name that repeats is a
// violation. In mode Judge it leaves *extra alone and finds repeats
// through a table of places in the input (see extraNames).
func (d *Decoder) Extra(extra *map[string]json.RawMessage, base string, key []byte) {
	if d.mode == Judge && len(d.Buf) <= maxJudged {
		d.judgeExtra(base, key)
		return
	}
	if *extra == nil {
		*extra = make(map[string]json.RawMessage)
	}
	m := *extra
	if _, dup := m[string(key)]; dup {
		// The path shows the name shortened: copy no more of it, which
		// may be megabytes long.
		name, sub := extraName(string(key[:min(len(key), shortLen+utf8.UTFMax)]))
		d.duplicate(base, name, sub)
		return
	}
	k := d.keepString(key)
	d.WS()
	start := d.Pos
	name, sub := extraName(k)
	if v := d.raw(base, name, sub); v != nil {
		m[k] = v
	} else if !d.Fatal {
		// A name repeated inside the value, recorded: the member is
		// kept all the same, so that a repeat of its own name is found
		// too, as mode Judge finds it.
		m[k] = d.KeepCanonical(start, d.Pos)
	}
}

// Skip reads and discards any JSON value, checking it as strictly as the
// rest of the document.
func (d *Decoder) Skip(base, name string) {
	d.skip(base, name, "")
}

// skip is Skip, reporting whether the value was read without a finding:
// no syntax error and no repeated name.
func (d *Decoder) skip(base, name, sub string) bool {
	start := d.Pos // the white space before the value, if any, included
	d.Scanner.Skip()
	if d.Repeated() {
		d.repeated(start, base, name, sub)
		d.place(base, name, sub)
		return false
	}
	d.place(base, name, sub)
	return !d.Fatal
}

// Check reports whether b is exactly one JSON value, as strictly as the
// decoder reads messages. When it is not, it returns the byte offset and
// the reason of the first problem.
func Check(b []byte) (off int, reason string) {
	return jsontext.Check(b)
}
