package ce_test

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/internal/sample"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
	"github.com/fleetkit/catalogue/vehicle"
)

// header is a case-sensitive Header, as NATS's is.
type header map[string][]string

func (h header) Values(key string) []string { return h[key] }
func (h header) Set(key, value string)      { h[key] = []string{value} }

// corpus returns the non-blank lines of the sample stream.
func corpus(t testing.TB) [][]byte {
	lines, _ := sample.Lines(t, "../testdata/messages.ndjson")
	return lines
}

const deviceLine = `{"message_id":"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32","message_type":"core.device","source_id":"dev-0002","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:05Z","device_id":"6a1d4b6f-9a6c-4d2f-8b4a-1e3c8d0f2b55","external_id":"ext-0002"}`

func TestWriteSetsDecision14Headers(t *testing.T) {
	tests := []struct {
		line string
		want header
	}{
		{deviceLine, header{
			"Content-Type":   {"application/json"},
			"ce-specversion": {"1.0"},
			"ce-id":          {"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32"},
			"ce-type":        {"core.device"},
			"ce-source":      {"/tenants/club-1/sources/tracker/dev-0002"},
			"ce-time":        {"2026-03-01T08:00:05Z"},
			"ce-dataschema":  {"https://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0"},
		}},
		{`{"message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","message_type":"core.association","source_id":"dev 1/2","tenant_id":"club-1","time":"2026-03-01T08:00:15.5+02:00","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"}`, header{
			"Content-Type":   {"application/json"},
			"ce-specversion": {"1.0"},
			"ce-id":          {"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54"},
			"ce-type":        {"core.association"},
			"ce-source":      {"/tenants/club-1/sources/dev%201%2F2"}, // no source_type: no segment
			"ce-time":        {"2026-03-01T08:00:15.5+02:00"},
			"ce-dataschema":  {"https://catalogue.fleetkit.dev/api/schemas/core.association/versions/1.0"},
		}},
		{`{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z"}`, header{
			"Content-Type":   {"application/json"},
			"ce-specversion": {"1.0"},
			"ce-id":          {"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65"},
			"ce-type":        {"example.event"},
			"ce-source":      {"/events"},
			"ce-time":        {"2026-03-01T08:00:20Z"},
			"ce-dataschema":  {"https://catalogue.fleetkit.dev/api/schemas/example.event/versions/1.0"},
		}},
	}
	for _, tt := range tests {
		m, err := catalogue.DecodeAs(schemaOf(t, tt.line), "", []byte(tt.line))
		require.NoError(t, err)
		h := header{}
		require.NoError(t, ce.NATS.Write(h, m))
		assert.Equal(t, tt.want, h)
	}
}

// schemaOf returns the schema of a test line: its message_type, or
// example.event.
func schemaOf(t *testing.T, line string) string {
	for _, name := range catalogue.Types() {
		if strings.Contains(line, `"message_type":"`+name+`"`) {
			return name
		}
	}
	return event.Name
}

func TestWriteKafkaPrefix(t *testing.T) {
	m, err := catalogue.Decode([]byte(deviceLine))
	require.NoError(t, err)
	h := header{}
	require.NoError(t, ce.Kafka.Write(h, m))
	assert.Equal(t, []string{"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32"}, h["ce_id"])
	assert.Equal(t, []string{"application/json"}, h["content-type"])
	assert.NotContains(t, h, "ce-id")
	_, err = ce.Kafka.Decode(catalogue.Kinds, h, []byte(deviceLine))
	assert.NoError(t, err)
}

func TestWriteWorksWithHTTPHeader(t *testing.T) {
	m, err := catalogue.Decode([]byte(deviceLine))
	require.NoError(t, err)
	h := http.Header{}
	require.NoError(t, ce.HTTP.Write(h, m))
	assert.Equal(t, "1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32", h.Get("Ce-Id"))
	_, err = ce.HTTP.Decode(catalogue.Kinds, h, []byte(deviceLine))
	assert.NoError(t, err)
}

