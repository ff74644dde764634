package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/schemas"
)

// TestServeKeepsAnsweringRegistryClientsWhileOthersSendSlowly: clients
// that hold every body place, sending large requests slowly, keep no
// serializer from looking its schema up or registering it, nor anyone
// from reading the registry.
func TestServeKeepsAnsweringRegistryClientsWhileOthersSendSlowly(t *testing.T) {
	base, stop := serveInProcess(t, "-subject", "telemetry-value=core.device")
	registry := base + api.RegistryPath
	addr := strings.TrimPrefix(base, "http://")

	var slow []net.Conn
	defer func() {
		for _, conn := range slow {
			conn.Close()
		}
	}()
	sendSlowly := func() {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		slow = append(slow, conn)
		_, err = fmt.Fprintf(conn, "POST %s/subjects/core.device/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n{\"schema\":\"", api.RegistryPath)
		require.NoError(t, err)
	}
	for range api.DefaultMaxBodies() {
		sendSlowly()
	}
	// Every place is taken once a large request is refused for want of
	// one. One that finds a place free gets another slow client: on a
	// busy machine the server may read a large request before the slow
	// ones, and answer 503 to a slow one that came while the large one
	// held its place.
	large := `{"schemaType":"JSON","schema":"{}"` + strings.Repeat(" ", 64<<10) + `}`
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Post(registry+"/subjects/core.device", "application/json", strings.NewReader(large))
		require.NoError(t, err)
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable {
			break
		}
		require.True(t, time.Now().Before(deadline), "the slow clients never took every place")
		sendSlowly()
		time.Sleep(10 * time.Millisecond)
	}

	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	request, err := json.Marshal(map[string]string{"schema": string(device.JSON()), "schemaType": "JSON"})
	require.NoError(t, err)
	for _, path := range []string{"/subjects/telemetry-value", "/subjects/telemetry-value/versions"} {
		res, err := http.Post(registry+path, "application/vnd.schemaregistry.v1+json", bytes.NewReader(request))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, body)
		var v struct{ ID int32 }
		require.NoError(t, json.Unmarshal(body, &v))
		assert.Equal(t, device.RegistryID, v.ID, path)
	}
	res, err := http.Get(registry + "/schemas/ids/2")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)

	for _, conn := range slow {
		conn.Close() // or serve would wait for them to end, as it should
	}
	assert.Equal(t, 0, stop())
}

// TestServeLogsTheRegistryURLAndItsTopicSubjects: the URL a serializer
// is configured with, and the topic subjects served, are in the log, so
// that a new user need not guess them.
func TestServeLogsTheRegistryURLAndItsTopicSubjects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "topic subjects: none (serve one with -subject TOPIC-value=NAME)"},
		{[]string{"-subject", "telemetry-value=core.device", "-subject", "fleet-value=core.vehicle"}, "topic subjects: fleet-value (core.vehicle), telemetry-value (core.device)"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		r, w := io.Pipe()
		done := make(chan int, 1)
		go func() {
			defer w.Close()
			done <- run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, tc.args...), nil, io.Discard, w)
		}()
		log := lines(r)
		first := <-log // serve logs at once, or ends and closes the log
		base := servingURL(t, log)
		assert.Equal(t, "msgcheck: schema-registry clients use url = "+base+api.RegistryPath+"; "+tc.want, first)
		cancel()
		for range log {
		}
		assert.Equal(t, 0, <-done)
	}
}
