package ce_test

import (
	"testing"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
)

// FuzzDecode: whatever the headers and body, Decode does not panic,
// Judging gives Borrowing's verdict and identity without a message, and
// a message Decode accepts is valid and travels again, with the headers
// Write gives it, to the same verdict.
func FuzzDecode(f *testing.F) {
	for _, line := range append(corpus(f), bareBodies()...) {
		f.Add("", "", "", "", "", "", string(line))
	}
	f.Add("1.0", "1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32", "core.device", "/tenants/club-1/sources/tracker/dev-0002",
		"2026-03-01T08:00:05Z", "http://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0", deviceLine)
	f.Fuzz(func(t *testing.T, spec, id, typ, source, tm, dataschema, body string) {
		h := header{}
		for k, v := range map[string]string{"ce-specversion": spec, "ce-id": id, "ce-type": typ, "ce-source": source, "ce-time": tm, "ce-dataschema": dataschema} {
			if v != "" {
				h.Set(k, v)
			}
		}
		_, wantID, wantErr := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, h, []byte(body))
		judged, judgedID, err := ce.NATS.Judging().DecodeIdentity(catalogue.Kinds, h, []byte(body))
		if judged != nil || judgedID != wantID || errText(err) != errText(wantErr) {
			t.Fatalf("Judging gives %v, %+v, %v; Borrowing %+v, %v", judged, judgedID, err, wantID, wantErr)
		}
		m, err := ce.NATS.Decode(catalogue.Kinds, h, []byte(body))
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted, yet invalid: %v", err)
		}
		again := header{}
		if err := ce.NATS.Write(again, m); err != nil {
			// A message_type other than the schema's name, accepted
			// without headers to contradict it.
			return
		}
		if _, err := ce.NATS.Decode(catalogue.Kinds, again, []byte(body)); err != nil {
			t.Fatalf("accepted with %v, not with its own headers %v: %v", h, again, err)
		}
	})
}