// Every message of the sample stream that its own schema accepts travels
// with the headers Write gives it, and Decode judges it, by those headers,
// as the oracle judges it; an event, which has no message_type, is found
// by its headers alone.
func TestDecodeAgreesWithTheOracleOnTheCorpus(t *testing.T) {
	valid := 0
	for _, line := range corpus(t) {
		m, err := catalogue.Decode(line)
		if err != nil {
			continue // invalid, or an event: see below
		}
		valid++
		h := header{}
		require.NoError(t, ce.NATS.Write(h, m))
		got, err := ce.NATS.Decode(catalogue.Kinds, h, line)
		require.NoError(t, err, "%s", line)
		assert.Equal(t, m.SchemaName(), got.SchemaName())
	}
	require.Greater(t, valid, 10)

	// Events without message_type, and invalid messages of every schema,
	// with headers naming the schema: the verdict is the oracle's.
	for _, line := range corpus(t) {
		name := schemaOf(t, string(line))
		if _, err := schemas.Versions(name); err != nil {
			continue // core.driver
		}
		h := header{"ce-dataschema": {schemas.ID(name, "1.0")}}
		_, err := ce.NATS.Decode(catalogue.Kinds, h, line)
		ok, why := oracle.Verdict(name, line)
		assert.Equal(t, ok, err == nil, "%s: ours %v, oracle %v", line, err, why)
	}
}

// valid returns a valid message of each schema, with its headers.
func valid(t *testing.T) map[string]struct {
	body []byte
	h    header
} {
	lines := map[string]string{
		device.Name:      deviceLine,
		vehicle.Name:     `{"message_id":"2d3f8c74-5e69-4b2a-8a3f-9c8e7d6a5b43","message_type":"core.vehicle","source_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66","source_type":"CORE","tenant_id":"club-1","time":"2026-03-01T08:00:10Z","vehicle_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66"}`,
		association.Name: `{"message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","message_type":"core.association","source_id":"dev-0001","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:15Z","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"}`,
		event.Name:       `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z"}`,
	}
	out := make(map[string]struct {
		body []byte
		h    header
	})
	for name, line := range lines {
		m, err := catalogue.DecodeAs(name, "", []byte(line))
		require.NoError(t, err)
		h := header{}
		require.NoError(t, ce.NATS.Write(h, m))
		out[name] = struct {
			body []byte
			h    header
		}{[]byte(line), h}
	}
	return out
}

func TestDecodeRejectsHeadersThatContradictTheBody(t *testing.T) {
	otherID := "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		name   string
		schema string
		edit   func(h header)
		path   string // of the one violation; "-" for none
		text   string // in its message
	}{
		{"ce-id another uuid", device.Name, func(h header) { h.Set("ce-id", otherID) }, "/message_id", "ce-id contradicts"},
		{"ce-id upper case is the same uuid", device.Name, func(h header) { h.Set("ce-id", strings.ToUpper(h["ce-id"][0])) }, "-", ""},
		{"ce-id not a uuid", device.Name, func(h header) { h.Set("ce-id", "msg-1") }, "/message_id", "ce-id is not a uuid"},
		{"event ce-id", event.Name, func(h header) { h.Set("ce-id", otherID) }, "/id", "ce-id contradicts"},
		{"ce-type another family", device.Name, func(h header) { h.Set("ce-type", "core.vehicle") }, "", "ce-type is not core.device"},
		{"ce-dataschema another schema", device.Name, func(h header) {
			h.Set("ce-dataschema", vehicle.ID)
			h.Set("ce-type", vehicle.Name)
		}, "", "*"}, // judged as a vehicle: many violations
		{"ce-dataschema http is https", device.Name, func(h header) {
			h.Set("ce-dataschema", strings.Replace(device.ID, "https:", "http:", 1))
		}, "-", ""},
		{"ce-dataschema against ce-type", event.Name, func(h header) { h.Set("ce-type", device.Name) }, "", "ce-type is not example.event"},
		{"ce-specversion", vehicle.Name, func(h header) { h.Set("ce-specversion", "0.3") }, "", "ce-specversion is not 1.0"},
		{"ce-time another instant", vehicle.Name, func(h header) { h.Set("ce-time", "2026-03-01T08:00:11Z") }, "/time", "ce-time contradicts"},
		{"ce-time same instant, another offset", vehicle.Name, func(h header) { h.Set("ce-time", "2026-03-01T10:00:10+02:00") }, "-", ""},
		{"ce-time not a date-time", event.Name, func(h header) { h.Set("ce-time", "yesterday") }, "/occurred_at", "ce-time is not a date-time"},
		{"ce-source another tenant", association.Name, func(h header) {
			h.Set("ce-source", "/tenants/club-2/sources/tracker/dev-0001")
		}, "", "ce-source contradicts"},
		{"ce-source of an event", event.Name, func(h header) { h.Set("ce-source", "/tenants/x") }, "", "ce-source contradicts"},
		{"content type", device.Name, func(h header) { h.Set("Content-Type", "text/plain") }, "", "Content-Type is not application/json"},
		{"content type with charset", device.Name, func(h header) { h.Set("Content-Type", "application/json; charset=utf-8") }, "-", ""},
		{"ce-id twice", device.Name, func(h header) { h["ce-id"] = append(h["ce-id"], otherID) }, "", "ce-id is given 2 times"},
		{"no headers at all", device.Name, func(h header) { clear(h) }, "-", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := valid(t)[tt.schema]
			tt.edit(v.h)
			m, err := ce.NATS.Decode(catalogue.Kinds, v.h, v.body)
			require.NotNil(t, m)
			if tt.path == "-" {
				assert.NoError(t, err)
				return
			}
			e, ok := errors.AsType[*msg.Error](err)
			require.True(t, ok, "%v", err)
			if tt.text == "*" {
				assert.Equal(t, vehicle.Name, m.SchemaName())
				assert.Contains(t, err.Error(), "/message_type: message_type contradicts the headers")
				return
			}
			require.Len(t, e.Violations, 1, "%v", err)
			assert.Equal(t, tt.path, e.Violations[0].Path)
			assert.Equal(t, msg.RuleHeader, e.Violations[0].Rule)
			assert.Contains(t, e.Violations[0].Message, tt.text)
			assert.NotEmpty(t, e.Violations[0].Value)
		})
	}
}

