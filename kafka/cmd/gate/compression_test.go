package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -compression is the codec of every batch the gate produces, copies and
// dead letters: Snappy unless told, which kafkajs, JavaScript's pure
// client, cannot read without a plugin (kafka's
// TestKafkaJSReadsNoSnappy); gzip, which it reads. The gate stores each
// input once whatever the codec, named in any case (as -sasl-mechanism).
func TestGateCompressesAsTold(t *testing.T) {
	// The codecs' numbers in a record batch's attributes.
	for flag, want := range map[string]uint8{"": 2, "none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4, "GZIP": 1} {
		c := newCluster(t)
		c.up(t, "in", "out", "dead")
		in := c.publish(t)
		args := []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}
		if flag != "" {
			args = append(args, "-compression", flag)
		}
		var stderr bytes.Buffer
		require.Equal(t, 0, run(context.Background(), args, &stderr), stderr.String())
		c.checkAgainstReader(t, in, stderr.String())
		for _, topic := range []string{"out", "dead"} {
			records := readTopic(t, c.client, topic)
			require.NotEmpty(t, records, topic)
			for _, r := range records {
				assert.Equal(t, want, r.Attrs.CompressionType(), "-compression %q: %s", flag, topic)
			}
		}
	}
}

// A -compression the command does not know is a usage error, naming it.
func TestUnknownCompressionIsAUsageError(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-brokers", "127.0.0.1:1", "-compression", "brotli"}, &stderr))
	assert.Contains(t, stderr.String(), `gate: -compression must be none, gzip, snappy, lz4 or zstd, not "brotli"`)
	assert.Contains(t, stderr.String(), "usage: gate")
}
