package jsontext

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
)

// Finding repeated member names (decision 12) in objects of more than a
// few members. A fresh map per object cost a third of the time of a
// message with a large free-form object, and most of its memory; instead
// each level of nesting of large objects has an open-addressing table,
// reused from object to object and from message to message, whose slots
// point into the input (or, for a name with escapes, into an arena of
// unescaped names). A slot is empty unless it carries the table's current
// generation, so that starting an object clears nothing.
//
// Names are hashed with a seed drawn once per process, which an input
// cannot know. A probe sequence is nonetheless bounded: past maxProbe
// slots, the table grows if it is more than an eighth full (a long run by
// chance, in a crowded table), and otherwise the object's names are, from
// then on, kept in sorted runs (see sortedNames) searched by binary
// search, which costs O(log² n) comparisons a name whatever the hashes:
// an input crafted to collide is slowed, never made quadratic, and never
// judged wrongly, since every match, in either scheme, is a comparison of
// the bytes of the unescaped names.
//
// Past deferAfter names, a table would outgrow the caches and cost a
// miss a name, so an object's further names are only gathered, and
// checked together when it ends (see checkGathered), the first repeat in
// the input still being the one reported. A name gathered costs 8 bytes:
// its hash and the offset of its opening quote, from which it is read
// again, and unescaped again, in the rare case that its hash is met
// twice.

// smallNames is how many names an object may have before it takes a
// table: below it, a name is compared with each before it, lengths
// first, which costs less than a hash and a probe a name up to the 13
// to 22 members of the catalogue's messages (with 8, Check of the
// realistic device, whose 20 members took a table, cost 13% more
// instructions). It costs an object's first names more where many have
// the same length, as a large object's generated names do: meta1000's
// Check costs 4% more than with 8, still ahead of jx's skip.
const smallNames = 24

// deferAfter is how many names of an object are looked up as they are
// read; past it, they are gathered and checked when the object ends (see
// checkGathered), since a table larger than a cache costs a miss a name.
// Tests lower it.
var deferAfter = 1 << 12

// maxGathered bounds the size of an input whose names may be gathered:
// a gathered name's place is kept in 32 bits. The names of a larger
// input's objects all go to tables, which cost more memory (about 24
// bytes a name) and more time a name past a few thousand, never
// exactness.
const maxGathered = 1<<32 - 1

// minMember is the fewest bytes a member of an object takes, with its
// comma: `"":0,`.
const minMember = 5

// maxProbe bounds the slots an insertion looks at.
const maxProbe = 64

// maxPooledSlots and maxPooledNames bound the tables and lists of names a
// pool keeps between messages, so that one huge object does not keep
// them alive.
const (
	maxPooledSlots = 1 << 14 // more than deferAfter names need
	maxPooledNames = 1 << 16
)

// maxPooledLevels bounds the levels of nesting whose tables a pool keeps.
const maxPooledLevels = 16

// The seeds of hashName, drawn once per process.
var seed0, seed1 = rand.Uint64() | 1, rand.Uint64() | 1

// hashName hashes a member name, with the process's seeds: a few
// multiplications, the way wyhash mixes, over the name's first and last
// eight bytes and every eight between (member names are short, and
// maphash's call costs more than this whole function on them). Being
// fast, and keyed by seeds an input cannot know, it makes collisions
// unlikely, not impossible to craft: the bound on probes, not the hash,
// is what keeps crafted collisions from costing more than O(log² n) a
// name. Tests force collisions through testHash.
func hashName(b []byte) uint32 {
	if testHash != nil {
		return testHash(b)
	}
	n := len(b)
	var x, y uint64
	switch {
	case n > 16:
		x, y = le64(b), le64(b[n-8:])
		for i := 8; i < n-8; i += 8 {
			x = mix(x^seed1, le64(b[i:])^seed0)
		}
	case n >= 8:
		x, y = le64(b), le64(b[n-8:])
	case n >= 4:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0])<<16 | uint64(b[n/2])<<8 | uint64(b[n-1])
	}
	return uint32(mix(x^seed0^uint64(n), y^seed1))
}