// A header is compared with a member only when the body's member is
// valid: otherwise the body's violation says it all.
func TestDecodeReportsABrokenMemberOnce(t *testing.T) {
	v := valid(t)[device.Name]
	body := bytes.Replace(v.body, []byte(`"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32"`), []byte(`"1c2e7b63"`), 1)
	_, err := ce.NATS.Decode(catalogue.Kinds, v.h, body)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Violations, 1, "%v", err)
	assert.Equal(t, msg.RuleFormat, e.Violations[0].Rule)
}

// Body and header violations come together.
func TestDecodeReportsBodyAndHeaders(t *testing.T) {
	v := valid(t)[device.Name]
	body := bytes.Replace(v.body, []byte(`"external_id":"ext-0002"`), []byte(`"external_id":7`), 1)
	v.h.Set("ce-time", "2020-01-01T00:00:00Z")
	_, err := ce.NATS.Decode(catalogue.Kinds, v.h, body)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Violations, 2, "%v", err)
	assert.Equal(t, "/external_id", e.Violations[0].Path)
	assert.Equal(t, "/time", e.Violations[1].Path)
}

func TestDecodePicksTheSchema(t *testing.T) {
	ev := valid(t)[event.Name]
	// By ce-type alone: an event has no message_type to go by.
	m, err := ce.NATS.Decode(catalogue.Kinds, header{"ce-type": {event.Name}}, ev.body)
	require.NoError(t, err)
	assert.Equal(t, event.Name, m.SchemaName())
	// With no header, by message_type, as catalogue.Decode.
	_, err = ce.NATS.Decode(catalogue.Kinds, header{}, ev.body)
	assert.ErrorIs(t, err, catalogue.ErrNoType)
	_, err = ce.NATS.Decode(catalogue.Kinds, nil, valid(t)[device.Name].body)
	assert.NoError(t, err)
	// A header that names no schema.
	_, err = ce.NATS.Decode(catalogue.Kinds, header{"ce-dataschema": {"https://catalogue.fleetkit.dev/api/schemas/core.device/versions/9.0"}}, ev.body)
	assert.ErrorIs(t, err, schemas.ErrUnknown)
	_, err = ce.NATS.Decode(catalogue.Kinds, header{"ce-type": {"core.driver"}}, ev.body)
	assert.ErrorIs(t, err, schemas.ErrUnknown)
}

func TestDecodeAsChecksTheRoutesSchema(t *testing.T) {
	v := valid(t)[device.Name]
	_, err := ce.HTTP.DecodeAs(catalogue.Kinds, v.h, device.Name, device.Version, v.body)
	require.NoError(t, err)
	_, err = ce.HTTP.DecodeAs(catalogue.Kinds, header{"ce-dataschema": {vehicle.ID}}, device.Name, device.Version, v.body)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Violations, 1)
	assert.Contains(t, e.Violations[0].Message, "ce-dataschema names another schema than core.device version 1.0")
	_, err = ce.HTTP.DecodeAs(catalogue.Kinds, header{"ce-type": {vehicle.Name}}, device.Name, device.Version, v.body)
	assert.ErrorContains(t, err, "ce-type is not core.device")
}

