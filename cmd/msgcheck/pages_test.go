package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

func TestPagesWritesTheStaticSite(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"pages", "-o", dir}, nil, io.Discard, &stderr)
	require.Equal(t, 0, code, stderr.String())
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	for _, name := range schemas.Names() {
		assert.Contains(t, string(index), `href="schemas/`+name+`/1.0.html"`)
	}
	page, err := os.ReadFile(filepath.Join(dir, "schemas", "core.device", "1.0.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "static copy of the catalogue")
	assert.NotContains(t, string(page), "<form")
	file, err := os.ReadFile(filepath.Join(dir, "schemas", "core.device", "1.0.json"))
	require.NoError(t, err)
	want, _ := schemas.Lookup("core.device", "1.0")
	assert.Equal(t, want.JSON(), file)
}

func TestPagesUsageAndReadErrors(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"pages"}, nil, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "-o DIR is required")
	stderr.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"pages", "-o", t.TempDir(), "-catalogue", "no-such-folder"}, nil, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "no-such-folder")
}

// TestTypesOnlyForThePublishedFiles: a folder whose core.device 1.0
// differs from the published file has no Go type for it, so that the form
// never judges by a type generated from another file.
func TestTypesOnlyForThePublishedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, s := range schemas.All() {
		data := s.JSON()
		if s.Name == "core.device" {
			data = bytes.Replace(data, []byte(`"A device known`), []byte(`"A changed device known`), 1)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.File()), data, 0o644))
	}
	site, published, err := siteOf(dir, "/api")
	require.NoError(t, err)
	assert.False(t, published)
	body := func(path string) string {
		rec := &bytes.Buffer{}
		w := &recorder{h: http.Header{}, b: rec}
		site.ServeHTTP(w, httpRequest(t, path))
		return rec.String()
	}
	device, vehicle := body("/schemas/core.device/1.0.html"), body("/schemas/core.vehicle/1.0.html")
	assert.Contains(t, device, "no Go type is generated for this version")
	assert.NotContains(t, device, "<form")
	assert.Contains(t, vehicle, "<form")
	assert.NotContains(t, vehicle, "try.js", "no validation through the API, which serves another catalogue")

	site, published, err = siteOf("../../schemas", "/api")
	require.NoError(t, err)
	assert.True(t, published)
	w := &recorder{h: http.Header{}, b: &bytes.Buffer{}}
	site.ServeHTTP(w, httpRequest(t, "/schemas/core.device/1.0.html"))
	assert.Contains(t, w.b.String(), `data-validate="/api/schemas/core.device/versions/1.0/validate"`)
}

type recorder struct {
	h http.Header
	b *bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) WriteHeader(int)             {}
func (r *recorder) Write(p []byte) (int, error) { return r.b.Write(p) }

func httpRequest(t *testing.T, path string) *http.Request {
	r, err := http.NewRequest(http.MethodGet, path, nil)
	require.NoError(t, err)
	return r
}

func TestServeServesThePagesBesideTheAPI(t *testing.T) {
	base, stop := serveInProcess(t, "-catalogue", "../../testdata/fixture-breaking")
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	get := func(path string) (*http.Response, string) {
		resp, err := client.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	resp, body := get("/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, "demo.sensor")
	resp, body = get("/schemas/demo.sensor/compare/1.1-1.2.html")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "enum-value-removed")
	resp, body = get("/api/schemas")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.True(t, strings.Contains(body, "core.device"), "the API serves the published catalogue")
	resp, _ = get("/api/nope")
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "paths under /api/ stay the API's")

	assert.Equal(t, 0, stop())
}

func TestPagesOfAFolderWithoutSchemasFails(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"pages", "-o", t.TempDir(), "-catalogue", t.TempDir()}, nil, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "no schema files")
}
