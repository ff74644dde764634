package jsontext

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// oldKeySet is the detector of repeated names the scanner used before
// its tables: a linear search through the first 16 names, then a map
// per object. It is kept here as the reference the tables are held to.
type oldKeySet struct {
	n     int
	small [16][]byte
	big   map[string]struct{}
}

func (s *oldKeySet) add(key []byte, scratch bool) bool {
	if scratch {
		key = append([]byte(nil), key...)
	}
	if s.big != nil {
		n := len(s.big)
		s.big[unsafe.String(unsafe.SliceData(key), len(key))] = struct{}{}
		return len(s.big) > n
	}
	for _, k := range s.small[:s.n] {
		if string(k) == string(key) {
			return false
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = key
		s.n++
		return true
	}
	s.big = make(map[string]struct{})
	for _, k := range s.small[:s.n] {
		s.big[string(k)] = struct{}{}
	}
	s.big[string(key)] = struct{}{}
	return true
}

// refSkip is Skip with the old detector: objects and arrays walked here,
// everything else left to Skip.
func refSkip(s *Scanner) {
	if s.Fatal {
		return
	}
	switch s.WS() {
	case '{':
		if !s.Enter() {
			return
		}
		var names oldKeySet
		for i := 0; s.Next('}', i); i++ {
			keyStart := s.Pos
			key := s.name(true)
			if s.Fatal {
				return
			}
			if !names.add(key, s.Escaped) {
				s.failFor(CauseDuplicate, keyStart, "duplicate member name "+quoteShort(key))
				return
			}
			refSkip(s)
		}
	case '[':
		if !s.Enter() {
			return
		}
		for i := 0; s.Next(']', i); i++ {
			refSkip(s)
		}
	default:
		s.Skip()
	}
}

type verdict struct {
	fatal  bool
	off    int
	reason string
	cause  Cause
}

func scanWith(b []byte, skip func(*Scanner)) verdict {
	var s Scanner
	s.Reset(b)
	skip(&s)
	s.End()
	return verdict{s.Fatal, s.Off, s.Reason, s.Cause}
}

// hashes are the hash functions the tables are tested under: the real
// one (nil, which withHash leaves in place), and ones that collide more and more, down to all names alike,
// which forces every table past maxProbe into sorted runs.
var hashes = []struct {
	name string
	hash func([]byte) uint32
}{
	{"seeded", nil},
	{"first byte", func(b []byte) uint32 {
		if len(b) == 0 {
			return 0
		}
		return uint32(b[0])
	}},
	{"length", func(b []byte) uint32 { return uint32(len(b)) }},
	{"constant", func([]byte) uint32 { return 7 }},
}

// withHash runs f with hashName replaced by h, or with its own hash
// if h is nil.
func withHash(h func([]byte) uint32, f func()) {
	saved := testHash
	testHash = h
	defer func() { testHash = saved }()
	f()
}

// A deferral is a value of deferAfter, and of testChunk, that the tests
// run under.
type deferral struct{ after, chunk int }

func (d deferral) String() string {
	return fmt.Sprintf("%v, chunks of %d", d.after, d.chunk)
}

// defers are the deferrals the tests run under: deferAfter's own; one
// that gathers the names of every object past its first few, so that
// checkGathered meets every kind of object; and the same with chunks of
// three names, so that checkGathered merges many.
var defers = []deferral{{deferAfter, 0}, {9, 0}, {9, 3}}

// withDefer runs f under the deferral d.
func withDefer(d deferral, f func()) {
	savedAfter, savedChunk := deferAfter, testChunk
	deferAfter, testChunk = d.after, d.chunk
	defer func() { deferAfter, testChunk = savedAfter, savedChunk }()
	f()
}

// spellings writes the name s in JSON in several ways, all the same name
// once unescaped.
func spelling(r *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case r.IntN(8) == 0 && c < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, c)
		case r.IntN(16) == 0 && c == '/':
			b.WriteString(`\/`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// randomName draws from a small alphabet, so that names repeat by
// chance, with quotes, slashes and letters outside ASCII among it.
func randomName(r *rand.Rand) string {
	const alphabet = "ab/\"é😀"
	runes := []rune(alphabet)
	n := r.IntN(4)
	var b strings.Builder
	for range n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	if r.IntN(2) == 0 {
		b.WriteString(strconv.Itoa(r.IntN(400)))
	}
	return b.String()
}

// randomValue writes a JSON value, objects of up to hundreds of members
// among them, nested to depth levels.
func randomValue(r *rand.Rand, b *strings.Builder, depth int, dupRate int) {
	switch k := r.IntN(8); {
	case depth > 0 && k < 3:
		n, inner := r.IntN(4), depth-1
		if r.IntN(3) == 0 {
			n, inner = r.IntN(300), depth-3 // large, and shallow within
		}
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			name := randomName(r)
			for seen[name] && r.IntN(dupRate) != 0 {
				name = randomName(r) + strconv.Itoa(i)
			}
			seen[name] = true
			b.WriteString(spelling(r, name))
			b.WriteByte(':')
			randomValue(r, b, inner, dupRate)
		}
		b.WriteByte('}')
	case depth > 0 && k < 4:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomValue(r, b, depth-1, dupRate)
		}
		b.WriteByte(']')
	case k < 6:
		b.WriteString(strconv.Itoa(r.IntN(1000)))
	default:
		b.WriteString(spelling(r, randomName(r)))
	}
}