// A message whose message_type is not its schema's name would travel with
// a ce-type that contradicts it: Write refuses it.
func TestWriteRefusesAMessageTypeThatIsNotTheSchema(t *testing.T) {
	var d device.Device
	require.NoError(t, d.UnmarshalJSON([]byte(deviceLine)))
	d.MessageType = "custom"
	require.NoError(t, d.Validate()) // decision 10: valid
	err := ce.NATS.Write(header{}, &d)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "/message_type", e.Violations[0].Path)
}

// No value of a message can put anything but printable ASCII into a
// header: CR and LF, which would end the header line and start another,
// least of all.
func TestHeaderValuesCannotBeForged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09/%\r\n\t\x00\x7f :é\u2028ƒ\"\\")
	str := func() string {
		b := make([]rune, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 2000 {
		d := device.New()
		d.MessageID, d.DeviceID = uuid.New(), uuid.New()
		d.TenantID, d.SourceType, d.SourceID = str(), str(), str()
		d.Time = time.Date(2026, 1, 2, 3, 4, 5, r.IntN(1e9), time.FixedZone("", 60*(r.IntN(1439)-719)))
		h := header{}
		require.NoError(t, ce.NATS.Write(h, d))
		for k, vs := range h {
			for _, v := range vs {
				for i := range len(v) {
					require.True(t, v[i] > ' ' && v[i] < 0x7f || k == "Content-Type", "%s: %q", k, v)
				}
			}
		}
		// The source is each member as url.PathEscape escapes it, and
		// what AttributesOf says.
		want := "/tenants/" + url.PathEscape(d.TenantID) + "/sources/" + url.PathEscape(d.SourceType) + "/" + url.PathEscape(d.SourceID)
		require.Equal(t, []string{want}, h["ce-source"])
		a, err := ce.AttributesOf(d)
		require.NoError(t, err)
		require.Equal(t, want, a.Source)
		// And the source still names this message.
		_, err = ce.NATS.Decode(catalogue.Kinds, h, mustMarshal(t, d))
		require.NoError(t, err)
	}
	d := device.New()
	d.TenantID = "club-1\r\nNats-Msg-Id: forged"
	d.SourceType, d.SourceID = "a/b", "c"
	h := header{}
	require.NoError(t, ce.NATS.Write(h, d))
	assert.Equal(t, "/tenants/club-1%0D%0ANats-Msg-Id:%20forged/sources/a%2Fb/c", h["ce-source"][0])
}

// Write leaves headers that already hold their values as they are, and
// then allocates nothing: a gate writes the headers of every message it
// passes on. One that differs, even at the same instant, is rewritten.
func TestWriteAllocatesNothingWhenTheHeadersAgree(t *testing.T) {
	lines := corpus(t)
	n := 0
	for _, line := range lines {
		m, err := catalogue.Decode(line)
		if err != nil {
			continue
		}
		h := header{}
		require.NoError(t, ce.NATS.Write(h, m))
		before := maps.Clone(h)
		allocs := testing.AllocsPerRun(100, func() {
			if err := ce.NATS.Write(h, m); err != nil {
				panic(err)
			}
		})
		assert.Zero(t, allocs, "%s", line)
		assert.Equal(t, before, h)
		n++
	}
	require.NotZero(t, n)

	m, err := catalogue.Decode([]byte(deviceLine))
	require.NoError(t, err)
	h := header{"ce-time": {"2026-03-01T09:00:05+01:00"}, "ce-source": {"/tenants/club-1/sources/tracker/dev-0003"}}
	require.NoError(t, ce.NATS.Write(h, m))
	assert.Equal(t, []string{"2026-03-01T08:00:05Z"}, h["ce-time"])
	assert.Equal(t, []string{"/tenants/club-1/sources/tracker/dev-0002"}, h["ce-source"])
}

func mustMarshal(t *testing.T, m catalogue.Message) []byte {
	b, err := m.MarshalJSON()
	require.NoError(t, err)
	return b
}

// TestDecodeKeepsTheCountOfViolationsPastTheCap pins that a body that
// breaks its schema in more places than msg.MaxViolations keeps its count
// of the rest when the headers are checked beside it, and that a header
// contradiction is listed even then.
func TestDecodeKeepsTheCountOfViolationsPastTheCap(t *testing.T) {
	body := []byte(`{"message_type":"core.association","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"t","time":"2026-11-23T08:00:00Z",` +
		`"association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4","tags":[1` + strings.Repeat(",1", 299) + `]}`)
	h := http.Header{}
	h.Set("ce-id", "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a")
	_, err := ce.HTTP.Decode(catalogue.Kinds, h, body)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 200, e.Omitted)
	require.Len(t, e.Violations, msg.MaxViolations+1)
	assert.Equal(t, msg.RuleHeader, e.Violations[msg.MaxViolations].Rule)
	assert.Equal(t, "/message_id", e.Violations[msg.MaxViolations].Path)
}