// testHash, when set, replaces hashName's hash, for tests that force
// collisions: a test in a plain function where a variable holding the
// function cost an indirect call a name.
var testHash func([]byte) uint32

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// mix folds the 128-bit product of a and b to 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// A nameRef is where a name lies: Buf[off:off+n], or, for a negative
// off, arena[-1-off:][:n], the offset of its opening quote in the input
// being then the eight bytes before it in the arena.
type nameRef struct{ off, n int }

// A slot of a nameTable holds the index in entries of a name and a tag:
// the table's generation when the slot was filled, in the top 16 bits,
// and 16 bits of the name's hash. It is empty unless that generation is
// the table's: 8 bytes, so that eight fit a cache line.
type slot struct{ tag, idx uint32 }

// tagOf returns the tag of a slot filled at generation gen for hash h.
func tagOf(gen, h uint32) uint32 { return gen<<16 | h>>16 }

// A nameTable holds the names of the object being read at one level of
// nesting of large objects.
type nameTable struct {
	slots   []slot    // a power of two of them
	gen     uint32    // of the object being read, from 1 to 1<<16-1
	entries []nameRef // the names of the object, in order
	// sorted holds the names instead of the slots once the table has
	// fallen back.
	sorted   sortedNames
	fellBack bool

	// Past deferAfter names, every name of the object, those of
	// entries included, is gathered, not looked up, and checked when
	// the object ends (see checkGathered): the name's hash in the top
	// 32 bits, the offset of its opening quote in the bottom 32. They
	// are gathered in chunks, never copied: those filled in chunks, and
	// the one being filled in gathered.
	gathering bool
	gathered  []uint64
	chunks    [][]uint64
	spare     [][]uint64 // chunks of an object before, empty
	inChunks  int        // names in chunks
	// from is the offset of the opening quote of the object's first
	// name, once names are gathered.
	from int
	// Scratch for checkGathered: the counts and ends of the buckets of
	// each chunk, a bucket's table, a bucket's part of each chunk, a
	// run of equal hashes, and where each chunk's merge has reached.
	counts, ends []int
	slotsOf      []uint64
	parts        [][]uint64
	run          []uint64
	heads, heap  []int
}

// nameTables are the tables of a scan, one for each level of nesting of
// large objects open, and the arena of their unescaped names.
type nameTables struct {
	levels []*nameTable
	depth  int
	arena  []byte
	buf    []byte // the input
	// Scratch for checkGathered: names gathered, unescaped again.
	scratch [2][]byte
}

var tablesPool = sync.Pool{New: func() any { return new(nameTables) }}

// name returns the bytes of r.
func (ts *nameTables) name(r nameRef) []byte {
	if r.off < 0 {
		o := -1 - r.off
		return ts.arena[o : o+r.n]
	}
	return ts.buf[r.off : r.off+r.n]
}

// push returns the table for an object one level deeper, empty, and the
// mark to pass to pop when the object ends.
func (ts *nameTables) push() (*nameTable, int) {
	if ts.depth == len(ts.levels) {
		ts.levels = append(ts.levels, new(nameTable))
	}
	t := ts.levels[ts.depth]
	ts.depth++
	if t.slots == nil {
		t.slots = make([]slot, 64)
	}
	t.gen++
	if t.gen == 1<<16 { // wrapped: slots of an old generation may carry it
		clear(t.slots)
		t.gen = 1
	}
	t.entries = t.entries[:0]
	t.dropGathered()
	return t, len(ts.arena)
}

// pop ends the object of the innermost table.
func (ts *nameTables) pop(mark int) {
	ts.depth--
	t := ts.levels[ts.depth]
	if t.fellBack {
		t.sorted.reset()
		t.fellBack = false
	}
	ts.arena = ts.arena[:mark]
}

