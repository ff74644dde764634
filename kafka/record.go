package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/short"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// Header adapts a record's headers to ce.Header, so that package ce reads
// and writes them. Kafka header names are case-sensitive: ce_id is not
// Ce_Id.
type Header struct{ Record *kgo.Record }

// Values returns the values of every header of the record named key, in
// order.
func (h Header) Values(key string) []string {
	var vs []string
	for _, rh := range h.Record.Headers {
		if rh.Key == key {
			vs = append(vs, string(rh.Value))
		}
	}
	return vs
}

// Set replaces every header of the record named key with one of value.
func (h Header) Set(key, value string) {
	hs := h.Record.Headers[:0]
	for _, rh := range h.Record.Headers {
		if rh.Key != key {
			hs = append(hs, rh)
		}
	}
	h.Record.Headers = append(hs, kgo.RecordHeader{Key: key, Value: []byte(value)})
}

// readOnly is a record's headers as ce reads them while it decodes the
// record: their values as strings that share the record's bytes, so that
// judging a record allocates nothing for its headers. That is sound
// because nothing package ce or decode returns keeps a header's
// string (a violation quotes it into a string of its own, and a header is
// otherwise only compared or looked up), and the record is not written to
// while it is decoded (TestDecodeKeepsNoHeaderBytes pins both). A
// readOnly is taken from readOnlies and given back by release once the
// decoding is done.
//
// The headers ce reads are found in one pass over the record's
// (ceIndex), so that each of ce's look-ups costs one comparison of names,
// not one for each header of the record.
type readOnly struct {
	headers []kgo.RecordHeader
	at      ceIndex
	// one holds the value Values returned for each name ceName knows,
	// when there is one.
	one [ceNames]string
	// written is what ce said of the headers, decoding the record: that
	// they are those it writes for the message (see ce.WrittenHeader).
	written bool
}

// ceName returns the index of key among the names of the headers
// ce.Kafka reads and writes, or -1 for another name. A switch of
// constants compares a name with the one or two of its length, word by
// word. (Were ce to read another header, it would be found by a search.)
func ceName(key string) int {
	switch key {
	case "content-type":
		return 0
	case "ce_" + ce.AttrSpecVersion:
		return 1
	case "ce_" + ce.AttrID:
		return 2
	case "ce_" + ce.AttrType:
		return 3
	case "ce_" + ce.AttrSource:
		return 4
	case "ce_" + ce.AttrTime:
		return 5
	case "ce_" + ce.AttrDataSchema:
		return 6
	}
	return -1
}

// ceNames is how many names ceName knows.
const ceNames = 7

// A ceIndex says where, among a record's headers, are those of each name
// ceName knows: the first of that name, and how many there are; and how
// many headers have other names.
type ceIndex struct {
	first, count [ceNames]int32
	others       int
}

// index notes where the headers of hs are.
func (x *ceIndex) index(hs []kgo.RecordHeader) {
	for i, h := range hs {
		if n := ceName(h.Key); n >= 0 {
			if x.count[n] == 0 {
				x.first[n] = int32(i)
			}
			x.count[n]++
		} else {
			x.others++
		}
	}
}

// only returns the index in hs, which x indexed, of the one header named
// key; false when there is none or more than one.
func (x *ceIndex) only(hs []kgo.RecordHeader, key string) (int, bool) {
	if n := ceName(key); n >= 0 {
		return int(x.first[n]), x.count[n] == 1
	}
	at, count := -1, 0
	for i, h := range hs {
		if h.Key == key {
			at, count = i, count+1
		}
	}
	return at, count == 1
}

// readOnlies holds the readOnly values of the records being decoded, one
// for each goroutine decoding at once.
var readOnlies = sync.Pool{New: func() any { return new(readOnly) }}

// readHeaders returns r's headers as ce reads them, until release.
func readHeaders(r *kgo.Record) *readOnly {
	ro := readOnlies.Get().(*readOnly)
	ro.headers = r.Headers
	ro.at.index(r.Headers)
	return ro
}

// release gives ro back to readOnlies: neither it nor the values it
// returned may be used after.
func (ro *readOnly) release() {
	*ro = readOnly{}
	readOnlies.Put(ro)
}

