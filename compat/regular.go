package compat

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/internal/pattern"
)

// Two patterns are compared as automata. A pattern, read as ECMA-262
// (internal/pattern, as the generated decoders read it), is compiled by
// regexp/syntax into a program, which is a nondeterministic automaton
// over code points; JSON Schema matches it anywhere in the string, so the
// automaton starts again at every position. With the bounds on the length
// in code points (a counter, capped one past the largest bound), the
// strings one node accepts and another rejects form a regular language,
// searched breadth first over the product of the two, built lazily: the
// first string found is a shortest witness. Anchors and word boundaries
// are assertions on the code points around a position, which the
// automaton keeps in its state (the class of the code point before).
//
// The search is bounded (maxRegularWork for one pair, and a budget for
// all the pairs of one comparison, in proportion to the schemas' size); a
// pair of patterns beyond it is refused as undecidable-pattern, as is a
// pattern the translation refuses (backreferences, lookaround: not
// regular).

// maxRegularWork bounds the instructions one search of two patterns may
// visit, so that hostile patterns (a large counted repetition, a class
// of every script) cannot make the checker slow.
const maxRegularWork = 1 << 20

// errTooLarge is the search's answer beyond maxRegularWork.
var errTooLarge = errors.New("the patterns are too large to compare within the checker's bounds")

// compilePattern returns the regexp that matches what the ECMA-262
// pattern p matches, and its program, or why the checker cannot read it.
func compilePattern(p string) (*regexp.Regexp, *syntax.Prog, error) {
	re2, err := pattern.ToRE2(p)
	if err != nil {
		return nil, nil, err
	}
	re, err := regexp.Compile(re2)
	if err != nil {
		return nil, nil, err
	}
	tree, err := syntax.Parse(re2, syntax.Perl)
	if err != nil {
		return nil, nil, err
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, nil, err
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstRune && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			return nil, nil, errors.New("a case-insensitive part")
		}
	}
	return re, prog, nil
}

// side is one node's strings as an automaton: its pattern (nil: any) and
// its bounds on the length.
type side struct {
	prog           *syntax.Prog
	minLen, maxLen int  // maxLen < 0: none
	bad            bool // an enumeration too large to write as a pattern
}

func sideOf(n *node) side {
	if n.hasEnum {
		// A finite language: the enumerated strings n accepts, as one
		// pattern.
		if n.enumProg == nil {
			var alts []string
			for _, e := range n.enum {
				if str, ok := e.(string); ok && n.rejects(str)&^rEnum == 0 {
					alts = append(alts, regexp.QuoteMeta(str))
				}
			}
			expr := `[^\x00-\x{10ffff}]` // nothing
			if len(alts) > 0 {
				expr = "^(?:" + strings.Join(alts, "|") + ")$"
			}
			tree, err := syntax.Parse(expr, syntax.Perl)
			if err == nil {
				n.enumProg, err = syntax.Compile(tree.Simplify())
			}
			if err != nil {
				return side{bad: true} // beyond regexp/syntax's bounds
			}
		}
		return side{prog: n.enumProg, maxLen: -1}
	}
	s := side{prog: n.prog, minLen: n.minLen, maxLen: -1}
	if n.maxLen != nil {
		s.maxLen = *n.maxLen
	}
	return s
}

func (s side) lengthOK(l int) bool { return l >= s.minLen && (s.maxLen < 0 || l <= s.maxLen) }

// dstate is a state of the deterministic automaton of a program: the
// instructions waiting for the next code point, what the code point
// before was (for anchors and word boundaries), and whether a match has
// already ended (after which any string is accepted).
type dstate struct {
	pending []uint32
	prev    rune // -1 at the start, else a code point of the class before
	matched bool
}

// dfa builds the deterministic automaton of a program lazily.
type dfa struct {
	prog   *syntax.Prog
	states []dstate
	index  map[string]int
	next   map[[2]int]int // (state, class) to state
	accept map[int]bool
	work   *int
}

func newDFA(prog *syntax.Prog, work *int) *dfa {
	d := &dfa{prog: prog, index: map[string]int{}, next: map[[2]int]int{}, accept: map[int]bool{}, work: work}
	d.intern(dstate{prev: -1})
	return d
}

