package catalogue_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/internal/hostile"
	"github.com/fleetkit/catalogue/internal/vocabulary"
	"github.com/fleetkit/catalogue/msg"
)

// judgedAlike checks that the four ways of reading data as a message of
// kind k give the same verdict: decoding with a copy (UnmarshalJSON),
// decoding that borrows (DecodeBorrowed), judging that keeps nothing
// (Check), and judging for the identity (JudgeIdentity). The errors must
// be equal violation for violation, texts and offsets included, the
// borrowed message equal to the copied one, and the judged identity
// equal to the copied message's, once the others have read data after
// it (with the judging decoder JudgeIdentity used, and its scratch
// space).
func judgedAlike(t testing.TB, k *msg.Kind, data []byte) {
	t.Helper()
	id, judged := k.JudgeIdentity(data)
	m := k.New()
	want := m.UnmarshalJSON(data)
	borrowed, err := k.DecodeBorrowed(data)
	require.Equal(t, want, err, "DecodeBorrowed's verdict differs from UnmarshalJSON's on %s", data)
	require.Equal(t, m, borrowed, "the borrowed message differs from the copied one: %s", data)
	require.Equal(t, want, k.Check(data), "Check's verdict differs from UnmarshalJSON's on %s", data)
	require.Equal(t, want, judged, "JudgeIdentity's verdict differs from UnmarshalJSON's on %s", data)
	require.Equal(t, m.Identity(), id, "JudgeIdentity's identity differs from the message's: %s", data)
}

// judgeCorpus returns messages of every shape that exercises what Check
// does in its own way: extra members (repeated or not, with escapes, in
// nested objects), arrays of strings, free objects, and the syntax errors
// met inside each.
func judgeCorpus(t testing.TB) [][]byte {
	out := judgeSeeds(t)
	for _, name := range names() {
		for _, seed := range richestSeeds(t, name, 2) {
			out = append(out, mutations(seed)...)
		}
	}
	for _, h := range hostile.Messages() {
		out = append(out, h.Body)
	}
	return out
}

// judgeSeeds is the part of judgeCorpus a fuzz target starts from: the
// case tables, and messages of the shapes Check reads in its own way.
func judgeSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range names() {
		for _, c := range loadCases(t, name) {
			out = append(out, c.Message)
		}
	}
	device := `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"`
	event := `{"id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"created","occurred_at":"2026-03-01T08:00:00Z"`
	vehicle := `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.vehicle","source_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","source_type":"CORE","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","vehicle_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"`
	for _, rest := range []string{
		`,"x":1,"y":2,"x":3}`,
		`,"x":1,"\u0078":2}`,
		`,"\u0078":1,"x":2}`,
		`,"\u0078":1,"\u0078":2}`,
		`,"é":1,"\u00e9":2}`,
		`,"a\nb":1,"a\u000ab":2}`,
		`,"x" : 1 , "x":2}`,
		`,"x":1,"x":{"a":1,"a":2}}`,
		`,"x":{"y":1},"y":2,"x":3}`,
		`,"x":[1,2,}`,
		`,"\u0078":[1,2,}`,
		`,"x":"\ud800"}`,
		`,"x":1,` + strings.Repeat(`"k":1,`, 40) + `"z":1}`,
		`,` + manyNames(300, "") + `}`,
		`,` + manyNames(300, `\u0041`) + `,` + manyNames(3, `\u0041`) + `}`,
		`,` + manyNames(300, "") + `,` + manyNames(300, "") + `}`,
	} {
		out = append(out, []byte(device+rest))
		out = append(out, []byte(vehicle+rest))
		out = append(out, []byte(event+rest))
	}
	for _, actor := range []string{
		`{"x":1,"x":2}`,
		`{"x":1}, "x":1, "actor2":{"x":1}`,
		`{"\u0078":1,"y":2,"x":3}`,
		`{"id":"a","x":1}, "x":2, "y":{"x":1}, "x":3`,
	} {
		out = append(out, []byte(event+`,"actor":`+actor+`}`))
		out = append(out, []byte(event+`,"x":0,"actor":`+actor+`,"x":4}`))
	}
	for _, tags := range []string{`[]`, `["a","b"]`, `["a",1,"\u00e9",null]`, `["a",`, `["\ud800"]`, `"a"`, `[` + strings.Repeat(`"t",`, 100) + `"t"]`} {
		out = append(out, []byte(event+`,"tags":`+tags+`}`))
	}
	for _, meta := range []string{`{}`, `{"a":1,"a":2}`, `{ "a" : "<&>" }`, `[]`, `{"a":`, `{"a":"\u2028"}`} {
		out = append(out, []byte(vehicle+`,"meta":`+meta+`}`))
	}
	return out
}