// SetWritten notes what ce found of the headers: it makes a readOnly a
// ce.WrittenHeader, for the gate (see broker.DecodeIdentity).
func (ro *readOnly) SetWritten(written bool) { ro.written = written }

var _ ce.WrittenHeader = (*readOnly)(nil)

// Values returns the values of the headers named key, in order, each a
// string that shares the record's bytes.
func (ro *readOnly) Values(key string) []string {
	if n := ceName(key); n >= 0 && ro.at.count[n] <= 1 {
		if ro.at.count[n] == 0 {
			return nil
		}
		ro.one[n] = view(ro.headers[ro.at.first[n]].Value)
		return ro.one[n : n+1 : n+1]
	}
	var vs []string
	for _, h := range ro.headers {
		if h.Key == key {
			vs = append(vs, view(h.Value))
		}
	}
	return vs
}

// view returns b as a string that shares its bytes, for as long as
// nothing writes to them (see readOnly).
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Set panics: decoding reads headers, never writes them.
func (*readOnly) Set(key, value string) {
	panic("kafka: a record's headers are read only while it is decoded")
}

// Record returns m as a record to topic (decision 15), without validating
// it: its value is the message's JSON, framed in the registry wire format
// when framed is set (which takes a kind with a registry id); its key is
// the message's record key, the canonical text of the entity's own id
// (msg.Identity's Key); and its headers are content-type and the
// CloudEvents attributes with Kafka's ce_ prefix (ce.Kafka). To key a
// record otherwise, set its Key before producing it.
//
// Records made one after another share their memory, a few kilobytes
// of it (see arena), so that making one costs no allocation of its own:
// a record kept long keeps that much alive. Its fields are the caller's
// to set, and its slices the caller's to replace, but not to write into.
func Record(topic string, m msg.Message, framed bool) (*kgo.Record, error) {
	id := m.Identity()
	if framed && id.Kind.RegistryID == 0 {
		return nil, fmt.Errorf("kafka: %s version %s has no registry id to frame its messages with", id.Kind.Name, id.Kind.Version)
	}
	a := arenas.Get().(*arena)
	defer arenas.Put(a)
	r := a.record()
	r.Topic = topic
	// The headers' values, the key and the value share one buffer, the
	// rest of the arena's: each is a slice of it that nothing writes
	// again.
	buf := a.bytes[len(a.bytes):]
	room := cap(buf)
	buf, err := ce.Kafka.AppendHeaders(buf, id, func(key string, value []byte) {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: key, Value: value})
	})
	if err != nil {
		return nil, err
	}
	start := len(buf)
	if u, ok := id.Key.UUID(); ok {
		// The text Key.Append writes, from format's table of digit
		// pairs rather than a digit at a time: a third of the cost.
		buf = format.AppendUUID(buf, u)
	} else {
		buf = id.Key.Append(buf)
	}
	r.Key = buf[start:len(buf):len(buf)]
	start = len(buf)
	if framed {
		buf = AppendFrame(buf, id.Kind.RegistryID)
	}
	if buf, err = m.AppendJSON(buf); err != nil {
		return nil, err
	}
	r.Value = buf[start:len(buf):len(buf)]
	a.used(buf, room)
	return r, nil
}

// arenas holds the memory Record makes records of, an arena for each
// goroutine making them at once.
var arenas = sync.Pool{New: func() any { return new(arena) }}

// An arena is memory for records: Record takes a record and its headers
// from records, and writes its bytes after those of the last record in
// bytes. A record bigger than the room left has memory of its own.
type arena struct {
	bytes   []byte
	records []recordAndHeaders
}

// The sizes of an arena's memory: each record kept keeps at most this
// much of it alive.
const (
	arenaBytes   = 8 << 10
	arenaRecords = 16
	// arenaLow is the room left under which a record starts a new
	// arena's bytes rather than outgrow the room.
	arenaLow = 1 << 10
)

// recordAndHeaders is a record with room for the headers Record writes.
type recordAndHeaders struct {
	record  kgo.Record
	headers [7]kgo.RecordHeader
}