// dropGathered forgets the names gathered in t, keeping the first chunk
// to gather into again.
func (t *nameTable) dropGathered() {
	if len(t.chunks) > 0 {
		// The others are kept too, as long as all hold no more than a
		// pool keeps, for the chunks of the next objects.
		kept := cap(t.chunks[0])
		for _, c := range t.spare {
			kept += cap(c)
		}
		for _, c := range t.chunks[1:] {
			if kept += cap(c); kept > maxPooledNames {
				break
			}
			t.spare = append(t.spare, c[:0])
		}
		if len(t.gathered) > 0 && kept+cap(t.gathered) <= maxPooledNames {
			t.spare = append(t.spare, t.gathered[:0])
		}
		t.gathered = t.chunks[0]
	}
	clear(t.chunks)
	t.chunks, t.gathered, t.inChunks, t.gathering = t.chunks[:0], t.gathered[:0], 0, false
	t.ends = t.ends[:0]
}

// release returns ts to the pool, without the tables too large to keep.
func (ts *nameTables) release() {
	// Deeply nested large objects are rare: keep the tables of a few
	// levels only.
	ts.levels = ts.levels[:min(len(ts.levels), maxPooledLevels)]
	for i, t := range ts.levels {
		if len(t.slots) > maxPooledSlots || cap(t.entries) > maxPooledNames {
			ts.levels[i] = new(nameTable)
			continue
		}
		t.dropGathered()
		if cap(t.gathered) > maxPooledNames {
			t.gathered = nil
		}
		if cap(t.run) > maxPooledNames {
			t.run = nil
		}
		if cap(t.slotsOf) > maxPooledNames {
			t.slotsOf = nil
		}
		if cap(t.ends) > maxPooledNames {
			t.ends = nil
		}
		clear(t.parts[:cap(t.parts)]) // holds no chunk
	}
	if cap(ts.arena) > maxPooledNames*16 {
		ts.arena = nil
	}
	for i, b := range ts.scratch {
		if cap(b) > maxPooledNames {
			ts.scratch[i] = nil
		}
	}
	ts.buf = nil
	ts.depth = 0
	tablesPool.Put(ts)
}

// add adds the name key, found at r, or in the scratch buffer when
// escaped, to t and reports whether it was new.
func (ts *nameTables) add(t *nameTable, r nameRef, key []byte, escaped bool) bool {
	if !t.fellBack {
		h := hashName(key)
		// insert's first probe, written out: mostly the slot is empty.
		if sl := &t.slots[h&uint32(len(t.slots)-1)]; sl.tag>>16 != t.gen {
			*sl = slot{tag: tagOf(t.gen, h), idx: uint32(len(t.entries))}
			ts.store(t, r, key, escaped)
			if len(t.entries)*2 > len(t.slots) && !t.grow(ts, 2*len(t.slots)) {
				ts.fallBack(t)
			}
			return true
		}
		switch t.insert(ts, key, h, len(t.entries)) {
		case found:
			return false
		case added:
			ts.store(t, r, key, escaped)
			if len(t.entries)*2 > len(t.slots) && !t.grow(ts, 2*len(t.slots)) {
				ts.fallBack(t)
			}
			return true
		}
		// A long probe: by chance in a crowded table, or hashes that
		// collide, by design or by a craft that guessed the seed.
		if len(t.entries)*8 <= len(t.slots) || !t.grow(ts, 2*len(t.slots)) {
			ts.fallBack(t)
		}
		return ts.add(t, r, key, escaped)
	}
	if !t.sorted.add(ts, key) {
		return false
	}
	ts.store(t, r, key, escaped)
	t.sorted.insertLast(ts, t.entries[len(t.entries)-1])
	return true
}

