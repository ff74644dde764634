package wire

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/internal/rawobject"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
)

// A Mode is what a decoder lets the message it decodes keep of its input.
type Mode uint8

const (
	// Copy keeps a copy of what the message holds of its input: one
	// allocation and one copy for the whole message (see
	// jsontext.Scanner.Keep), after which the input may be reused at
	// once. It is the mode of Reset.
	Copy Mode = iota
	// Borrow lets the message's strings and JSON texts (free objects,
	// extra members) point into the input instead: no copy, for a caller
	// that owns the input and leaves it unchanged while the message is
	// used. Strings with escapes, whose content is not in the input, and
	// texts that are not in canonical form, are still copied.
	Borrow
	// Judge keeps nothing: the message is read only for its verdict,
	// which is the same, with the same violations, as in the other
	// modes. Values that only fill the message (an array of strings,
	// the Extra map) are checked and dropped; those its checks need are
	// borrowed; the message must not be used afterwards.
	Judge
)

// ResetMode is Reset, decoding in mode m.
func (d *Decoder) ResetMode(data []byte, m Mode) {
	d.Reset(data)
	d.mode = m
	switch m {
	case Borrow:
		d.Borrow()
	case Judge:
		d.Borrow()
		d.KeepNothing()
		if d.names != nil {
			d.names.reset(len(data))
		}
	}
}

// A decoder of mode Judge comes from a pool, so that its scratch space
// (the unescaped strings, the tables of names) serves message after
// message.
var judges = sync.Pool{New: func() any { return new(Decoder) }}

// NewDecoder returns a decoder of data in mode m, which Release gives back
// once its verdict (Err) is taken: from a pool, so that what it allocates
// for scratch is allocated once, not for every message.
func NewDecoder(data []byte, m Mode) *Decoder {
	d := judges.Get().(*Decoder)
	d.ResetMode(data, m)
	return d
}

// Release gives d back to the pool of NewDecoder, holding none of its
// input; d must not be used afterwards.
func (d *Decoder) Release() {
	// The scratch space a huge message grew is not kept for the next:
	// the scanner's (its unescaped strings) and the tables of names are
	// kept only if small.
	d.Reset(nil)
	d.TrimScratch(maxPooledScratch)
	if d.names != nil {
		d.names.trim()
	}
	judges.Put(d)
}

// borrowed returns the text of the value read from start to Pos, for a
// decoder in mode Judge: the bytes of the input themselves, whether in
// canonical form or not, since nothing keeps them and the checks that read
// them compare JSON values, not texts.
func (d *Decoder) borrowed(start int) []byte {
	return d.Buf[start:d.Pos:d.Pos]
}

// judgedString returns the string s, read by a decoder in mode Judge, as
// String returns it: without a copy, even when it had escapes and s is in
// the scratch buffer, since the generated code checks a member's string
// at once, and only stores it in a message no one reads. (The items of a
// list, which its checks read once the list is whole, are read with
// StringList, which copies those.)
func judgedString(s []byte) string {
	return unsafe.String(unsafe.SliceData(s), len(s))
}

// judgeFreeObject is FreeObject for a decoder in mode Judge, the value
// having been read from start.
func (d *Decoder) judgeFreeObject(start int) object.Object {
	return rawobject.New[object.Object](d.borrowed(start))
}

// judgeStrings reads an array of strings, as Strings does, for a decoder
// in mode Judge: every item is checked, and none is kept.
func (d *Decoder) judgeStrings(base, name string) bool {
	if !d.Array(base, name) {
		return false
	}
	for i := 0; d.More(base, name, ']', i); i++ {
		if _, ok := d.plainItem(); !ok {
			d.stringItem(base, name, i)
		}
	}
	return !d.Fatal
}