// TestTablesAgreeWithOldDetector holds the scanner to the detector it
// replaced on random objects, with and without repeated names, written
// with and without escapes, under hashes that collide more and more.
func TestTablesAgreeWithOldDetector(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var docs []string
	dups := 0
	for i := range 600 {
		var b strings.Builder
		randomValue(r, &b, 4, []int{2, 50, 1 << 30}[i%3])
		docs = append(docs, b.String())
	}
	for _, h := range hashes {
		for _, n := range defers {
			withDefer(n, func() {
				withHash(h.hash, func() {
					for _, doc := range docs {
						want := scanWith([]byte(doc), refSkip)
						got := scanWith([]byte(doc), (*Scanner).Skip)
						if got != want {
							t.Fatalf("hash %s, %v: %.200q:\ngot  %+v\nwant %+v", h.name, n, doc, got, want)
						}
						if want.cause == CauseDuplicate {
							dups++
						}
					}
				})
			})
		}
	}
	// Both kinds of input must have been met for the test to mean
	// anything.
	if total := len(docs) * len(hashes) * len(defers); dups == 0 || dups == total {
		t.Fatalf("%d of %d inputs repeat a name", dups, total)
	}
}

// TestRepeatsFoundAfterUnescaping pins the cases the random test meets
// only by chance: the same name written with and without escapes, at the
// start of an object, past its first names, and deep in it.
func TestRepeatsFoundAfterUnescaping(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		return b.String()
	}
	for _, h := range hashes {
		for _, tc := range []struct {
			doc  string
			want string // the reason, or "" for none
		}{
			{`{"a":1,"\u0061":2}`, `duplicate member name "a"`},
			{`{"\u0061":1,"a":2}`, `duplicate member name "a"`},
			{`{"a":1,"\u0062":2}`, ``},
			{`{` + many(100) + `"a":1,"\u0061":2}`, `duplicate member name "a"`},
			{`{` + many(100) + `"\/":1,"/":2}`, `duplicate member name "/"`},
			{`{"\/":1,` + many(100) + `"/":2}`, `duplicate member name "/"`},
			{`{` + many(100) + `"k99":1}`, `duplicate member name "k99"`},
			{`{` + many(100) + `"x":{` + many(100) + `"k0":{}}}`, `duplicate member name "k0"`},
			{`{` + many(100) + `"x":{` + many(100) + `"y":1},"k0":1}`, `duplicate member name "k0"`},
			{`{` + many(100) + `"x":{` + many(100) + `"k100":1},"k100":1}`, ``},
			{`[{` + many(20) + `"x":1},{` + many(20) + `"x":1}]`, ``},
			// What comes first in the input is reported first, though
			// names past deferAfter are checked at the object's end.
			{`{` + many(100) + `"k1":1,"x":[1,]}`, `duplicate member name "k1"`},
			{`{` + many(100) + `"x":[1,],"k1":1}`, `trailing comma before ']'`},
			{`{` + many(100) + `"k1":1,"x":"\ud800"}`, `duplicate member name "k1"`},
			{`{` + many(100) + `"k3":0,"x":{` + many(100) + `"q":[1,]}}`, `duplicate member name "k3"`},
			{`{` + many(100) + `"x":{` + many(100) + `"k1":{"a":1,"a":2}}}`, `duplicate member name "k1"`},
			{`{` + many(100) + `"x":{` + many(20) + `"y":{"a":1,"a":2},"k1":1},"k2":1}`, `duplicate member name "a"`},
			{`{` + many(100) + `"x":{` + many(100) + `"k1":1},"k2":1`, `duplicate member name "k1"`},
			{`{` + many(100) + `"x":1`, `want ',' or '}', got end of input`},
		} {
			for _, n := range defers {
				withDefer(n, func() {
					withHash(h.hash, func() {
						want := scanWith([]byte(tc.doc), refSkip)
						got := scanWith([]byte(tc.doc), (*Scanner).Skip)
						if got != want || got.reason != tc.want {
							t.Errorf("hash %s, %v: %.80q: got %+v, want %+v (reason %q)", h.name, n, tc.doc, got, want, tc.want)
						}
					})
				})
			}
		}
	}
}

