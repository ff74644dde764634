package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/schemas"
)

// headersOf returns the CloudEvents headers a producer sends with the
// valid message of the named schema.
func headersOf(t *testing.T, name string) http.Header {
	m, err := catalogue.DecodeAs(name, "", []byte(validMessages[name]))
	require.NoError(t, err)
	h := http.Header{}
	require.NoError(t, ce.HTTP.Write(h, m))
	return h
}

func TestValidateAcceptsAgreeingCloudEventsHeaders(t *testing.T) {
	for _, s := range schemas.All() {
		t.Run(s.Name, func(t *testing.T) {
			h := headersOf(t, s.Name)
			rec := send(t, http.MethodPost, validatePath(s.Name, s.Version), strings.NewReader(validMessages[s.Name]), h)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.JSONEq(t, `{"schema":"`+s.Name+`","version":"`+s.Version+`","valid":true}`, rec.Body.String())
		})
	}
}

func TestValidateRejectsCloudEventsHeadersThatContradict(t *testing.T) {
	const other = "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		name   string
		schema string
		edit   func(h http.Header)
		path   string
		text   string
	}{
		{"ce-id", "core.device", func(h http.Header) { h.Set("ce-id", other) }, "/message_id", "ce-id contradicts the message's message_id"},
		{"event ce-id", "example.event", func(h http.Header) { h.Set("ce-id", other) }, "/id", "ce-id contradicts"},
		{"ce-dataschema of another schema", "core.device", func(h http.Header) {
			h.Set("ce-dataschema", schemas.ID("core.vehicle", "1.0"))
		}, "", "ce-dataschema names another schema than core.device version 1.0"},
		{"ce-dataschema of another version", "core.device", func(h http.Header) {
			h.Set("ce-dataschema", schemas.ID("core.device", "1.1"))
		}, "", "ce-dataschema names another schema"},
		{"ce-type of another schema", "core.vehicle", func(h http.Header) { h.Set("ce-type", "core.device") }, "", "ce-type is not core.vehicle"},
		{"ce-source", "core.association", func(h http.Header) { h.Set("ce-source", "/tenants/club-9/sources/dev-1") }, "", "ce-source contradicts"},
		{"ce-time", "example.event", func(h http.Header) { h.Set("ce-time", "2026-03-01T08:00:21Z") }, "/occurred_at", "ce-time contradicts"},
		{"content type in binary mode", "core.device", func(h http.Header) { h.Set("Content-Type", "text/plain") }, "", "Content-Type is not application/json"},
		{"ce-id twice", "core.device", func(h http.Header) { h.Add("ce-id", other) }, "", "ce-id is given 2 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := headersOf(t, tt.schema)
			tt.edit(h)
			rec := send(t, http.MethodPost, validatePath(tt.schema, "1.0"), strings.NewReader(validMessages[tt.schema]), h)
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
			v := verdictOf(t, rec)
			require.Len(t, v.Violations, 1, rec.Body.String())
			assert.Equal(t, tt.path, v.Violations[0].Path)
			assert.Equal(t, "header", v.Violations[0].Rule)
			assert.Contains(t, v.Violations[0].Message, tt.text)
		})
	}
}

// Without a ce-* header, the body alone is judged, whatever its
// Content-Type, as before.
func TestValidateWithoutCloudEventsHeadersJudgesTheBodyAlone(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}}
	rec := send(t, http.MethodPost, validatePath("core.device", "1.0"), strings.NewReader(validMessages["core.device"]), h)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// A header and the body each broken: both are reported.
func TestValidateReportsBodyAndHeaderViolations(t *testing.T) {
	h := headersOf(t, "core.device")
	h.Set("ce-specversion", "0.3")
	body := strings.Replace(validMessages["core.device"], `"imei":"490154203237518"`, `"imei":"490154203237519"`, 1)
	rec := send(t, http.MethodPost, validatePath("core.device", "1.0"), strings.NewReader(body), h)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	v := verdictOf(t, rec)
	require.Len(t, v.Violations, 2, rec.Body.String())
	assert.Equal(t, "imei", v.Violations[0].Rule)
	assert.Equal(t, "header", v.Violations[1].Rule)
}