// judgeExtra is Extra for a decoder in mode Judge: the member's value is
// checked and dropped, and its name is kept only as the place in the input
// where it begins, to find a repeat of it. It returns where the value
// began, and false if it was not read (a repeat of its name, a syntax
// error) or had a finding (a repeated name inside it).
func (d *Decoder) judgeExtra(base string, key []byte) (int, bool) {
	if d.names == nil {
		d.names = new(extraNames)
		d.names.reset(len(d.Buf))
	}
	// Where the name began: its opening quote, or when it had escapes the
	// white space before it, which reading it again skips.
	off, escaped := d.StrStart-1, d.Escaped
	if escaped {
		off = d.keyAt
	}
	if d.names.add(d.Buf, d.Depth, off, escaped, key) {
		name, sub := extraName(string(key[:min(len(key), shortLen+utf8.UTFMax)]))
		d.duplicate(base, name, sub)
		return 0, false
	}
	d.WS()
	start := d.Pos
	d.Scanner.Skip()
	if d.Fatal || d.Repeated() {
		// The path names the member, whose name the scanner has
		// overwritten since: it is read again, on this error path.
		name, sub := extraName(string(d.names.name(d.Buf, off, escaped)))
		if d.Repeated() {
			d.repeated(start, base, name, sub)
		}
		d.place(base, name, sub)
		return 0, false
	}
	return start, true
}

// judgeExtraValue is ExtraValue for a decoder in mode Judge: the checks
// that follow read the value, which is kept for them, in canonical form
// as the other modes keep it, so that their verdicts are the same.
func (d *Decoder) judgeExtraValue(base string, key []byte) (string, json.RawMessage, bool) {
	k, n := string(key), d.Len()
	start, ok := d.judgeExtra(base, key)
	if !ok || d.Len() != n {
		return "", nil, false
	}
	return k, jsontext.AppendCanonical(nil, d.Buf[start:d.Pos]), true
}

// opened tells d's extraNames, for a decoder in mode Judge, that an object
// or array has just opened at depth Depth: the objects whose names it
// holds at that depth or deeper are closed.
func (d *Decoder) opened() {
	if d.names != nil {
		d.names.close(d.Depth)
	}
}

// extraNames finds the repeated undeclared member names of the objects a
// decoder in mode Judge reads, without the Extra map the other modes
// fill. For each object being read, from the outermost to the one whose
// members are read now, it holds an open-addressing table of the places in
// the input where its undeclared names begin, hashed by the unescaped
// name with a per-process seed, so that crafted names cannot make them
// collide. A slot is four bytes: the place, a bit that says whether the
// name had escapes, and in the bits the place leaves free (ten for an
// input of a mebibyte, five for 64 MiB) a tag of the hash, so that most
// slots that hold another name are passed over without reading it. A
// name whose tag matches is compared byte for byte after unescaping,
// reading it again from the input. A table is at most seven eighths full,
// which linear probing, over slots that share cache lines, tolerates: a
// table costs at most about nine bytes a member, and a member takes at
// least seven ("ab":0,) once the names of one byte are spent.
type extraNames struct {
	objects []extraObject
	spare   [][]uint32 // tables of closed objects, to be used again
	read    jsontext.Scanner
	// The layout of a slot for the input being read: the place+1 in
	// its low placeBits, the escaped bit above them, the tag above that.
	placeBits, tagShift uint
}

// An extraObject holds the undeclared names of one object being read.
type extraObject struct {
	depth int      // of the object's members
	n     int      // names in slots
	slots []uint32 // a power of two of them, 0 if free
}

// maxJudged is the size of the largest input whose places fit a slot:
// the undeclared names of a larger one go in the Extra map, as in the
// other modes.
const maxJudged = 1<<31 - 2

var seed = maphash.MakeSeed()

// reset readies x for an input of size bytes.
func (x *extraNames) reset(size int) {
	x.close(0)
	x.placeBits = uint(bits.Len(uint(size)))
	x.tagShift = x.placeBits + 1
}

// close forgets the objects at depth or deeper, which have closed.
func (x *extraNames) close(depth int) {
	for len(x.objects) > 0 && x.objects[len(x.objects)-1].depth >= depth {
		o := &x.objects[len(x.objects)-1]
		clear(o.slots)
		x.spare = append(x.spare, o.slots[:0])
		x.objects = x.objects[:len(x.objects)-1]
	}
}

// maxPooledSlots and maxPooledScratch bound the tables of names and the
// scratch buffer a pooled decoder keeps.
const (
	maxPooledSlots   = 1 << 16
	maxPooledScratch = 4 << 20
)

// trim forgets every object, and the spare tables larger than
// maxPooledSlots and the scratch space of names read again.
func (x *extraNames) trim() {
	x.close(0)
	x.spare = slices.DeleteFunc(x.spare, func(t []uint32) bool { return cap(t) > maxPooledSlots })
	x.read = jsontext.Scanner{}
}