// record returns a new record of the arena's, its headers empty with
// room for Record's, and makes sure that bytes has room for its bytes.
func (a *arena) record() *kgo.Record {
	if len(a.records) == 0 {
		a.records = make([]recordAndHeaders, arenaRecords)
	}
	rh := &a.records[0]
	a.records = a.records[1:]
	rh.record.Headers = rh.headers[:0:len(rh.headers)]
	if cap(a.bytes)-len(a.bytes) < arenaLow {
		a.bytes = make([]byte, 0, arenaBytes)
	}
	return &rh.record
}

// used tells the arena that buf, the rest of its bytes when it had room
// bytes, is a record's now: its bytes come after it. A buf that grew is
// no longer the arena's, but what was written before it grew still is:
// the next record starts new bytes.
func (a *arena) used(buf []byte, room int) {
	if cap(buf) != room {
		a.bytes = nil
		return
	}
	a.bytes = a.bytes[:len(a.bytes)+len(buf)]
}

// A Producer produces validated messages to Kafka.
type Producer struct {
	// Client is the franz-go client the records are produced with; its
	// options say where and how (acks, idempotence, linger).
	Client *kgo.Client
	// Framed frames each value in the schema-registry wire format, for
	// consumers whose serializers expect it; otherwise the value is the
	// message alone, its identity in the headers only.
	Framed bool
}

// Produce validates m and produces it to topic, as Record makes it,
// returning the record once the broker has acknowledged it (as the
// client's acks option asks). An invalid message is never produced:
// Produce returns the *msg.Error of m.Validate, every violation.
func (p Producer) Produce(ctx context.Context, topic string, m msg.Message) (*kgo.Record, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	r, err := Record(topic, m, p.Framed)
	if err != nil {
		return nil, err
	}
	return r, p.Client.ProduceSync(ctx, r).FirstErr()
}

// ProduceAsync is Produce without the wait: it validates m and hands its
// record to the client, which calls promise once the broker has
// acknowledged or refused it, as kgo.Client.Produce does. An invalid
// message is never produced: promise is called at once with the
// *msg.Error of m.Validate.
func (p Producer) ProduceAsync(ctx context.Context, topic string, m msg.Message, promise func(*kgo.Record, error)) {
	if err := m.Validate(); err != nil {
		promise(nil, err)
		return
	}
	r, err := Record(topic, m, p.Framed)
	if err != nil {
		promise(nil, err)
		return
	}
	p.Client.Produce(ctx, r, promise)
}

// Decode decodes a record's value as the message its schema identity
// names, among the kinds of the table kinds (catalogue.Kinds for the
// published catalogue), as DecodeIdentity says.
func Decode(kinds *msg.Kinds, r *kgo.Record) (msg.Message, error) {
	m, _, err := DecodeIdentity(kinds, r)
	return m, err
}

// DecodeIdentity decodes a record's value, framed in the registry wire
// format or not, as the message its schema identity names, and returns
// the message's identity too (see ce.Binding.DecodeIdentity). It picks the
// schema by the ce_dataschema header, then the framing's registry id,
// then ce_type, then the message's message_type (decision 15). Every one
// of them that is present must agree, or the message is invalid, with a
// violation of rule msg.RuleHeader; so must the other headers, as package
// ce checks them, and a header named as one of them in another case
// (CE_TYPE, Content-Type), which a reader of names in any case would
// take for it, or by the HTTP binding's prefix (ce-type), which a
// bridge to HTTP would pass on beside the one it makes of ce_type. A
// framing whose registry id the table does not have, like a
// ce_dataschema it does not have, chooses no schema: the error
// wraps schemas.ErrUnknown, and the message is invalid, never skipped;
// the headers that need no schema are still checked (see ce.Decode). A
// value that starts with the framing's magic byte but is too short for it
// is a violation of rule msg.RuleSyntax, and so is no value at all (a
// tombstone), which the violation says.
func DecodeIdentity(kinds *msg.Kinds, r *kgo.Record) (m msg.Message, id msg.Identity, err error) {
	h := readHeaders(r)
	defer h.release()
	m, err = h.decodeInto(kinds, r, ce.Kafka, &id)
	return m, id, err
}