// manyNames returns n members with distinct names, each begun by prefix.
func manyNames(n int, prefix string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%sn%d":%d`, prefix, i, i)
	}
	return b.String()
}

// kindsJudged lists every kind the differential tests read messages as:
// the catalogue's, and the fixtures', whose schemas use what the
// catalogue's do not (checked arrays of strings, earlier minors).
func kindsJudged() []*msg.Kind {
	var all []*msg.Kind
	for _, kinds := range []*msg.Kinds{catalogue.Kinds, fixture.Kinds, vocabulary.Kinds} {
		all = append(all, kinds.All()...)
	}
	return all
}

func TestCheckAndBorrowedDecodingGiveDecodingsVerdict(t *testing.T) {
	corpus := judgeCorpus(t)
	for _, k := range kindsJudged() {
		t.Run(k.Name+"@"+k.Version, func(t *testing.T) {
			for _, data := range corpus {
				judgedAlike(t, k, data)
			}
		})
	}
}

// TestCheckFindsRepeatedExtraMembers pins what Check does without the
// Extra map: each repeat found, named and placed as decoding does.
func TestCheckFindsRepeatedExtraMembers(t *testing.T) {
	data := []byte(`{"id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"created","occurred_at":"2026-03-01T08:00:00Z",` +
		`"x":1,"actor":{"x":1,"\u0078":2},"\u0078":3,"y":{"x":1},"y":4}`)
	err := catalogue.Kinds.Lookup("example.event", "").Check(data)
	var e *msg.Error
	require.ErrorAs(t, err, &e)
	var got []string
	for _, v := range e.Violations {
		got = append(got, v.Path+" "+string(v.Rule)+" "+v.Message)
	}
	require.Equal(t, []string{
		"/actor/x duplicate member appears more than once (byte offset 129)",
		"/x duplicate member appears more than once (byte offset 141)",
		"/y duplicate member appears more than once (byte offset 159)",
	}, got)
}

func FuzzCheck(f *testing.F) {
	kinds := kindsJudged()
	for i, data := range judgeSeeds(f) {
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		judgedAlike(t, kinds[int(kind)%len(kinds)], data)
		kindFoundAlike(t, data)
	})
}

// kindFoundAlike checks that Kinds.KindOf, by which a binding judges a
// message chosen by its message_type without building it (ce.Binding's
// Judging), finds the kind of the message Decode gives, or none and
// Decode's error, violation for violation.
func kindFoundAlike(t testing.TB, data []byte) {
	t.Helper()
	m, want := catalogue.Decode(data)
	k, err := catalogue.Kinds.KindOf(data)
	if m == nil {
		require.Nil(t, k, "KindOf finds a kind where Decode chooses none: %s", data)
		require.Equal(t, want, err, "KindOf's error differs from Decode's on %s", data)
		return
	}
	require.NoError(t, err, "%s", data)
	require.Same(t, m.SchemaKind(), k, "KindOf's kind differs from Decode's message's: %s", data)
}

// TestKindOfFindsDecodesKind runs kindFoundAlike over the corpus, and
// over messages that name their type later than this library's encoders
// write it, with escapes, wrongly, or not at all.
func TestKindOfFindsDecodesKind(t *testing.T) {
	const rest = `"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","source_id":"dev-1","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"`
	corpus := judgeCorpus(t)
	for _, typ := range []string{`"core.device"`, `"core.d\u0065vice"`, `"core.vehicle"`, `"core.nothing"`, `null`, `7`, `"core.device","message_type":"core.vehicle"`} {
		corpus = append(corpus, []byte(`{`+rest+`,"message_type":`+typ+`}`), []byte(`{`+rest+`,"message_type":`+typ))
	}
	corpus = append(corpus, []byte(`{`+rest+`}`), []byte(`{`+rest+`,"meta":{"message_type":"core.device"}}`))
	found := 0
	for _, data := range corpus {
		kindFoundAlike(t, data)
		if k, _ := catalogue.Kinds.KindOf(data); k != nil {
			found++
		}
	}
	require.Greater(t, found, 100, "the corpus should hold messages whose kind is found")
}

