package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The command's session decompresses a batch of the input to at most 32
// times -max-record-bytes (one past it is a compression bomb, which
// kgo refuses with kgo.ErrMaxDecompress and the gate dead-letters), and
// a fetch to less than twice that, however many batches it holds: the
// batches after are left for a later fetch (kafka.BoundedFetches; the
// gate's tests show that nothing is lost or read twice so). Its
// decompressor is exercised here directly, with no broker up, so that no
// fetch begins between its batches.
func TestGateSessionBoundsWhatAFetchDecompresses(t *testing.T) {
	const maxBytes = 8192
	bound := decompressFactor * maxBytes
	c := newCluster(t) // never up: the sessions fetch nothing
	session := func() kgo.Decompressor {
		o := options{brokers: []string{c.addr()}, in: []string{"in"}, group: "g", txnID: "t", maxBytes: maxBytes, sessionTimeout: 10 * time.Second}
		sess, err := newSession(o, &linkLog{log: slog.New(slog.DiscardHandler), links: map[string]link{}})
		require.NoError(t, err)
		t.Cleanup(sess.Close)
		cl := sess.Client()
		assert.Equal(t, bound, cl.OptValue(kgo.MaxDecompressBatchBytes))
		assert.Equal(t, 1, cl.OptValue(kgo.MaxConcurrentFetches), "fetches from one broker at a time")
		assert.Equal(t, true, cl.OptValue(kgo.DisableFetchSessions), "names every partition in each fetch")
		d, ok := cl.OptValue(kgo.WithDecompressor).(kgo.Decompressor)
		require.True(t, ok)
		return d
	}
	zstd, err := kgo.DefaultCompressor(kgo.ZstdCompression())
	require.NoError(t, err)
	compress := func(n int) []byte {
		out, codec := zstd.Compress(new(bytes.Buffer), make([]byte, n))
		require.Equal(t, kgo.CodecZstd, codec)
		return bytes.Clone(out)
	}

	near := compress(bound - 1024)
	d := session()
	for i := range 2 {
		out, err := d.Decompress(near, kgo.CodecZstd)
		require.NoError(t, err, "batch %d", i)
		assert.Len(t, out, bound-1024)
	}
	_, err = d.Decompress(near, kgo.CodecZstd)
	require.Error(t, err, "a third batch of the fetch, past its budget")
	assert.False(t, errors.Is(err, kgo.ErrMaxDecompress), "a batch left for later taken for a bomb: %v", err)

	_, err = session().Decompress(compress(bound+1), kgo.CodecZstd)
	assert.ErrorIs(t, err, kgo.ErrMaxDecompress, "a bomb")
}

// A gate starts with any -max-record-bytes it accepts: kgo refuses a
// client whose batches are larger than its requests (100 MiB unless set),
// or whose batches decompress past 2 GiB, and a session that could not
// be made stopped the gate at start (found from outside: any
// -max-record-bytes past 64 MiB, then past 100 MiB).
func TestGateSessionTakesEveryMaxRecordBytesItAccepts(t *testing.T) {
	c := newCluster(t) // never up
	for _, n := range []int{64<<20 + 1, 100 << 20, 200 << 20, maxRecordBytes} {
		o := options{brokers: []string{c.addr()}, in: []string{"in"}, group: "g", txnID: "t", maxBytes: n, sessionTimeout: 10 * time.Second}
		sess, err := newSession(o, &linkLog{log: slog.New(slog.DiscardHandler), links: map[string]link{}})
		require.NoError(t, err, n)
		cl := sess.Client()
		assert.Equal(t, int32(n), cl.OptValue(kgo.ProducerBatchMaxBytes), n)
		assert.Equal(t, min(decompressFactor*n, math.MaxInt32), cl.OptValue(kgo.MaxDecompressBatchBytes), n)
		for _, opt := range []any{kgo.BrokerMaxWriteBytes, kgo.BrokerMaxReadBytes} {
			assert.GreaterOrEqual(t, cl.OptValue(opt), int32(n+requestRoom), n)
		}
		sess.Close()
	}
	var stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-brokers", c.addr(), "-max-record-bytes", strconv.Itoa(maxRecordBytes + 1)}, &stderr))
	assert.Contains(t, stderr.String(), "-max-record-bytes must be at most "+strconv.Itoa(maxRecordBytes))
}