// decodeInto is DecodeIdentity through binding b (for the gate, which
// holds the record until its copy is stored, ce.Kafka.Judging()), h being
// r's headers, the identity going in *id, the caller's result (not
// returned, so that it is not copied on the way).
func (h *readOnly) decodeInto(kinds *msg.Kinds, r *kgo.Record, b ce.Binding, id *msg.Identity) (msg.Message, error) {
	m, err := decodeValue(kinds, r, h, b, id)
	if err == nil && h.at.others > 0 {
		// Only a header of a name ceName does not know can spell one
		// of its names in another case.
		err = shadowed(r.Headers, *id)
	}
	return m, err
}

// decodeValue decodes r's value, framed or not, with its headers h, as
// DecodeIdentity says, the message's identity going in *ident, as
// decodeInto's does.
func decodeValue(kinds *msg.Kinds, r *kgo.Record, h *readOnly, b ce.Binding, ident *msg.Identity) (msg.Message, error) {
	id, body, framed, err := Unframe(r.Value)
	if err != nil {
		return nil, &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleSyntax, Message: err.Error()}}}
	}
	var m msg.Message
	if !framed {
		m, *ident, err = b.DecodeIdentity(kinds, h, body)
		if r.Value == nil {
			err = tombstone(err)
		}
		return m, err
	}
	k := kinds.LookupRegistryID(id)
	if k == nil {
		return nil, b.NoSchema(h, fmt.Errorf("the value's framing names registry id %d: %w", id, schemas.ErrUnknown))
	}
	// A ce_dataschema the table has comes first; one it does not have is
	// reported by DecodeKind, against the framing's schema.
	// The usual header names the framing's schema, by its $id as it is:
	// no look-up needed.
	chosen := k
	if ds := h.Values(dataSchemaKey()); len(ds) == 1 && ds[0] != k.ID {
		if byHeader := kinds.LookupID(ds[0]); byHeader != nil {
			chosen = byHeader
		}
	}
	m, *ident, err = b.DecodeKind(kinds, h, chosen, body)
	switch {
	case ident.Kind == nil: // no message (a judging binding returns none, and its identity)
	case chosen != k:
		err = appendViolation(err, &msg.Violation{
			Rule:    msg.RuleHeader,
			Message: fmt.Sprintf("the value's framing names registry id %d, %s version %s, not the schema %s%s names", id, k.Name, k.Version, ce.Kafka.Prefix, ce.AttrDataSchema),
		})
	case k.TypeMember != "" && ident.Type != k.Name && !breaks(err, k.TypeMember):
		// Package ce holds message_type to ce_type and ce_dataschema;
		// the framing names the schema too.
		err = appendViolation(err, &msg.Violation{
			Path:    k.TypeMember,
			Rule:    msg.RuleHeader,
			Message: fmt.Sprintf("message_type contradicts the value's framing, whose registry id %d names %s", id, k.Name),
			Value:   strconv.Quote(ident.Type),
		})
	}
	return m, err
}

// tombstone returns err, the error of decoding a record with no value,
// its body's violation saying what the record is: a deletion, on a
// compacted topic, not JSON cut short.
func tombstone(err error) error {
	if e, ok := errors.AsType[*msg.Error](err); ok {
		for _, v := range e.Violations {
			if v.Path == "" && v.Rule == msg.RuleSyntax {
				v.Message = "the record has no value (a tombstone), not a message"
				break
			}
		}
	}
	return err
}

// dataSchemaKey returns the name of ce.Kafka's ce_dataschema header, a
// constant unless its prefix was changed: building it for each record
// costs more than looking the header up.
func dataSchemaKey() string {
	if ce.Kafka.Prefix == "ce_" {
		return "ce_" + ce.AttrDataSchema
	}
	return ce.Kafka.Prefix + ce.AttrDataSchema
}