func (d *dfa) intern(s dstate) int {
	slices.Sort(s.pending)
	s.pending = slices.Compact(s.pending)
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(s.prev)))
	if s.matched {
		b.WriteString("m")
	}
	for _, pc := range s.pending {
		b.WriteString("," + strconv.Itoa(int(pc)))
	}
	if i, ok := d.index[b.String()]; ok {
		return i
	}
	d.states = append(d.states, s)
	d.index[b.String()] = len(d.states) - 1
	return len(d.states) - 1
}

// closure returns the instructions that read a code point, reachable from
// the pending ones and a fresh start by empty steps where the assertions
// flags holds, and whether a match is among them.
func (d *dfa) closure(pending []uint32, flags syntax.EmptyOp) (runes []uint32, matched bool) {
	seen := map[uint32]bool{}
	stack := append(slices.Clone(pending), uint32(d.prog.Start))
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		*d.work++
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			matched = true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			runes = append(runes, pc)
		}
	}
	return runes, matched
}

// step returns the state after state i reads r, of class c.
func (d *dfa) step(i, c int, r rune) int {
	key := [2]int{i, c}
	if j, ok := d.next[key]; ok {
		return j
	}
	s := d.states[i]
	var j int
	if s.matched {
		j = i
	} else {
		runes, matched := d.closure(s.pending, syntax.EmptyOpContext(s.prev, r))
		if matched {
			j = d.intern(dstate{prev: -2, matched: true})
		} else {
			var next []uint32
			for _, pc := range runes {
				if d.prog.Inst[pc].MatchRune(r) {
					next = append(next, d.prog.Inst[pc].Out)
				}
			}
			j = d.intern(dstate{pending: next, prev: kind(r)})
		}
	}
	d.next[key] = j
	return j
}

// accepts reports whether the string that leads to state i matches.
func (d *dfa) accepts(i int) bool {
	if ok, seen := d.accept[i]; seen {
		return ok
	}
	s := d.states[i]
	ok := s.matched
	if !ok {
		_, ok = d.closure(s.pending, syntax.EmptyOpContext(s.prev, -1))
	}
	d.accept[i] = ok
	return ok
}

// kind returns the code point that stands for r's class in the
// assertions on the code point before a position: a word character, a
// newline, or another.
func kind(r rune) rune {
	switch {
	case syntax.IsWordChar(r):
		return 'a'
	case r == '\n':
		return '\n'
	}
	return ' '
}