// slotOf returns the slot of the name of hash h that began at off, with
// escapes if escaped.
func (x *extraNames) slotOf(h uint64, off int, escaped bool) uint32 {
	s := uint32(off + 1)
	if escaped {
		s |= 1 << x.placeBits
	}
	if x.tagShift < 32 {
		s |= uint32(h>>32) << x.tagShift
	}
	return s
}

// place returns the place of the name in slot s, and whether it had
// escapes.
func (x *extraNames) place(s uint32) (off int, escaped bool) {
	return int(s&(1<<x.placeBits-1)) - 1, s&(1<<x.placeBits) != 0
}

// tagMask is the part of a slot that is the tag.
func (x *extraNames) tagMask() uint32 {
	if x.tagShift >= 32 {
		return 0
	}
	return ^uint32(0) << x.tagShift
}

// add records the name key, which began at off in b (with escapes if
// escaped), in the object whose members are at depth, and reports whether
// that object had it already.
func (x *extraNames) add(b []byte, depth, off int, escaped bool, key []byte) bool {
	x.close(depth + 1)
	if len(x.objects) == 0 || x.objects[len(x.objects)-1].depth < depth {
		var slots []uint32
		if n := len(x.spare); n > 0 {
			slots, x.spare = x.spare[n-1], x.spare[:n-1]
		}
		x.objects = append(x.objects, extraObject{depth: depth, slots: slots[:cap(slots)]})
	}
	o := &x.objects[len(x.objects)-1]
	if 8*(o.n+1) > 7*len(o.slots) {
		x.grow(o, b)
	}
	h := maphash.Bytes(seed, key)
	slot := x.slotOf(h, off, escaped)
	tags := x.tagMask()
	mask := len(o.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := o.slots[i]
		if s == 0 {
			o.slots[i] = slot
			o.n++
			return false
		}
		if s&tags == slot&tags && x.equal(b, s, key) {
			return true
		}
	}
}

// equal reports whether the name in slot s is key.
func (x *extraNames) equal(b []byte, s uint32, key []byte) bool {
	off, escaped := x.place(s)
	if escaped {
		return bytes.Equal(x.name(b, off, true), key)
	}
	// Without escapes the name is the bytes after the quote, up to the
	// next one: compared where they lie.
	end := off + 1 + len(key)
	return end < len(b) && b[end] == '"' && string(b[off+1:end]) == string(key)
}

// name returns the name that begins at off in b, unescaped if escaped;
// it is valid until the next call.
func (x *extraNames) name(b []byte, off int, escaped bool) []byte {
	if !escaped {
		n := bytes.IndexByte(b[off+1:], '"')
		return b[off+1 : off+1+n]
	}
	x.read.Reset(b)
	x.read.Pos = off
	x.read.WS()
	return x.read.Str()
}

// grow doubles o's table, or makes its first, and places its names again.
func (x *extraNames) grow(o *extraObject, b []byte) {
	old := o.slots
	size := max(16, 2*len(old))
	o.slots = make([]uint32, size)
	mask := size - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		off, escaped := x.place(s)
		i := int(maphash.Bytes(seed, x.name(b, off, escaped))) & mask
		for o.slots[i] != 0 {
			i = (i + 1) & mask
		}
		o.slots[i] = s
	}
}

// rawJudged is raw for a decoder in mode Judge: the value is checked and
// its text borrowed.
func (d *Decoder) rawJudged(base, name, sub string) json.RawMessage {
	d.WS()
	start := d.Pos
	if !d.skip(base, name, sub) {
		return nil
	}
	return d.borrowed(start)
}

// Within reports whether every string of id, the identity of a message
// decoded from data in mode Judge, is empty or lies within data: whether
// the identity may be kept as long as data is. A string that had escapes
// was unescaped into the decoder's scratch space, which the next string
// read overwrites, and a member left out has its default, which is not in
// data: the generated JudgeIdentity then decodes again, borrowing.
func Within(id msg.Identity, data []byte) bool {
	in := func(s string) bool {
		if len(s) == 0 {
			return true
		}
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		return start <= p && p+uintptr(len(s)) <= start+uintptr(len(data))
	}
	text := func(t msg.Text) bool {
		if _, ok := t.UUID(); ok {
			return true
		}
		return in(t.String())
	}
	return in(id.Type) && text(id.Tenant) && text(id.SourceType) && text(id.SourceID) && text(id.Key)
}