// startGathering readies t to gather the names of its object from the
// one whose opening quote is at start on, not looking them up: they are
// checked when the object ends, by checkGathered, with those of t's
// entries, which it gathers first, into the buffer kept from an object
// before if there is room there.
func (ts *nameTables) startGathering(t *nameTable, start int) {
	t.gathering = true
	t.from = start
	if len(t.entries) > 0 {
		t.from = ts.quote(t.entries[0])
	}
	if cap(t.gathered) <= len(t.entries) || testChunk > 0 {
		// No larger than a pool keeps, so that the next message
		// gathers into it again.
		n := len(t.entries) + ts.estimate(len(t.entries), start-t.from, start)
		if testChunk > 0 {
			n = len(t.entries) + 1
		}
		t.gathered = make([]uint64, 0, min(n, max(chunkKeys, len(t.entries)+1)))
	}
	for _, r := range t.entries {
		t.gathered = append(t.gathered, uint64(hashName(ts.name(r)))<<32|uint64(ts.quote(r)))
	}
}

// moreRoom makes room in t, its chunk of names gathered being full, for
// those from start on: it partitions the chunk (see checkGathered), and
// starts another, of chunkKeys names or as many as the rest of the input
// can hold if fewer.
func (ts *nameTables) moreRoom(t *nameTable, start int) {
	ends := len(t.ends)
	t.ends = slices.Grow(t.ends, 1<<fillBits)[:ends+1<<fillBits]
	t.counts = slices.Grow(t.counts[:0], 1<<fillBits)
	partition(t.gathered, fillBits, t.counts[:1<<fillBits], t.ends[ends:])
	t.chunks = append(t.chunks, t.gathered)
	t.inChunks += len(t.gathered)
	n := min(chunkKeys, (len(ts.buf)-start)/minMember+1)
	if testChunk > 0 {
		n = min(n, testChunk)
	}
	if k := len(t.spare) - 1; k >= 0 && testChunk == 0 {
		t.gathered, t.spare = t.spare[k], t.spare[:k]
		return
	}
	t.gathered = make([]uint64, 0, n)
}

// chunkKeys is how many names a chunk of those gathered holds, but for
// the first, which may hold those of the table too: 128 KiB of them,
// which stay in the second-level cache until the chunk is full and
// partitioned, its names having been gathered from a few hundred KiB of
// input.
const chunkKeys = 1 << 14

// fillBits is how many bits of their hashes the names of a full chunk
// are partitioned by: 256 buckets, whose fronts, where partition writes,
// stay in the first-level cache.
const fillBits = 8

// testChunk, when set, makes every chunk of names gathered hold at most
// that many, besides the entries', so that tests merge many.
var testChunk int

// estimate returns how many more names to make room for, n names having
// taken span bytes of the input before start: as many as the rest of the
// input holds at that rate, or, if more, as many as n; but never more
// than the rest of the input can hold. It sizes the first chunk of names
// gathered, so that an object of a few thousand names is gathered in
// one, not in one of chunkKeys.
func (ts *nameTables) estimate(n, span, start int) int {
	rest := len(ts.buf) - start
	est := int(float64(rest)*float64(n)/float64(max(span, 1))) + 64
	return min(max(est, n), rest/minMember+1)
}

// quote returns the offset in the input of the opening quote of the
// name at r.
func (ts *nameTables) quote(r nameRef) int {
	if r.off < 0 {
		o := -1 - r.off
		return int(binary.LittleEndian.Uint64(ts.arena[o-8 : o]))
	}
	return r.off - 1
}

// gatheredName returns the name whose opening quote is at start in the
// input, unescaped, if it has escapes, into the i-th scratch buffer.
func (ts *nameTables) gatheredName(start int, i int) []byte {
	b := ts.buf[start+1:]
	end := bytes.IndexByte(b, '"')
	if bytes.IndexByte(b[:end], '\\') < 0 {
		return b[:end:end]
	}
	s := Scanner{Buf: ts.buf, Pos: start, tmp: ts.scratch[i][:0], unmarked: true}
	name := s.str(false)
	ts.scratch[i] = s.tmp
	return name
}

