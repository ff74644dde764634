package oracle

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fleetkit/catalogue/msg"
)

// Hold decodes data as a new message of k, a generated type, and holds
// the decoding to the oracle over k's schema file: it must accept data
// exactly when the oracle does, and refuse it with an *msg.Error; what it
// accepts must validate and re-encode, by MarshalJSON and AppendJSON
// alike, as a message the oracle accepts. Hold fails t where it does not,
// and reports whether data is valid with both, with the decoding's error.
func (o *Oracle) Hold(t testing.TB, k *msg.Kind, data []byte) (valid bool, err error) {
	t.Helper()
	want, why := o.Verdict(k.Name, k.Version, data)
	m := k.New()
	if m.SchemaName() != k.Name || m.SchemaVersion() != k.Version {
		t.Fatalf("a new message of %s %s is of %s %s", k.Name, k.Version, m.SchemaName(), m.SchemaVersion())
	}
	err = m.UnmarshalJSON(data)
	if want != (err == nil) {
		t.Errorf("%s %s: %s: oracle says %v (%v), decoding says %v", k.Name, k.Version, data, want, why, err)
		return false, err
	}
	if err != nil {
		if _, ok := errors.AsType[*msg.Error](err); !ok {
			t.Errorf("%s: decoding refuses it with %T, not an *msg.Error: %v", data, err, err)
		}
		return false, err
	}
	if err := m.Validate(); err != nil {
		t.Errorf("%s: decodes but does not validate: %v", data, err)
	}
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: decodes but does not encode: %v", data, err)
	}
	if ok, why := o.Verdict(k.Name, k.Version, out); !ok {
		t.Errorf("%s %s: %s re-encodes as %s: %v", k.Name, k.Version, data, out, why)
	}
	appended, err := m.AppendJSON([]byte("x"))
	if err != nil || !bytes.Equal(appended, append([]byte("x"), out...)) {
		t.Errorf("%s: AppendJSON writes %q (%v), not what MarshalJSON does, %q", data, appended, err, out)
	}
	return true, nil
}
