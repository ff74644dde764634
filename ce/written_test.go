package ce_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
)

// writtenHeader is a header that learns what decoding found of it.
type writtenHeader struct {
	header
	written, told bool
}

func (h *writtenHeader) SetWritten(written bool) { h.written, h.told = written, true }

var _ ce.WrittenHeader = (*writtenHeader)(nil)

// A WrittenHeader learns that it holds the headers Write sets exactly
// when it does, each once, and the message has no violation: headers
// that agree with the message but are written otherwise are not, nor
// are missing or repeated ones. The verdict is the same either way.
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
			_, err := ce.NATS.Decode(catalogue.Kinds, h, []byte(c.body))
			assert.Equal(t, c.valid, err == nil, "%v", err)
			assert.True(t, h.told, "SetWritten was not called")
			assert.Equal(t, c.written, h.written)
			// The verdict is the one a plain Header gets.
			_, plain := ce.NATS.Decode(catalogue.Kinds, c.h, []byte(c.body))
			assert.Equal(t, errText(plain), errText(err))
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
			_, err := b.Borrowing().Decode(catalogue.Kinds, h, line)
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