// TestCollidingHashesFallBackToSortedRuns pins what happens past
// maxProbe: with every name hashing alike, the table gives up its slots
// for sorted runs, still finds every repeat, and finds none where there
// is none.
func TestCollidingHashesFallBackToSortedRuns(t *testing.T) {
	withHash(func([]byte) uint32 { return 0 }, func() {
		var buf bytes.Buffer
		const n = 5000
		for i := range n {
			fmt.Fprintf(&buf, "n%d", i)
		}
		ts := &nameTables{buf: buf.Bytes()}
		tab, mark := ts.push()
		off := 0
		for i := range n {
			l := len("n" + strconv.Itoa(i))
			key := buf.Bytes()[off : off+l]
			if !ts.add(tab, nameRef{off: off, n: l}, key, false) {
				t.Fatalf("name %d (%s) reported as repeated", i, key)
			}
			off += l
		}
		if !tab.fellBack {
			t.Fatalf("%d colliding names did not fall back to sorted runs", n)
		}
		for _, i := range []int{0, 1, 2499, 4999} {
			key := []byte("n" + strconv.Itoa(i))
			if ts.add(tab, nameRef{off: -1, n: len(key)}, key, true) {
				t.Errorf("repeat of %s not found in sorted runs", key)
			}
		}
		if !ts.add(tab, nameRef{}, []byte("n5000"), true) {
			t.Errorf("new name n5000 reported as repeated")
		}
		ts.pop(mark)
	})
}

// TestLargeObjectsAllocateNothing shows that finding repeats costs no
// map per object, nor anything else per object, once the pool holds
// tables: a thousand objects with a name that has escapes cost at most
// the scratch buffer that a call of Check unescapes strings into, and
// without escapes nothing at all.
func TestLargeObjectsAllocateNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		want float64
	}{{"h", 0}, {`h`, 1}} {
		var b strings.Builder
		b.WriteByte('{')
		for i := range 1000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"attr_%04d":{"unit":"km","value":%d,"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"%s":8}`, i, i, tc.name)
		}
		b.WriteByte('}')
		doc := []byte(b.String())
		if off, reason := Check(doc); reason != "" {
			t.Fatalf("Check: %s at %d", reason, off)
		}
		want := tc.want
		if raceEnabled {
			// The pool drops tables at random: a call may make its
			// tables afresh, a few allocations, never one an object.
			want += 200
		}
		if n := testing.AllocsPerRun(50, func() { Check(doc) }); n > want {
			t.Errorf("Check of 1000 objects with a member named %s: %v allocations a call, want at most %v", tc.name, n, want)
		}
	}
}