// checkGathered finds the first name of t's object, in the order of the
// input, that repeats one before it, among names of which those of t's
// entries are known to be distinct, and returns the offset of its
// opening quote, or -1 if there is none.
//
// A table of millions of slots costs a cache miss a name, which made a
// message of megabytes scan at a tenth of the speed of one of kilobytes.
// Instead the names gathered are partitioned, in place, into buckets by
// the top bits of their hashes (see partition): each chunk of chunkKeys
// names as it fills, while it is still in the second-level cache, into
// 256 buckets, and the last chunk when the object ends, into as many (or,
// if it is the only one, into so many that a bucket holds about a
// hundred names). Each bucket's names, its part of every chunk, then go
// through a table of their own, small enough to stay in cache, where
// only names of equal hashes are compared. Sorting the names instead, as
// this did before, cost a quarter of the time of a scan of a message of
// megabytes; partitioning them all at the end, rather than chunk by
// chunk, cost a cache miss a name past a few hundred thousand.
//
// A bucket's names are not in the order of the input once partitioned,
// yet the first repeat is found all the same: a name met again is a
// repeat, of place the greater of the two, and the table keeps, of each
// name, the least place met, so that the second least place of a name,
// its first repeat, is the greater of a pair that meets (whichever of
// the two comes first, the table holds the least then). A name whose
// place is past a repeat found already cannot come first, and is passed
// over.
//
// A table's probes are bounded, as insert's are, and so is its size: a
// bucket whose hashes collide, by chance or by a craft that guessed the
// seed, falls back to sorting its names by hash and then comparing those
// of equal hashes, those of a long run by sorting it by name, so that
// even an input crafted to collide costs O(n log n) comparisons.
func (ts *nameTables) checkGathered(t *nameTable) (start int, name []byte) {
	chunks := append(t.chunks, t.gathered)
	n := t.inChunks + len(t.gathered)
	b := fillBits // that of the full chunks, if any
	if len(t.chunks) == 0 {
		b = min(bucketBits(n), fillBits)
	}
	nb := 1 << b
	ends := len(t.ends)
	t.ends = slices.Grow(t.ends, nb)[:ends+nb]
	t.counts = slices.Grow(t.counts[:0], nb)
	partition(t.gathered, b, t.counts[:nb], t.ends[ends:])
	// A bucket of more than eight times the names of a bucket on
	// average, whose hashes collide, is sorted instead.
	maxSlots := 16 * max(n>>b, 8)
	first := -1
	for j := range nb {
		first = ts.checkBucket(t, chunks, j, nb, maxSlots, first)
	}
	if first < 0 {
		return -1, nil
	}
	return first, ts.gatheredName(first, 0)
}

// bucketBits returns how many of the top bits of the hashes of n names
// gathered in one chunk pick their bucket: so many that a bucket holds
// between 64 and 128 names on average (a table of 2 KiB or less).
func bucketBits(n int) int {
	return bits.Len(uint(n >> 7))
}

// partition puts keys in order of the top b bits of their hashes, in
// place, as an American flag sort's pass does (each key is carried to
// its bucket, and the one it displaces to its own, until one belongs
// where it was taken from), and sets ends[d] to the end of bucket d;
// counts is scratch space, of as many ints as buckets.
func partition(keys []uint64, b int, counts, ends []int) {
	if b == 0 {
		ends[0] = len(keys)
		return
	}
	shift := uint(64-b) & 63
	counts = counts[:1<<b]
	clear(counts)
	for _, k := range keys {
		counts[k>>shift]++
	}
	sum := 0
	for d, c := range counts {
		counts[d] = sum // now where the next key of bucket d goes
		sum += c
		ends[d] = sum
	}
	for d, end := range ends[:1<<b] {
		for counts[d] < end {
			k := keys[counts[d]]
			for e := int(k >> shift); e != d; e = int(k >> shift) {
				keys[counts[e]], k = k, keys[counts[e]]
				counts[e]++
			}
			keys[counts[d]] = k
			counts[d]++
		}
	}
}