// shadowed returns the violations (msg.RuleHeader) of the headers of hs
// that a consumer could read as one of those ce.Kafka reads and writes
// (see shadowName: CE_TYPE, Content-Type, ce_type\x00junk) and that do
// not say what that one says for the message of identity id: a gate's
// copy would carry them beside its own. Such a header is rare: the
// headers are written for id only when there is one.
func shadowed(hs []kgo.RecordHeader, id msg.Identity) error {
	// The usual names are found by ceName's switch, without the search.
	if !slices.ContainsFunc(hs, func(h kgo.RecordHeader) bool { return ceName(h.Key) < 0 && shadowName(h.Key) != "" }) {
		return nil
	}
	var shadows []*msg.Violation
	omitted := 0
	_, err := ce.Kafka.AppendHeaders(nil, id, func(key string, value []byte) {
		for _, h := range hs {
			if shadowName(h.Key) == key && !bytes.Equal(h.Value, value) {
				// However many there are, the verdict lists as many
				// as a decoder lists of a body's, and counts the rest.
				if len(shadows) == msg.MaxViolations {
					omitted++
					continue
				}
				how := "differs from %s only in case"
				who := "a consumer that reads header names in any case, or up to a NUL byte as librdkafka does, would read it"
				switch {
				case strings.IndexByte(h.Key, 0) >= 0:
					how = "is %s up to a NUL byte"
				case otherPrefix(h.Key):
					how = "is %s as the HTTP and NATS bindings name it"
					who = "a consumer that reads the attributes by those bindings' names, as a bridge from Kafka to HTTP passes headers on, would read it"
				}
				// Its value, empty or long, is the violation's
				// Value, quoted and cut short as ce quotes a
				// header's: a verdict must fit in a dead letter,
				// whatever the header holds.
				shadows = append(shadows, &msg.Violation{Rule: msg.RuleHeader, Value: short.Quote(string(h.Value[:min(len(h.Value), short.Len+1)])),
					Message: fmt.Sprintf("header %s "+how+", and does not say %s: "+who,
						msg.Escape(h.Key), key, value)})
			}
		}
	})
	if err != nil {
		return err
	}
	if shadows != nil {
		return &msg.Error{Violations: shadows, Omitted: omitted}
	}
	return nil
}

// shadowName returns the name of the header ce.Kafka reads and writes
// that key, another name, would be read as by a consumer that reads
// header names in any case (CE_TYPE for ce_type), or only up to their
// first NUL byte, as librdkafka and the clients on it (kcat,
// confluent-kafka-python) do (ce_type\x00junk), or by the names of the
// HTTP and NATS bindings, whose prefix is ce- (ce-type, CE-Type), as a
// bridge from Kafka to HTTP passes a record's headers on beside those it
// makes of the ce_ ones; "" for none.
func shadowName(key string) string {
	if i := strings.IndexByte(key, 0); i >= 0 {
		if key = key[:i]; ceName(key) >= 0 {
			return key
		}
	}
	if otherPrefix(key) {
		key = ce.Kafka.Prefix + key[len(ce.HTTP.Prefix):]
		if ceName(key) >= 0 {
			return key
		}
	}
	return ce.Kafka.HeaderInOtherCase(key)
}

// otherPrefix reports whether key begins with the HTTP binding's prefix
// (ce-), in any case, where the Kafka binding's is another.
func otherPrefix(key string) bool {
	p := ce.HTTP.Prefix
	return p != ce.Kafka.Prefix && len(key) > len(p) && strings.EqualFold(key[:len(p)], p)
}

// breaks reports whether err lists a violation at path: a member the
// body breaks says nothing that could contradict a header.
func breaks(err error, path string) bool {
	e, ok := errors.AsType[*msg.Error](err)
	if !ok {
		return false
	}
	for _, v := range e.Violations {
		if v.Path == path {
			return true
		}
	}
	return false
}

// appendViolation returns err, the error of a decoded message, with v
// listed last: a disagreement of the schema's names is listed whatever
// else the message breaks, as package ce lists header contradictions.
func appendViolation(err error, v *msg.Violation) error {
	if err == nil {
		return &msg.Error{Violations: []*msg.Violation{v}}
	}
	if e, ok := errors.AsType[*msg.Error](err); ok {
		e.Violations = append(e.Violations, v)
		return e
	}
	return err
}