// classes returns a code point of each class of code points that the
// programs cannot tell apart (nor their word boundaries), surrogates left
// out: no JSON string holds one alone (decision 11).
func classes(progs ...*syntax.Prog) []rune {
	cuts := []rune{0, '\n', '\n' + 1, '0', '9' + 1, 'A', 'Z' + 1, '_', '_' + 1, 'a', 'z' + 1, 0xd800, 0xe000, utf8.MaxRune + 1}
	for _, p := range progs {
		if p == nil {
			continue
		}
		for _, in := range p.Inst {
			switch in.Op {
			case syntax.InstRune:
				for i := 0; i+1 < len(in.Rune); i += 2 {
					cuts = append(cuts, in.Rune[i], in.Rune[i+1]+1)
				}
				if len(in.Rune) == 1 {
					cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
				}
			case syntax.InstRune1:
				cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var reps []rune
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]-1
		if lo >= utf8.MaxRune+1 || lo >= 0xd800 && hi < 0xe000 {
			continue
		}
		reps = append(reps, representative(lo, hi))
	}
	// Letters first: they make the nicest witnesses.
	slices.SortStableFunc(reps, func(a, b rune) int { return rank(a) - rank(b) })
	return reps
}

// representative returns a code point of [lo, hi], a readable one where
// there is one.
func representative(lo, hi rune) rune {
	for _, r := range "abcxyzABC0123456789-_. " {
		if lo <= r && r <= hi {
			return r
		}
	}
	if lo < ' ' && hi >= '!' {
		return '!'
	}
	return lo
}

func rank(r rune) int {
	switch {
	case r >= 'a' && r <= 'z':
		return 0
	case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
		return 1
	case r > ' ' && r < 0x7f:
		return 2
	}
	return 3
}

// A goal is what a search looks for: given whether each side's pattern
// matches and its length bounds hold, whether the string is one to show.
type goal func(aPat, aLen, bPat, bLen bool) bool

// search returns, for each goal, the shortest string found that meets it
// ("" and false where none does), searching the strings a and b tell
// apart breadth first; errTooLarge beyond the checker's bounds.
func search(a, b side, goals []goal, budget *int) ([]string, []bool, error) {
	if a.bad || b.bad || budget != nil && *budget <= 0 {
		return nil, nil, errTooLarge
	}
	work := 0
	if budget != nil {
		defer func() { *budget -= work }()
	}
	da, db := dfaOf(a.prog, &work), dfaOf(b.prog, &work)
	cap := 1 + max(a.minLen, b.minLen, a.maxLen+1, b.maxLen+1)
	alphabet := classes(a.prog, b.prog)
	type pstate struct{ a, b, l int }
	found := make([]string, len(goals))
	ok := make([]bool, len(goals))
	left := len(goals)
	seen := map[pstate]int{}
	var queue []pstate
	var how []visit
	add := func(s pstate, v visit) {
		if _, ok := seen[s]; !ok {
			seen[s] = len(queue)
			queue = append(queue, s)
			how = append(how, v)
		}
	}
	add(pstate{0, 0, 0}, visit{from: -1})
	for i := 0; i < len(queue) && left > 0; i++ {
		if work > maxRegularWork || budget != nil && work > *budget {
			return nil, nil, errTooLarge
		}
		s := queue[i]
		aPat, bPat := da.acceptsState(s.a), db.acceptsState(s.b)
		for g, fn := range goals {
			if !ok[g] && fn(aPat, a.lengthOK(s.l), bPat, b.lengthOK(s.l)) {
				found[g], ok[g] = pathText(how, i), true
				left--
			}
		}
		l := min(s.l+1, cap)
		for c, r := range alphabet {
			add(pstate{da.stepState(s.a, c, r), db.stepState(s.b, c, r), l}, visit{i, r})
			work++
		}
	}
	return found, ok, nil
}

// visit is how a breadth-first search reached a state: from the state
// at index from (-1 for the start), by the code point r.
type visit struct {
	from int
	r    rune
}

// pathText returns the string that leads to the state at index i.
func pathText(how []visit, i int) string {
	var rs []rune
	for ; how[i].from >= 0; i = how[i].from {
		rs = append(rs, how[i].r)
	}
	slices.Reverse(rs)
	return string(rs)
}

// dfaOf returns the automaton of prog, nil for a node without pattern.
func dfaOf(prog *syntax.Prog, work *int) *dfa {
	if prog == nil {
		return nil
	}
	return newDFA(prog, work)
}

func (d *dfa) acceptsState(i int) bool {
	if d == nil {
		return true
	}
	return d.accepts(i)
}

func (d *dfa) stepState(i, c int, r rune) int {
	if d == nil {
		return 0
	}
	return d.step(i, c, r)
}

// regularOf is what regularStrings found for a pair of nodes.
type regularOf struct {
	strs []string
	ok   bool
}

// regularStrings returns strings that tell the strings of a and b apart,
// where their patterns or lengths do, and strings both accept, and
// strings each accepts: a shortest of each kind that has one. b nil is a
// node that accepts any string. It is false beyond the checker's bounds.
func regularStrings(a, b *node) ([]string, bool) {
	if r, ok := a.regular[b]; ok {
		return r.strs, r.ok
	}
	sa, sb := sideOf(a), side{maxLen: -1}
	if b != nil {
		sb = sideOf(b)
	}
	goals := []goal{
		func(ap, al, bp, bl bool) bool { return ap && al && !bp && bl },
		func(ap, al, bp, bl bool) bool { return ap && al && bp && !bl },
		func(ap, al, bp, bl bool) bool { return ap && al && !(bp && bl) },
		func(ap, al, bp, bl bool) bool { return bp && bl && !ap && al },
		func(ap, al, bp, bl bool) bool { return bp && bl && ap && !al },
		func(ap, al, bp, bl bool) bool { return bp && bl && !(ap && al) },
		func(ap, al, bp, bl bool) bool { return ap && al && bp && bl },
		func(ap, al, _, _ bool) bool { return ap && al },
		func(_, _, bp, bl bool) bool { return bp && bl },
	}
	budget := a.budget
	if budget == nil && b != nil {
		budget = b.budget
	}
	found, ok, err := search(sa, sb, goals, budget)
	var strs []string
	for i, s := range found {
		if err == nil && ok[i] {
			strs = append(strs, s)
		}
	}
	if a.regular == nil {
		a.regular = map[*node]regularOf{}
	}
	a.regular[b] = regularOf{strs, err == nil}
	return strs, err == nil
}