// TestParseBorrowedSharesItsInput shows what the doc comment of
// ParseBorrowed forbids, and why: a borrowed message's strings are the
// input's bytes, so that writing over the input changes the message,
// where Parse's message keeps what it decoded.
func TestParseBorrowedSharesItsInput(t *testing.T) {
	data := []byte(`{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","external_id":"e-1","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","firmware":"1.2.3","extra":{"k":"v"}}`)
	k := catalogue.Kinds.Lookup("core.device", "")
	copied := k.New()
	require.NoError(t, copied.UnmarshalJSON(data))
	borrowed, err := k.DecodeBorrowed(data)
	require.NoError(t, err)
	require.Equal(t, copied, borrowed)

	// The caller reuses its buffer, as a pooled buffer or a reader's
	// would be: every byte of tenant "club-1" and of the extra member's
	// value is written over.
	i := bytes.Index(data, []byte(`club-1`))
	copy(data[i:], "XXXX-9")
	j := bytes.Index(data, []byte(`"v"`))
	copy(data[j:], `"w"`)

	require.Equal(t, "club-1", copied.Identity().Tenant.String(), "a copied message keeps what it decoded")
	require.Equal(t, "XXXX-9", borrowed.Identity().Tenant.String(), "a borrowed message changes with its input")
	out, err := borrowed.(interface{ MarshalJSON() ([]byte, error) }).MarshalJSON()
	require.NoError(t, err)
	require.Contains(t, string(out), `"tenant_id":"XXXX-9"`)
	require.Contains(t, string(out), `"extra":{"k":"w"}`)
}

// kindOf returns the kind of m, nil if there is no message.
func kindOf(m msg.Message) *msg.Kind {
	if m == nil {
		return nil
	}
	return m.SchemaKind()
}

// TestCatalogueCheckGivesDecodesVerdict holds the catalogue's ways in to
// the same verdicts: Check, CheckOr and CheckAs choose the schema that
// Decode, DecodeOr and DecodeAs do, and give the same error.
func TestCatalogueCheckGivesDecodesVerdict(t *testing.T) {
	corpus := append(judgeCorpus(t),
		[]byte(`{"message_type":"core.driver"}`), []byte(`{"message_type":null}`), []byte(`[]`), []byte(`{"id":1}`))
	for _, data := range corpus {
		m, want := catalogue.Decode(data)
		k, err := catalogue.Check(data)
		require.Equal(t, want, err, "%s", data)
		require.Equal(t, kindOf(m), k, "%s", data)
		b, err := catalogue.DecodeBorrowed(data)
		require.Equal(t, want, err, "%s", data)
		require.Equal(t, m, b, "%s", data)

		m, want = catalogue.DecodeOr(data, "example.event")
		k, err = catalogue.CheckOr(data, "example.event")
		require.Equal(t, want, err, "%s", data)
		require.Equal(t, kindOf(m), k, "%s", data)

		for _, as := range [][2]string{{"core.device", ""}, {"core.vehicle", "1.0"}, {"core.vehicle", "9.9"}, {"core.driver", ""}} {
			m, want = catalogue.DecodeAs(as[0], as[1], data)
			k, err = catalogue.CheckAs(as[0], as[1], data)
			require.Equal(t, want, err, "%s", data)
			require.Equal(t, kindOf(m), k, "%s", data)
		}
	}
}

func ExampleCheck() {
	k, err := catalogue.Check([]byte(`{"message_type":"core.vehicle","vehicle_id":"not a uuid","meta":{"a":1,"a":2}}`))
	fmt.Println(k.Name, k.Version)
	fmt.Println(err)
	// Output:
	// core.vehicle 1.0
	// /vehicle_id: not a uuid: want 36 characters in 8-4-4-4-12 form; /meta/a: member appears more than once (byte offset 71); /message_id: required member is missing; /source_id: required member is missing; /source_type: required member is missing; /tenant_id: required member is missing; /time: required member is missing
}

// JudgeIdentity's identity is the message's even when its strings had
// escapes, whose text the judging decoder unescapes into scratch space
// that the next string, or the next message, overwrites: judged again,
// the identity is kept, and outlives the judging of other messages.
func TestJudgeIdentityKeepsEscapedStrings(t *testing.T) {
	k := catalogue.Kinds.Lookup("core.device", "")
	data := []byte(`{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev\u002d1","source_type":"tra\u0063ker","tenant_id":"club\u002d1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","external_id":"\u0065-1"}`)
	id, err := k.JudgeIdentity(data)
	require.NoError(t, err)
	other := []byte(strings.ReplaceAll(string(data), `\u002d1`, `\u002dZZZZ`))
	for range 3 {
		require.NoError(t, k.Check(other))
		_, err := k.JudgeIdentity(other)
		require.NoError(t, err)
	}
	require.Equal(t, "club-1", id.Tenant.String())
	require.Equal(t, "tracker", id.SourceType.String())
	require.Equal(t, "dev-1", id.SourceID.String())
}
