package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCompat runs msgcheck compat in-process.
func runCompat(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"compat"}, args...), strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

const (
	fixture  = "../../testdata/fixture/"
	breaking = "../../testdata/fixture-breaking/"
)

func TestCompatExitsZeroForACompatibleMinorAndPrintsItsWarnings(t *testing.T) {
	stdout, stderr, code := runCompat(t, fixture+"demo.sensor-1.0.json", fixture+"demo.sensor-1.1.json")
	assert.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2)
	assert.True(t, strings.HasPrefix(lines[0], fixture+"demo.sensor-1.1.json: /properties/location: warning: open-content: "), lines[0])
	assert.Contains(t, lines[0], `; witness: {"message_id":`)
	assert.Contains(t, stderr, "demo.sensor 1.1 is compatible with demo.sensor 1.0 (full): 0 breaks, 2 warnings")
}

func TestCompatExitsOneForABreakingMinor(t *testing.T) {
	stdout, stderr, code := runCompat(t, breaking+"demo.sensor-1.1.json", breaking+"demo.sensor-1.2.json")
	assert.Equal(t, 1, code, stderr)
	new := breaking + "demo.sensor-1.2.json: "
	for _, want := range []string{
		new + "/properties/kind: backward: enum-value-removed: 1.2 drops \"humidity\" from the enumeration",
		new + "/properties/level: backward: maximum-lowered: ",
		new + "/properties/unit/default: full: default-changed: ",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.Equal(t, 3, strings.Count(stdout, "\n"), stdout)
	assert.Contains(t, stderr, "demo.sensor 1.2 is NOT compatible with demo.sensor 1.1 (full): 3 breaks, 0 warnings")
}

func TestCompatModesAndStrict(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-strict", fixture + "demo.sensor-1.0.json", fixture + "demo.sensor-1.1.json"}, 1},
		{[]string{"-mode", "forward", "-strict", fixture + "demo.sensor-1.0.json", fixture + "demo.sensor-1.1.json"}, 0},
		{[]string{"-mode", "backward", fixture + "demo.sensor-1.1.json", fixture + "demo.sensor-2.0.json"}, 1},
		{[]string{"-mode", "forward", fixture + "demo.sensor-1.1.json", fixture + "demo.sensor-2.0.json"}, 1},
		{[]string{"-mode", "backward", breaking + "demo.sensor-1.2.json", breaking + "demo.sensor-1.1.json"}, 1}, // default-changed breaks both ways
		{[]string{fixture + "demo.sensor-1.1.json", fixture + "demo.sensor-1.1.json"}, 0},
	} {
		_, stderr, code := runCompat(t, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
	}
}

func TestCompatCatalogue(t *testing.T) {
	_, stderr, code := runCompat(t, "-catalogue", "../../schemas")
	assert.Equal(t, 0, code, "the published catalogue is compatible: %s", stderr)

	stdout, stderr, code := runCompat(t, "-catalogue", breaking)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "demo.sensor 1.1 is compatible with demo.sensor 1.0")
	assert.Contains(t, stderr, "demo.sensor 1.2 is NOT compatible with demo.sensor 1.0")
	assert.Contains(t, stderr, "demo.sensor 1.2 is NOT compatible with demo.sensor 1.1")
	assert.Contains(t, stdout, filepath.Join(breaking, "demo.sensor-1.2.json")+" against 1.0: /properties/kind: backward: enum-value-removed:")
	assert.Contains(t, stdout, filepath.Join(breaking, "demo.sensor-1.2.json")+" against 1.1: /properties/kind: backward: enum-value-removed:")

	_, stderr, code = runCompat(t, "-catalogue", fixture)
	assert.Equal(t, 0, code, "2.0 is a major of its own: %s", stderr)
}

