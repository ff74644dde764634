package ce_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
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