// checkBucket is checkGathered for the j-th of nb buckets of chunks,
// with a table of at most maxSlots slots: it returns the least of first
// (-1 for none yet) and the place of the first repeat among the
// bucket's names.
func (ts *nameTables) checkBucket(t *nameTable, chunks [][]uint64, j, nb, maxSlots, first int) int {
	m := 0
	for c := range chunks {
		lo, hi := bucketOf(t.ends[c*nb:][:nb], j)
		m += hi - lo
	}
	switch {
	case m < 2:
		return first
	case 2*m > maxSlots:
		// Far more names than a bucket holds on average: hashes that
		// collide, or a name repeated throughout.
		return ts.sortBucket(t, chunks, j, nb, first)
	}
	// Twice as many slots as names, so that few probes go past the first.
	size := max(1<<bits.Len(uint(2*m-1)), 16)
	t.slotsOf = slices.Grow(t.slotsOf[:0], size)[:size]
	tab := t.slotsOf
	clear(tab)
	mask := uint32(size - 1)
	// Only a name placed before limit can be a repeat found first.
	limit := uint32(first)
	if first < 0 {
		limit = math.MaxUint32
	}
	for c, keys := range chunks {
		lo, hi := bucketOf(t.ends[c*nb:][:nb], j)
		for _, k := range keys[lo:hi] {
			// A key is never 0: a name's place is past its object's
			// opening brace.
			if i := uint32(k>>32) & mask; tab[i] == 0 && uint32(k) < limit {
				tab[i] = k
				continue
			}
			if !ts.probe(tab, k, &limit) {
				return ts.sortBucket(t, chunks, j, nb, first)
			}
		}
	}
	if limit == math.MaxUint32 {
		return first
	}
	return int(limit)
}

// probe is checkBucket's look-up of k in tab past an empty first slot:
// it adds k if its name is not there, and lowers *limit to the place of
// the repeat if it is and that is lower. It reports false, leaving the
// bucket to be sorted, if neither an empty slot nor the name is found
// within maxProbe slots.
func (ts *nameTables) probe(tab []uint64, k uint64, limit *uint32) bool {
	if uint32(k) >= *limit {
		return true
	}
	mask := uint32(len(tab) - 1)
	i := uint32(k>>32) & mask
	for range maxProbe {
		e := tab[i]
		switch {
		case e == 0:
			tab[i] = k
			return true
		case (e^k)>>32 == 0 && ts.sameGathered(e, k):
			*limit = min(*limit, max(uint32(e), uint32(k)))
			tab[i] = min(e, k) // the least place, under equal hashes
			return true
		}
		i = (i + 1) & mask
	}
	return false
}

// testSorting, when set, is called by sortBucket, for tests that make
// buckets fall back to it.
var testSorting func()

// bucketOf returns the bounds of bucket j in a chunk partitioned with
// ends.
func bucketOf(ends []int, j int) (lo, hi int) {
	if j > 0 {
		lo = ends[j-1]
	}
	return lo, ends[j]
}

// sameGathered reports whether the gathered names of keys a and b are
// the same.
func (ts *nameTables) sameGathered(a, b uint64) bool {
	return string(ts.gatheredName(int(uint32(a)), 0)) == string(ts.gatheredName(int(uint32(b)), 1))
}

// sortBucket is checkBucket by sorting the bucket's names, in each chunk,
// by hash and by place among equal hashes, and comparing only those of
// equal hashes, of a chunk or, merged, of all.
func (ts *nameTables) sortBucket(t *nameTable, chunks [][]uint64, j, nb, first int) int {
	if testSorting != nil {
		testSorting()
	}
	visit := func(run []uint64) {
		if len(run) > 1 {
			if i := ts.firstRepeat(run); i >= 0 && (first < 0 || i < first) {
				first = i
			}
		}
	}
	parts := t.parts[:0]
	for c, keys := range chunks {
		lo, hi := bucketOf(t.ends[c*nb:][:nb], j)
		slices.Sort(keys[lo:hi])
		parts = append(parts, keys[lo:hi])
	}
	t.parts = parts
	if len(parts) > 1 {
		ts.mergeRuns(t, parts, visit)
		return first
	}
	keys := parts[0]
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>32 == keys[lo]>>32 {
			hi++
		}
		visit(keys[lo:hi])
		lo = hi
	}
	return first
}