func TestCompatJSON(t *testing.T) {
	stdout, _, code := runCompat(t, "-json", breaking+"demo.sensor-1.1.json", breaking+"demo.sensor-1.2.json")
	assert.Equal(t, 1, code)
	var r struct {
		Name, Old, New, Mode string
		Compatible           bool
		Findings             []struct {
			Code, Breaks, Direction string
			SchemaPointer           string `json:"schema_pointer"`
			MemberPointer           string `json:"member_pointer"`
			Message                 string
			Witness                 json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	assert.Equal(t, "demo.sensor", r.Name)
	assert.Equal(t, []string{"1.1", "1.2", "full"}, []string{r.Old, r.New, r.Mode})
	assert.False(t, r.Compatible)
	require.Len(t, r.Findings, 3)
	f := r.Findings[0]
	assert.Equal(t, []string{"enum-value-removed", "backward", "backward", "/properties/kind", "/kind"},
		[]string{f.Code, f.Breaks, f.Direction, f.SchemaPointer, f.MemberPointer})
	assert.Contains(t, string(f.Witness), `"kind":"humidity"`)

	stdout, _, code = runCompat(t, "-json", fixture+"demo.sensor-1.1.json", fixture+"demo.sensor-1.1.json")
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"name":"demo.sensor","old":"1.1","new":"1.1","mode":"full","strict":false,"compatible":true,"findings":[]}`, stdout)
}

// writer returns a function that writes a file of dir and returns its
// path.
func writer(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
}

func TestCompatExitsTwoForUsageAndUnreadableSchemas(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	sensor := fixture + "demo.sensor-1.0.json"
	notJSON := write("bad.json", `{"$id":`)
	write("badid.json", `{"$id":"https://catalogue.fleetkit.dev/api/schemas/demo.sensor","title":"demo.sensor"}`)
	badType := write("badtype.json", `{"$id":"https://catalogue.fleetkit.dev/api/schemas/demo.sensor/versions/1.1","title":"demo.sensor","type":"text"}`)
	for _, tc := range []struct {
		args []string
		why  string
	}{
		{nil, "want two schema files"},
		{[]string{sensor}, "want two schema files"},
		{[]string{sensor, sensor, sensor}, "want two schema files"},
		{[]string{"-catalogue", fixture, sensor}, "-catalogue DIR alone"},
		{[]string{"-mode", "sideways", sensor, sensor}, `mode "sideways" is not full, backward or forward`},
		{[]string{"-nosuchflag", sensor, sensor}, "flag provided but not defined"},
		{[]string{sensor, filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{sensor, notJSON}, "bad.json"},
		{[]string{sensor, filepath.Join(dir, "badid.json")}, "is not https://catalogue.fleetkit.dev/api/schemas/<name>/versions/<version>"},
		{[]string{sensor, badType}, `"text" is not a JSON Schema type`},
		{[]string{sensor, "../../schemas/core.device-1.0.json"}, "not two versions of one schema"},
		{[]string{"-catalogue", filepath.Join(dir, "nothing")}, ""},
	} {
		stdout, stderr, code := runCompat(t, tc.args...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		assert.Empty(t, stdout, "%v", tc.args)
		assert.Contains(t, stderr, tc.why, "%v", tc.args)
	}
	_, _, code := runCompat(t, "-h")
	assert.Equal(t, 0, code)
}

func TestCompatBinaryExitStatus(t *testing.T) {
	_, _, code := runBinary(t, "compat", breaking+"demo.sensor-1.0.json", breaking+"demo.sensor-1.2.json")
	assert.Equal(t, 1, code)
	_, _, code = runBinary(t, "compat", "-catalogue", "../../schemas")
	assert.Equal(t, 0, code)
	_, _, code = runBinary(t, "compat")
	assert.Equal(t, 2, code)
}

func TestCompatJSONWritesAngleBracketsAsTheyAre(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixture + "demo.sensor-1.1.json")
	require.NoError(t, err)
	candidate := strings.Replace(strings.Replace(string(data), `"humidity"`, `"humidity", "<b>&"`, 1), "versions/1.1", "versions/1.2", 1)
	require.NoError(t, os.WriteFile(dir+"/c.json", []byte(candidate), 0o644))
	stdout, stderr, code := runCompat(t, "-json", fixture+"demo.sensor-1.1.json", dir+"/c.json")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, `"kind":"<b>&"`)
	assert.NotContains(t, stdout, `\u003c`)
	assert.Contains(t, stderr, "demo.sensor 1.2 is NOT compatible with demo.sensor 1.1 (full): 1 break, 0 warnings", "singular")
}

// TestCompatComparesAnyTwoSchemaFiles pins that two files whose $id is
// outside the catalogue's base are compared all the same: the $id is a
// warning, printed and in -json, and the exit status is the verdict's,
// not 2.
func TestCompatComparesAnyTwoSchemaFiles(t *testing.T) {
	write := writer(t, t.TempDir())
	schema := func(id, code string) string {
		return `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"` + id + `","title":"thing","type":"object",
			"required":["code"],"properties":{"code":` + code + `}}`
	}
	old := write("old.json", schema("https://example.com/schemas/thing/1", `{"type":"string","pattern":"^[A-Z]{3}$"}`))
	same := write("same.json", schema("https://example.com/schemas/thing/2", `{"type":"string","pattern":"^[A-Z][A-Z][A-Z]$"}`))
	narrower := write("narrower.json", schema("https://example.com/schemas/thing/3", `{"type":"string","pattern":"^[A-M]{3}$"}`))

	stdout, stderr, code := runCompat(t, old, same)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `msgcheck compat: warning: the old file's $id "https://example.com/schemas/thing/1" is outside the catalogue's base`)
	assert.Contains(t, stderr, `msgcheck compat: warning: the new file's $id "https://example.com/schemas/thing/2" is outside the catalogue's base`)

	stdout, stderr, code = runCompat(t, old, narrower)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, narrower+`: /properties/code: backward: pattern-changed: `)
	assert.Contains(t, stdout, `witness: {"code":"AAN"}`)

	stdout, _, code = runCompat(t, "-json", old, narrower)
	assert.Equal(t, 1, code)
	var r struct {
		Compatible bool
		Warnings   []string
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.False(t, r.Compatible)
	assert.Len(t, r.Warnings, 2)
}