// AppendHeaders gives exactly the headers Write sets, Content-Type first
// and then the attributes in the order of decision 14, for every binding,
// one of a caller's own among them (whose names are built, not taken from
// a table).
func TestAppendHeadersGivesWhatWriteSets(t *testing.T) {
	custom := ce.Binding{Prefix: "x-ce-", ContentType: "x-content-type"}
	n := 0
	for _, line := range corpus(t) {
		m, err := catalogue.Decode(line)
		if err != nil {
			continue
		}
		for _, b := range []ce.Binding{ce.NATS, ce.Kafka, ce.HTTP, custom} {
			written := header{}
			require.NoError(t, b.Write(written, m))
			var keys []string
			var values [][]byte // as handed over, not copied
			_, err := b.AppendHeaders(make([]byte, 0, 8), m.Identity(), func(key string, value []byte) {
				keys = append(keys, key)
				values = append(values, value)
			})
			require.NoError(t, err)

			want := []string{b.ContentType}
			for _, a := range []string{ce.AttrSpecVersion, ce.AttrID, ce.AttrType, ce.AttrSource, ce.AttrTime, ce.AttrDataSchema} {
				want = append(want, b.Prefix+a)
			}
			require.Equal(t, want, keys)
			got := header{}
			for i, k := range keys {
				got[k] = []string{string(values[i])}
			}
			assert.Equal(t, written, got, "%s", line)
		}
		n++
	}
	require.NotZero(t, n)
}

// HeaderInOtherCase names the binding's header a name spells in another
// case, and nothing for the header itself, another binding's, or a name
// that folds to one only by a rune of another length.
func TestHeaderInOtherCase(t *testing.T) {
	for _, c := range []struct {
		b         ce.Binding
		key, want string
	}{
		{ce.Kafka, "CE_TYPE", "ce_type"},
		{ce.Kafka, "Ce_Id", "ce_id"},
		{ce.Kafka, "Content-Type", "content-type"},
		{ce.Kafka, "ce_type", ""},
		{ce.Kafka, "ce-type", ""},
		{ce.Kafka, "ce_ſource", ""}, // ſ folds to s, but is two bytes
		{ce.NATS, "CE-ID", "ce-id"},
		{ce.NATS, "content-type", "Content-Type"},
		{ce.NATS, "Content-Type", ""},
		{ce.NATS, "ce_id", ""},
		{ce.NATS, "X-Other", ""},
	} {
		assert.Equal(t, c.want, c.b.HeaderInOtherCase(c.key), "%s", c.key)
	}
}

// writtenHeader is a header that learns what decoding found of it.
type writtenHeader struct {
	header
	written, told bool
}

func (h *writtenHeader) SetWritten(written bool) { h.written, h.told = written, true }

var _ ce.WrittenHeader = (*writtenHeader)(nil)

// A WrittenHeader, judged, learns that it holds the headers Write sets
// exactly when it does, each once, and the message has no violation:
// headers that agree with the message but are written otherwise are
// not, nor are missing or repeated ones. The verdict is the same either
// way.
func TestWrittenHeaderLearnsWhetherItHoldsWhatWriteSets(t *testing.T) {
	m, err := catalogue.Decode([]byte(deviceLine))
	require.NoError(t, err)
	written := header{}
	require.NoError(t, ce.NATS.Write(written, m))
	with := func(key, value string) header {
		h := header{}
		for k, v := range written {
			h[k] = v
		}
		if value == "" {
			delete(h, key)
		} else {
			h[key] = []string{value}
		}
		return h
	}
	twice := with("ce-id", written["ce-id"][0])
	twice["ce-id"] = append(twice["ce-id"], written["ce-id"][0])
	for _, c := range []struct {
		name    string
		h       header
		body    string
		written bool
		valid   bool
	}{
		{"as Write sets them", written, deviceLine, true, true},
		{"ce-id in upper case", with("ce-id", strings.ToUpper(written["ce-id"][0])), deviceLine, false, true},
		{"ce-time at another offset", with("ce-time", "2026-03-01T09:00:05+01:00"), deviceLine, false, true},
		{"ce-source escaped otherwise", with("ce-source", "/tenants/club%2D1/sources/tracker/dev-0002"), deviceLine, false, true},
		{"no ce-source", with("ce-source", ""), deviceLine, false, true},
		{"ce-id given twice", twice, deviceLine, false, false},
		{"ce-id of another message", with("ce-id", "00000000-0000-4000-8000-000000000000"), deviceLine, false, false},
		{"a body that breaks its schema", written, strings.Replace(deviceLine, `"external_id":"ext-0002"`, `"external_id":2`, 1), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &writtenHeader{header: c.h}
			_, err := ce.NATS.Judging().Decode(catalogue.Kinds, h, []byte(c.body))
			assert.Equal(t, c.valid, err == nil, "%v", err)
			assert.True(t, h.told, "SetWritten was not called")
			assert.Equal(t, c.written, h.written)
			// The verdict is the one a binding that does not judge gives,
			// which tells the header nothing.
			other := &writtenHeader{header: c.h}
			_, plain := ce.NATS.Decode(catalogue.Kinds, other, []byte(c.body))
			assert.Equal(t, errText(plain), errText(err))
			assert.False(t, other.told, "SetWritten was called by a binding that does not judge")
		})
	}
}

