package ce_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// TestBorrowingGivesTheSameVerdict decodes the corpus with and without
// Borrowing, with headers naming the schema and without: the messages,
// identities and errors are the same.
func TestBorrowingGivesTheSameVerdict(t *testing.T) {
	for _, line := range corpus(t) {
		headers := []header{{}}
		if name := schemaOf(t, string(line)); name != "" {
			if _, err := schemas.Versions(name); err == nil {
				headers = append(headers, header{"ce-dataschema": {schemas.ID(name, "1.0")}}, header{"ce-type": {name}})
			}
		}
		for _, h := range headers {
			m, id, err := ce.NATS.DecodeIdentity(catalogue.Kinds, h, line)
			bm, bid, berr := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, h, line)
			require.Equal(t, err, berr, "%s", line)
			require.Equal(t, m, bm, "%s", line)
			require.Equal(t, id, bid, "%s", line)
		}
	}
}

// TestBorrowingSharesTheBody shows what Borrowing's doc comment forbids:
// the body written over after decoding, the borrowed message's identity
// changes with it, where a copied one's does not.
func TestBorrowingSharesTheBody(t *testing.T) {
	for _, h := range []header{{}, {"ce-type": {"core.device"}}} {
		body := []byte(deviceLine)
		_, copied, err := ce.NATS.DecodeIdentity(catalogue.Kinds, h, body)
		require.NoError(t, err)
		_, borrowed, err := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, h, body)
		require.NoError(t, err)
		tenant := copied.Tenant.String()
		i := bytes.Index(body, []byte(`"tenant_id":"`)) + len(`"tenant_id":"`)
		copy(body[i:], bytes.Repeat([]byte("X"), len(tenant)))

		require.Equal(t, tenant, copied.Tenant.String())
		require.Equal(t, string(bytes.Repeat([]byte("X"), len(tenant))), borrowed.Tenant.String())
	}
}

// bareBodies are messages a gate meets without headers, chosen by their
// message_type where this library's encoders do not write it (after other
// members, with escapes), or by none: unknown, null, not a string,
// missing, given twice, nested only, and documents that are not objects
// or not JSON.
func bareBodies() [][]byte {
	const (
		id     = `"message_id":"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32"`
		rest   = `"source_id":"dev-0002","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:05Z","device_id":"6a1d4b6f-9a6c-4d2f-8b4a-1e3c8d0f2b55"`
		device = `"message_type":"core.device"`
	)
	var out [][]byte
	for _, body := range []string{
		`{` + rest + `,` + id + `,` + device + `}`,
		`{` + rest + `,` + device + `,` + id + `}`,
		`{` + device + `,` + rest + `,` + id + `}`,
		`{"tenant_id":"club-1",` + device + `,` + id + `,"source_id":"dev-0002","time":"2026-03-01T08:00:05Z","device_id":"6a1d4b6f-9a6c-4d2f-8b4a-1e3c8d0f2b55"}`,
		`{` + id + `,"message_type":"core.d\u0065vice",` + rest + `}`,
		`{` + id + `,"message_type":"core.device","source_id":"dev\u002d0002","source_type":"tra\u0063ker","tenant_id":"club\u002d1","time":"2026-03-01T08:00:05Z","device_id":"6a1d4b6f-9a6c-4d2f-8b4a-1e3c8d0f2b55"}`,
		`{"\u006dessage_type":"core.device",` + id + `,` + rest + `}`,
		`{` + rest + `,` + id + `,"message_type":"core.device","external_id":7}`,
		`{` + rest + `,` + id + `,"message_type":"core.vehicle"}`,
		`{` + rest + `,` + id + `,"message_type":"core.nothing"}`,
		`{` + rest + `,` + id + `,"message_type":"` + strings.Repeat("x", 500) + `"}`,
		`{` + rest + `,` + id + `,"message_type":null}`,
		`{` + rest + `,` + id + `,"message_type":7}`,
		`{` + rest + `,` + id + `,"message_type":["core.device"]}`,
		`{` + rest + `,` + id + `}`,
		`{` + rest + `,` + id + `,"meta":{"message_type":"core.device"}}`,
		`{` + device + `,` + device + `,` + id + `,` + rest + `}`,
		`{` + device + `,"message_type":"core.vehicle",` + id + `,` + rest + `}`,
		`{` + rest + `,` + id + `,` + device,
		`{` + rest + `,` + id + `,` + device + `,}`,
		`{"source_id":"dev-0002",` + device + `]`,
		`{"source_id":"\ud800",` + device + `}`,
		`{"id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"created","occurred_at":"2026-03-01T08:00:00Z"}`,
		`{"id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"created","occurred_at":"2026-03-01T08:00:00Z","message_type":"example.event"}`,
		`[` + device + `]`,
		`"core.device"`,
		`{}`,
		``,
		`not json`,
	} {
		out = append(out, []byte(body))
	}
	return out
}