// mergeRuns merges chunks, each sorted, and calls visit with each run of
// keys of equal hashes, in order.
func (ts *nameTables) mergeRuns(t *nameTable, chunks [][]uint64, visit func([]uint64)) {
	heads := append(t.heads[:0], make([]int, len(chunks))...)
	// heap holds the chunks not yet merged whole, the one whose head is
	// least first: a bucket sorted may have a part in each of hundreds
	// of chunks.
	heap := t.heap[:0]
	for i, c := range chunks {
		if len(c) > 0 {
			heap = append(heap, i)
		}
	}
	less := func(i, j int) bool { return chunks[heap[i]][heads[heap[i]]] < chunks[heap[j]][heads[heap[j]]] }
	down := func(i int) {
		for {
			m := i
			for _, c := range []int{2*i + 1, 2*i + 2} {
				if c < len(heap) && less(c, m) {
					m = c
				}
			}
			if m == i {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	run := t.run[:0]
	// settled is set when the first shortRun keys of run hold a repeat,
	// which is then the run's first: the rest of it is passed over,
	// not gathered, so that a name repeated throughout an object costs
	// no scratch space.
	settled := false
	for len(heap) > 0 {
		c := heap[0]
		k := chunks[c][heads[c]]
		if heads[c]++; heads[c] == len(chunks[c]) {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
		switch {
		case len(run) > 0 && k>>32 != run[0]>>32:
			if !settled {
				visit(run)
			}
			run, settled = append(run[:0], k), false
		case len(run) == shortRun && !settled:
			if ts.firstRepeatIn(run) >= 0 {
				visit(run)
				settled = true
			} else {
				run = append(run, k)
			}
		case !settled:
			run = append(run, k)
		}
	}
	if !settled {
		visit(run)
	}
	t.run, t.heads, t.heap = run[:0], heads, heap
}

// firstRepeat returns the least offset of the opening quote of a name of
// run (gathered names of equal hash, in the order of the input) that
// repeats one before it, or -1.
func (ts *nameTables) firstRepeat(run []uint64) int {
	// Mostly a run is of one name repeated, whose second is the answer,
	// or of a few names whose hashes collide by chance.
	if i := ts.firstRepeatIn(run[:min(len(run), shortRun)]); i >= 0 || len(run) <= shortRun {
		return i
	}
	slices.SortFunc(run, func(a, b uint64) int {
		return cmp.Or(bytes.Compare(ts.gatheredName(int(uint32(a)), 0), ts.gatheredName(int(uint32(b)), 1)),
			cmp.Compare(uint32(a), uint32(b)))
	})
	first := -1
	for j := 1; j < len(run); j++ {
		if i := int(uint32(run[j])); string(ts.gatheredName(int(uint32(run[j-1])), 0)) == string(ts.gatheredName(i, 1)) && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// shortRun is the length of a run of equal hashes whose names are
// compared each with those before it: past it, unless a name of its
// first shortRun repeats, names are compared by sorting them.
const shortRun = 16

// firstRepeatIn is firstRepeat by comparing each name with those
// before it.
func (ts *nameTables) firstRepeatIn(run []uint64) int {
	for j := 1; j < len(run); j++ {
		name := ts.gatheredName(int(uint32(run[j])), 1)
		for _, k := range run[:j] {
			if string(ts.gatheredName(int(uint32(k)), 0)) == string(name) {
				return int(uint32(run[j]))
			}
		}
	}
	return -1
}

// store appends the name at r, or, if escaped, key copied to the arena
// after the offset of its opening quote, r.off, to the entries of t.
func (ts *nameTables) store(t *nameTable, r nameRef, key []byte, escaped bool) {
	if escaped {
		ts.arena = binary.LittleEndian.AppendUint64(ts.arena, uint64(r.off))
		r = nameRef{off: -1 - len(ts.arena), n: len(key)}
		ts.arena = append(ts.arena, key...)
	}
	t.entries = append(t.entries, r)
}

// What insert found.
const (
	added   = iota // an empty slot, now claimed
	found          // the same name
	tooLong        // nothing within maxProbe slots
)

// insert looks key, of hash h, up in t, and claims an empty slot for it,
// as the idx-th entry, if it is not there.
func (t *nameTable) insert(ts *nameTables, key []byte, h uint32, idx int) int {
	mask := uint32(len(t.slots) - 1)
	i := h & mask
	tag := tagOf(t.gen, h)
	for range maxProbe {
		sl := &t.slots[i]
		if sl.tag>>16 != t.gen {
			*sl = slot{tag: tag, idx: uint32(idx)}
			return added
		}
		if sl.tag == tag && string(ts.name(t.entries[sl.idx])) == string(key) {
			return found
		}
		i = (i + 1) & mask
	}
	return tooLong
}

// grow gives t n slots and inserts its entries again. It reports false,
// leaving t to fall back, if one of them cannot be inserted within
// maxProbe slots, or the entries would not fit the slots' indexes.
func (t *nameTable) grow(ts *nameTables, n int) bool {
	if uint64(len(t.entries)) >= 1<<32-1 {
		return false
	}
	t.slots = make([]slot, n)
	t.gen = 1
	for i, r := range t.entries {
		if t.insert(ts, ts.name(r), hashName(ts.name(r)), i) != added {
			return false
		}
	}
	return true
}

// fallBack moves the names of t to sorted runs.
func (ts *nameTables) fallBack(t *nameTable) {
	t.fellBack = true
	t.sorted.reset()
	for _, r := range t.entries {
		t.sorted.insertLast(ts, r)
	}
	// The table's slots are no longer consulted; the next object starts
	// it afresh, at a new generation.
}

// sortedNames holds names in runs, each sorted, of decreasing powers of
// two in size, as a binary counter holds its bits: a name is looked for
// by binary search in each run, and added as a run of one, two runs of
// one size merging into one of twice the size. Each name is merged
// O(log n) times, and each look-up costs O(log² n) comparisons.
type sortedNames struct {
	refs    []nameRef
	sizes   []int
	scratch []nameRef
}

func (s *sortedNames) reset() {
	s.refs, s.sizes, s.scratch = s.refs[:0], s.sizes[:0], s.scratch[:0]
}

// add reports whether key is not among the names held.
func (s *sortedNames) add(ts *nameTables, key []byte) bool {
	off := 0
	for _, n := range s.sizes {
		run := s.refs[off : off+n]
		if _, ok := slices.BinarySearchFunc(run, key, func(r nameRef, k []byte) int {
			return bytes.Compare(ts.name(r), k)
		}); ok {
			return false
		}
		off += n
	}
	return true
}

// insertLast adds r, which is not held, as a run of one, and merges the
// runs that are then of equal size.
func (s *sortedNames) insertLast(ts *nameTables, r nameRef) {
	s.refs = append(s.refs, r)
	s.sizes = append(s.sizes, 1)
	for k := len(s.sizes); k >= 2 && s.sizes[k-2] <= s.sizes[k-1]; k = len(s.sizes) {
		a, b := s.sizes[k-2], s.sizes[k-1]
		start := len(s.refs) - a - b
		left, right := s.refs[start:start+a], s.refs[start+a:]
		merged := s.scratch[:0]
		for len(left) > 0 && len(right) > 0 {
			if bytes.Compare(ts.name(left[0]), ts.name(right[0])) <= 0 {
				merged, left = append(merged, left[0]), left[1:]
			} else {
				merged, right = append(merged, right[0]), right[1:]
			}
		}
		merged = append(append(merged, left...), right...)
		copy(s.refs[start:], merged)
		s.scratch = merged
		s.sizes = append(s.sizes[:k-2], a+b)
	}
}