// Every valid message of the sample, with the headers Write sets, is
// found to hold them, by each binding.
func TestWrittenHeaderHoldsWhatWriteSetsForEverySample(t *testing.T) {
	for _, line := range corpus(t) {
		m, err := catalogue.Decode(line)
		if err != nil {
			continue
		}
		for _, b := range []ce.Binding{ce.NATS, ce.Kafka} {
			h := &writtenHeader{header: header{}}
			require.NoError(t, b.Write(h, m))
			_, err := b.Judging().Decode(catalogue.Kinds, h, line)
			require.NoError(t, err)
			assert.True(t, h.written, "%s", line)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Judging gives the verdict and the identity Borrowing gives, on every
// line of the sample, valid or not, and on bare bodies whose
// message_type is not where this library's encoders write it, or
// unknown, null, missing or escaped, with the headers Write sets, with
// some that contradict the body, and bare; it gives no message, whether
// a header chose the schema or the body's message_type did.
func TestJudgingGivesBorrowingsVerdictAndIdentity(t *testing.T) {
	for _, line := range append(corpus(t), bareBodies()...) {
		hs := []header{{}, {"ce-id": {"00000000-0000-4000-8000-000000000000"}, "ce-type": {"core.device"}}}
		if m, err := catalogue.Decode(line); err == nil {
			written := header{}
			require.NoError(t, ce.NATS.Write(written, m))
			hs = append(hs, written)
		}
		for _, h := range hs {
			wantM, wantID, wantErr := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, h, line)
			m, id, err := ce.NATS.Judging().DecodeIdentity(catalogue.Kinds, h, line)
			assert.Equal(t, errText(wantErr), errText(err), "%s %v", line, h)
			assert.Equal(t, wantID, id, "%s %v", line, h)
			assert.Nil(t, m, "%s %v", line, h)
			if wantM != nil {
				assert.Same(t, wantM.SchemaKind(), id.Kind, "%s %v", line, h)
			}
			if wantID.Kind == nil {
				continue
			}
			_, wantID, wantErr = ce.NATS.Borrowing().DecodeKind(catalogue.Kinds, h, wantID.Kind, line)
			m, id, err = ce.NATS.Judging().DecodeKind(catalogue.Kinds, h, wantID.Kind, line)
			assert.Equal(t, errText(wantErr), errText(err), "%s %v", line, h)
			assert.Equal(t, wantID, id, "%s %v", line, h)
			assert.Nil(t, m)
		}
	}
}

// A header's value in a violation is JSON text as the library writes every
// string (msg.AppendJSONString): '<', '>' and '&' as they are, not as
// encoding/json's \u003c, so that a verdict reads the same whichever
// package made it.
func TestViolationValuesAreWrittenAsTheLibraryWritesStrings(t *testing.T) {
	v := valid(t)[device.Name]
	v.h.Set("ce-id", "<a&b>")
	v.h["ce-type"] = []string{"<x>", "y&z"}
	_, err := ce.NATS.Decode(catalogue.Kinds, v.h, v.body)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	var values []string
	for _, v := range e.Violations {
		values = append(values, v.Value)
	}
	assert.Contains(t, values, `"<a&b>"`)
	assert.Contains(t, values, `["<x>","y&z"]`)
}