// TestJudgingFindsTheKindAsTheTableDoes pins Judging's message_type
// route on tables other than the published one, made of the fixture's
// kinds (demo.sensor at 1.0, 1.1 and 2.0): one given a KindOf judges
// without building, to the verdict and identity of Borrowing, which
// decodes with the table's Decode; one given only a Decode builds the
// message, as Borrowing does; and one given neither, the fixture's own,
// says it cannot choose, with Borrowing's error.
func TestJudgingFindsTheKindAsTheTableDoes(t *testing.T) {
	kindOf := func(data []byte) (*msg.Kind, error) {
		var v struct {
			MessageType *string `json:"message_type"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		if v.MessageType == nil {
			return nil, errors.New("no message_type")
		}
		if k := fixture.Kinds.Lookup(*v.MessageType, ""); k != nil {
			return k, nil
		}
		return nil, fmt.Errorf("unknown message type %q", *v.MessageType)
	}
	decode := func(data []byte) (msg.Message, error) {
		k, err := kindOf(data)
		if k == nil {
			return nil, err
		}
		m := k.New()
		return m, m.UnmarshalJSON(data)
	}
	finding := msg.NewKinds(decode, fixture.Kinds.All()...).WithKindOf(kindOf)
	decoding := msg.NewKinds(decode, fixture.Kinds.All()...)
	require.True(t, finding.CanFindKind())
	require.False(t, decoding.CanFindKind())
	require.False(t, fixture.Kinds.CanFindKind())

	const sensor = `"message_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","sensor_id":"0f8fad5b-d9cb-469f-a165-70867728950e","kind":"temperature","level":5,"time":"2024-05-01T12:00:00Z"`
	bodies := []string{
		`{"message_type":"demo.sensor",` + sensor + `}`,
		`{` + sensor + `,"message_type":"demo.sensor","location":5}`,
		`{` + sensor + `,"message_type":"demo.sensor","kind":7}`,
		`{` + sensor + `,"message_type":"demo.other"}`,
		`{` + sensor + `}`,
		`{` + sensor + `,"message_type":null}`,
		`not json`,
	}
	valid := 0
	for _, body := range bodies {
		data := []byte(body)
		wantM, wantID, wantErr := ce.NATS.Borrowing().DecodeIdentity(finding, nil, data)
		m, id, err := ce.NATS.Judging().DecodeIdentity(finding, nil, data)
		assert.Nil(t, m, "%s", body)
		assert.Equal(t, wantID, id, "%s", body)
		assert.Equal(t, errText(wantErr), errText(err), "%s", body)
		if wantM != nil {
			assert.Same(t, wantM.SchemaKind(), id.Kind, "%s", body)
			assert.Equal(t, "demo.sensor", id.Kind.Name)
			assert.Equal(t, "2.0", id.Kind.Version, "the latest major judges by message_type")
		}
		if err == nil {
			valid++
		}
		k, kerr := decoding.KindOf(data)
		fk, fkerr := finding.KindOf(data)
		assert.Same(t, fk, k, "%s", body)
		assert.Equal(t, errText(fkerr), errText(kerr), "%s", body)

		m, id, err = ce.NATS.Judging().DecodeIdentity(decoding, nil, data)
		assert.Equal(t, wantM, m, "a table without KindOf: the message is built: %s", body)
		assert.Equal(t, wantID, id, "%s", body)
		assert.Equal(t, errText(wantErr), errText(err), "%s", body)

		_, _, wantErr = ce.NATS.Borrowing().DecodeIdentity(fixture.Kinds, nil, data)
		m, _, err = ce.NATS.Judging().DecodeIdentity(fixture.Kinds, nil, data)
		assert.Nil(t, m)
		assert.ErrorIs(t, err, msg.ErrNoDecode)
		assert.Equal(t, errText(wantErr), errText(err))
		_, err = fixture.Kinds.KindOf(data)
		assert.ErrorIs(t, err, msg.ErrNoDecode)
	}
	assert.Equal(t, 1, valid, "the bodies hold one valid message")
}