// TestNoEstimateMisfire pins the case issue 20 measured: Check of a
// message of 22 members, a large meta among them, built a second large
// map for the message's own members, sized by an estimate from the bytes
// its first 16 took and the many left (82 KB a call). Nothing is sized by
// an estimate now, and nothing is allocated.
func TestNoEstimateMisfire(t *testing.T) {
	var b strings.Builder
	b.WriteByte('{')
	for i := range 17 {
		fmt.Fprintf(&b, `"member_%d":"value %d",`, i, i)
	}
	b.WriteString(`"meta":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"attr_%04d":%d`, i, i)
	}
	b.WriteString(`},"x1":1,"x2":2,"x3":3,"x4":4}`)
	doc := []byte(b.String())
	if off, reason := Check(doc); reason != "" {
		t.Fatalf("Check: %s at %d", reason, off)
	}
	want := 0.0
	if raceEnabled {
		want = 200 // see TestLargeObjectsAllocateNothing
	}
	if n := testing.AllocsPerRun(50, func() { Check(doc) }); n > want {
		t.Errorf("Check of a 22-member object holding a large one: %v allocations a call, want %v", n, want)
	}
}

// FuzzDuplicates holds the scanner to the old detector on any input, and
// on a large object whose names the input picks, under the seeded hash
// and under one that makes every name collide, with names looked up as
// they are read and gathered to be checked at the object's end.
func FuzzDuplicates(f *testing.F) {
	f.Add([]byte(`{"a":1,"\u0061":2}`))
	f.Add([]byte(`{"a":{"b":[{"c":1,"c":2}]}}`))
	f.Add([]byte("0123456789abcdefghij\x80\x81\x82\x83\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The names of the object: each byte picks one, with escapes
		// when its high bit is set.
		var b strings.Builder
		b.WriteByte('{')
		for i, c := range data {
			if i > 0 {
				b.WriteByte(',')
			}
			name := string(rune('a'+c%32)) + strconv.Itoa(int(c%64)/32)
			if c&0x80 != 0 {
				name = fmt.Sprintf(`\u%04x`, 'a'+c%32) + strconv.Itoa(int(c%64)/32)
			}
			fmt.Fprintf(&b, `"%s":%d`, name, i)
		}
		b.WriteByte('}')
		for _, doc := range [][]byte{data, []byte(b.String())} {
			for _, h := range []func([]byte) uint32{nil, func([]byte) uint32 { return 0 }} {
				for _, n := range defers {
					withDefer(n, func() {
						withHash(h, func() {
							want := scanWith(doc, refSkip)
							if got := scanWith(doc, (*Scanner).Skip); got != want {
								t.Fatalf("%v: %q: got %+v, want %+v", n, doc, got, want)
							}
						})
					})
				}
			}
		}
	})
}

// TestPartition holds partition to its specification on keys of every
// size checkGathered partitions, into every number of buckets it uses:
// the same keys, each in the bucket of its hash's top bits, and the
// buckets' ends where they are.
func TestPartition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n      int
		hashes uint32 // how many hashes are drawn from, or 0 for any
	}{{0, 0}, {1, 0}, {31, 0}, {1000, 0}, {100000, 0}, {1000, 3}, {100000, 5}, {1<<17 + 1, 0}} {
		keys := make([]uint64, tc.n)
		for i := range keys {
			h := r.Uint32()
			if tc.hashes > 0 {
				h = r.Uint32N(tc.hashes) * 0x9e3779b1
			}
			keys[i] = uint64(h)<<32 | uint64(r.Uint32())
		}
		for _, b := range []int{0, 1, 8, 9, bucketBits(tc.n), 12} {
			got := slices.Clone(keys)
			counts, ends := make([]int, 1<<b), make([]int, 1<<b)
			partition(got, b, counts, ends)
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(keys))) {
				t.Fatalf("%d keys of %d hashes, %d bits: not the same keys", tc.n, tc.hashes, b)
			}
			for d := range ends {
				lo, hi := bucketOf(ends, d)
				for _, k := range got[lo:hi] {
					if b > 0 && int(k>>(64-b)) != d {
						t.Fatalf("%d keys of %d hashes, %d bits: key %x in bucket %d", tc.n, tc.hashes, b, k, d)
					}
				}
			}
			if ends[len(ends)-1] != tc.n {
				t.Fatalf("%d keys of %d hashes, %d bits: the last bucket ends at %d", tc.n, tc.hashes, b, ends[len(ends)-1])
			}
		}
	}
}

// TestBucketsFallBackToSorting pins what checkGathered does with a
// bucket its table cannot hold: one of hashes whose top bits are alike,
// which puts every name in one bucket, too many for its table, and one
// of hashes all alike, whose probes pass maxProbe. Either falls back to
// sorting the bucket, and still finds the first repeat, in one chunk or
// many, or none where there is none.
func TestBucketsFallBackToSorting(t *testing.T) {
	fell := 0
	testSorting = func() { fell++ }
	defer func() { testSorting = nil }()
	for _, h := range []struct {
		name string
		hash func([]byte) uint32
	}{
		{"top bits alike", func(b []byte) uint32 { return crc32.ChecksumIEEE(b) >> 16 }},
		{"all alike", func([]byte) uint32 { return 7 }},
	} {
		for _, repeat := range []int{-1, 3000, 2} {
			var b strings.Builder
			b.WriteByte('{')
			for i := range 4000 {
				if i > 0 {
					b.WriteByte(',')
				}
				name := "k" + strconv.Itoa(i)
				if i == 3500 && repeat >= 0 {
					name = "k" + strconv.Itoa(repeat)
				}
				if i == 3900 && repeat >= 0 {
					name = "k1" // a later repeat, found first when unsorted
				}
				fmt.Fprintf(&b, "%q:%d", name, i)
			}
			b.WriteByte('}')
			doc := []byte(b.String())
			for _, d := range []deferral{{9, 0}, {9, 700}} {
				withDefer(d, func() {
					withHash(h.hash, func() {
						before := fell
						want := scanWith(doc, refSkip)
						if got := scanWith(doc, (*Scanner).Skip); got != want {
							t.Errorf("%s, repeat of k%d, %v: got %+v, want %+v", h.name, repeat, d, got, want)
						}
						if fell == before {
							t.Errorf("%s, repeat of k%d, %v: no bucket fell back to sorting", h.name, repeat, d)
						}
					})
				})
			}
		}
	}
}

// TestLargeObjectsAgreeWithOldDetector holds the scanner to the detector
// it replaced on objects large enough that checkGathered partitions
// their names into many buckets, with repeats, escaped or not, at random
// places, gathered in one chunk or in many.
func TestLargeObjectsAgreeWithOldDetector(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 24 {
		n := 1000 + r.IntN(30000)
		names := make([]string, n)
		for i := range names {
			names[i] = "k" + strconv.Itoa(i)
		}
		for range trial % 4 { // none, one, two or three repeats
			i := r.IntN(n)
			names[i] = names[r.IntN(n)]
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, name := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(spelling(r, name))
			fmt.Fprintf(&b, ":%d", i)
		}
		b.WriteByte('}')
		doc := []byte(b.String())
		for _, d := range []deferral{{deferAfter, 0}, {9, 0}, {9, 1000}} {
			withDefer(d, func() {
				want := scanWith(doc, refSkip)
				if got := scanWith(doc, (*Scanner).Skip); got != want {
					t.Errorf("%d names, %v: got %+v, want %+v", n, d, got, want)
				}
			})
		}
	}
}
