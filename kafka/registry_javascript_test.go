package kafka_test

// Interoperability of the catalogue's registry protocol (package api,
// /api/registry) with JavaScript's schema-registry clients from npm,
// which nobody here wrote: Confluent's own @confluentinc/schemaregistry
// and the community's @kafkajs/confluent-schema-registry, at the
// versions testdata/js/package-lock.json pins (npm ci there installs
// them; CI does).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// jsDir holds the scripts and the lock file of the JavaScript clients.
const jsDir = "testdata/js"

// needNode returns the path of node if it runs the clients, installed in
// jsDir, and otherwise skips the test, or fails it in CI, which installs
// them.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		cmd := exec.Command(node, "-e", `for (const p of ["@confluentinc/schemaregistry", "@kafkajs/confluent-schema-registry", "ajv-formats"]) require(p)`)
		cmd.Dir = jsDir
		var out []byte
		if out, err = cmd.CombinedOutput(); err != nil {
			// Node's first line is where; the one that says what is later.
			if _, what, ok := bytes.Cut(out, []byte("Error: ")); ok {
				out, _, _ = bytes.Cut(what, []byte("\n"))
			}
			err = fmt.Errorf("%w: %s", err, out)
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: CI installs Node.js and runs npm ci in kafka/%s", err, jsDir)
		}
		t.Skipf("%v: install Node.js and run npm ci in kafka/%s", err, jsDir)
	}
	return node
}

// jsTopics are the topics whose -value subjects the registry of the
// tests maps to each schema, as msgcheck serve -subject does.
var jsTopics = map[string]string{
	"core.association": "associations",
	"core.device":      "devices",
	"core.vehicle":     "vehicles",
	"example.event":    "events",
}

// jsCase is what a script is given for one schema: a valid message, an
// invalid one, and what this module's producer framed of the valid one.
type jsCase struct {
	Topic   string            `json:"topic"`
	Message json.RawMessage   `json:"message"`
	Invalid json.RawMessage   `json:"invalid"`
	Framed  []byte            `json:"framed"`
	Headers map[string]string `json:"headers"`
	// Beyond is a message the schema accepts and the catalogue refuses
	// (a wrong IMEI check digit), for core.device alone.
	Beyond json.RawMessage `json:"beyond,omitempty"`

	want msg.Message    // the valid message, decoded
	kind schemas.Schema // its schema
}

// idMember is the name of the member, a uuid, that names a message of
// the schema name.
func idMember(name string) string {
	if name == "example.event" {
		return "id"
	}
	return "message_id"
}

// jsCases returns a case for each schema of the catalogue, by name.
func jsCases(t *testing.T) map[string]*jsCase {
	t.Helper()
	ms, lines := samples(t)
	cases := map[string]*jsCase{}
	for i, m := range ms {
		name := m.SchemaName()
		if cases[name] != nil {
			continue
		}
		s, err := schemas.Lookup(name, m.SchemaVersion())
		require.NoError(t, err)
		// Invalid only by a format, which a validator checks only when
		// it is given formats: the message's own uuid is not one.
		var v map[string]any
		require.NoError(t, json.Unmarshal(lines[i], &v))
		v[idMember(name)] = "not-a-uuid"
		invalid, err := json.Marshal(v)
		require.NoError(t, err)
		_, err = catalogue.DecodeAs(name, s.Version, invalid)
		require.Error(t, err, "the catalogue refuses %s", invalid)

		r, err := kafka.Record(jsTopics[name], m, true)
		require.NoError(t, err)
		headers := map[string]string{}
		for _, h := range r.Headers {
			headers[h.Key] = string(h.Value)
		}
		cases[name] = &jsCase{
			Topic: jsTopics[name], Message: lines[i], Invalid: invalid, Framed: r.Value, Headers: headers,
			want: m, kind: s,
		}
		var beyond map[string]any
		require.NoError(t, json.Unmarshal(lines[i], &beyond))
		if imei, ok := beyond["imei"].(string); ok && len(imei) == 15 {
			beyond["imei"] = imei[:14] + string('0'+(imei[14]-'0'+1)%10) // another check digit
			cases[name].Beyond, err = json.Marshal(beyond)
			require.NoError(t, err)
		}
	}
	return cases
}

// runJS runs a script of jsDir against a registry serving cases' topic
// subjects, and returns its answer: for each call, by name, "ok " and
// what it returned in JSON, "error " and the registry's status and code
// (or message), or "refused " and the error the client raised itself.
// Values the client framed and messages it read are checked here, and
// answered "ok framed" and "ok read".
func runJS(t *testing.T, script string, cases map[string]*jsCase) map[string]string {
	t.Helper()
	node := needNode(t)
	subjects := map[string]string{}
	for name, c := range cases {
		subjects[c.Topic+"-value"] = name
	}
	srv := httptest.NewServer(api.Handler(api.Subjects(subjects)))
	t.Cleanup(srv.Close)

	request, err := json.Marshal(cases)
	require.NoError(t, err)
	cmd := exec.Command(node, script, srv.URL+api.RegistryPath)
	cmd.Dir = jsDir
	out := output(t, cmd, request)

	var answer map[string]struct {
		OK      json.RawMessage `json:"ok"`
		Error   []any           `json:"error"`
		Refused *string         `json:"refused"`
	}
	require.NoError(t, json.Unmarshal(out, &answer), "%s", out)
	got := map[string]string{}
	for call, a := range answer {
		switch {
		case a.Refused != nil:
			got[call] = "refused " + *a.Refused
		case a.Error != nil:
			got[call] = "error " + strings.Trim(fmt.Sprint(a.Error), "[]")
		default:
			got[call] = "ok " + string(a.OK)
		}
		fields := strings.Fields(call)
		if len(fields) < 2 || a.OK == nil {
			continue
		}
		c := cases[fields[1]]
		switch verb := fields[0]; {
		case c == nil:
		case strings.HasSuffix(call, " beyond the schema"):
			// Framed by the client, refused by the consumer, by the
			// rule the client's validator does not have.
			var value []byte
			require.NoError(t, json.Unmarshal(a.OK, &value), "%s: %s", call, a.OK)
			_, err := kafka.Decode(catalogue.Kinds, &kgo.Record{Topic: c.Topic, Value: value})
			var invalid *msg.Error
			require.ErrorAs(t, err, &invalid, call)
			got[call] = "ok framed, refused by the consumer:"
			for _, v := range invalid.Violations {
				got[call] += fmt.Sprintf(" %s %s", v.Path, v.Rule)
			}
		case verb == "serialize" || verb == "encode":
			var value []byte
			require.NoError(t, json.Unmarshal(a.OK, &value), "%s: %s", call, a.OK)
			requireFramed(t, c, value, call)
			got[call] = "ok framed"
		case verb == "deserialize" || verb == "decode":
			m, err := catalogue.DecodeAs(c.kind.Name, c.kind.Version, a.OK)
			require.NoError(t, err, "%s: %s", call, a.OK)
			assert.Equal(t, c.want, m, call)
			got[call] = "ok read"
		}
	}
	return got
}

// output runs cmd, request on its standard input, and returns its
// standard output; the test fails, with its standard error, if it fails.
func output(t *testing.T, cmd *exec.Cmd, request []byte) []byte {
	t.Helper()
	cmd.Stdin = bytes.NewReader(request)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	return out
}

// requireFramed checks that value, framed by a client, is c's message
// framed with its schema's registry id, which this module's consumer
// decodes exactly.
func requireFramed(t *testing.T, c *jsCase, value []byte, call string) {
	t.Helper()
	id, _, framed, err := kafka.Unframe(value)
	require.NoError(t, err, call)
	require.True(t, framed, call)
	assert.Equal(t, c.kind.RegistryID, id, call)
	m, identity, err := kafka.DecodeIdentity(catalogue.Kinds, &kgo.Record{Topic: c.Topic, Value: value})
	require.NoError(t, err, "%s: %q", call, value)
	assert.Equal(t, c.want, m, call)
	assert.Equal(t, c.kind.Name, identity.Kind.Name, call)
}

// judge compares the calls' answers with want, where a want of "refused"
// is a part of the client's own error that its message must contain.
func judge(t *testing.T, want, got map[string]string) {
	t.Helper()
	t.Logf("%d calls", len(got))
	assert.Equal(t, slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)), "the calls")
	for call, w := range want {
		if g, ok := got[call]; ok && strings.HasPrefix(w, "refused ") {
			assert.True(t, strings.HasPrefix(g, "refused ") && strings.Contains(g, strings.TrimPrefix(w, "refused ")), "%s: got %s, want %s", call, g, w)
		} else if ok {
			assert.Equal(t, w, g, call)
		}
	}
}

// TestConfluentJavaScriptClientUsesTheCatalogue: Confluent's JavaScript
// serializer frames a message of every schema with the catalogue's id
// whether it names the subject after the topic or the schema, told the
// latest version or the id, and validating by the schema (given ajv's
// formats, without which ajv refuses every schema of the catalogue, as it
// would any schema with a format), while the consumer still refuses what
// only the catalogue's rules refuse (an IMEI's check digit); its
// deserializer reads what this module's producer framed; and every admin
// call of its client gets what Confluent's registry answers for a
// read-only catalogue.
func TestConfluentJavaScriptClientUsesTheCatalogue(t *testing.T) {
	cases := jsCases(t)
	require.NotNil(t, cases["core.device"].Beyond, "the sample device has an IMEI")
	got := runJS(t, "confluent.js", cases)

	want := map[string]string{}
	for name, c := range cases {
		for _, config := range []string{"useLatestVersion", "useSchemaId", "useLatestVersion TOPIC", "useLatestVersion ASSOCIATED only", "useLatestVersion schema name"} {
			want["serialize "+name+" "+config] = "ok framed"
		}
		// The client's record strategies name the subject '' before
		// they have the schema, which is what they are to fetch:
		// GET /subjects//versions/latest, POST /subjects/.
		want["serialize "+name+" useLatestVersion RECORD"] = "error 404 404"
		want["serialize "+name+" useSchemaId TOPIC_RECORD"] = "error 405 405"
		// A schema derived from the message is not the catalogue's.
		want["serialize "+name+" autoRegisterSchemas"] = "error 422 42205"
		want["serialize "+name+" derived"] = "error 404 40403"
		// Told to register and to use the latest version, the client
		// registers a schema it has not fetched, and fails on its own.
		want["serialize "+name+" autoRegisterSchemas useLatestVersion"] = "refused TypeError: Cannot read properties of undefined"
		pointer := "/" + idMember(name)
		want["serialize "+name+" invalid"] = `refused SerializationError: Invalid message: [{"instancePath":"` + pointer + `","schemaPath":"#/properties` + pointer + `/format","keyword":"format","params":{"format":"uuid"}`
		want["serialize "+name+" without formats"] = `refused Error: unknown format "`
		want["serialize "+name+" formats not validated"] = "ok framed"
		if c.Beyond != nil {
			want["serialize "+name+" beyond the schema"] = "ok framed, refused by the consumer: /imei imei"
		}
		want["deserialize "+name+" ASSOCIATED"] = "ok read" // the default
		want["deserialize "+name+" TOPIC"] = "ok read"
		want["deserialize "+name+" RECORD"] = "ok read" // GET /schemas/ids/{id}?subject=
		want["deserialize "+name+" TOPIC useLatestVersion"] = "ok read"
	}

	// The admin calls, on the first schema by name and its topic's subject.
	name := "core.association"
	subject := cases[name].Topic + "-value"
	id := fmt.Sprint(cases[name].kind.RegistryID)
	want["getAllSubjects"] = `ok ["associations-value","core.association","core.device","core.vehicle","devices-value","events-value","example.event","vehicles-value"]`
	for _, s := range []string{name, subject, ":.:" + name} {
		for call, w := range map[string]string{
			"getAllVersions":              "ok [1]",
			"getLatestSchemaMetadata":     "ok " + id,
			"getSchemaMetadata 1":         "ok " + id,
			"getSchemaMetadata 1 deleted": "ok " + id,
			"getId":                       "ok " + id,
			"getId normalize":             "ok " + id,
			"getVersion":                  "ok 1",
			"register":                    "ok " + id,
			"getBySubjectAndId":           "ok true",
			"testSubjectCompatibility":    "ok true",
			"testCompatibility 1":         "ok true",
			"getCompatibility":            `ok "FULL_TRANSITIVE"`,
			"getConfig":                   `ok {"compatibilityLevel":"FULL_TRANSITIVE"}`,
		} {
			verb, rest, _ := strings.Cut(call, " ")
			want[strings.TrimSpace(verb+" "+s+" "+rest)] = w
		}
	}
	for call, w := range map[string]string{
		"getSchemaMetadata nothing 1":         "error 404 40401",
		"getSchemaMetadata NAME 2":            "error 404 40402",
		"getLatestWithMetadata NAME":          "error 404 40403", // the catalogue's versions have no metadata
		"register NAME other":                 "error 422 42205",
		"register other-value":                "error 422 42205",
		"getId NAME other":                    "error 404 40403",
		"testCompatibility NAME other":        "error 422 42201",
		"getBySubjectAndId unknown id":        "error 404 40403",
		"getByGuid":                           "error 404 40403",
		"getDefaultCompatibility":             `ok "FULL_TRANSITIVE"`,
		"getDefaultConfig":                    `ok {"compatibilityLevel":"FULL_TRANSITIVE"}`,
		"getCompatibility other-value":        "error 404 40408",
		"updateCompatibility as it is":        `ok "FULL_TRANSITIVE"`,
		"updateCompatibility NONE":            "error 422 42205",
		"updateDefaultCompatibility as it is": `ok "FULL_TRANSITIVE"`,
		"updateConfig as it is":               `ok {"compatibility":"FULL_TRANSITIVE"}`,
		"updateConfig normalize":              "error 422 42205",
		"updateDefaultConfig as it is":        `ok {"compatibility":"FULL_TRANSITIVE"}`,
		"deleteSubject":                       "error 422 42205",
		"deleteSubject permanent":             "error 422 42205",
		"deleteSubjectVersion":                "error 422 42205",
		// The topic's subject, which -subject maps, is its association.
		"getAssociationsByResourceName":       `ok [{"subject":"associations-value","resourceName":"associations","resourceNamespace":"-","resourceType":"topic","associationType":"value","lifecycle":"WEAK","frozen":false}]`,
		"getAssociationsByResourceName other": "ok []",
		"createAssociation":                   "error 422 42205",
	} {
		want[strings.ReplaceAll(call, "NAME", name)] = w
	}
	judge(t, want, got)
}

// TestKafkaJSClientUsesTheCatalogue: the community's JavaScript client
// encodes a message of every schema with the catalogue's id, validating
// it (given an ajv that knows draft 2020-12 and the formats, as its own
// does not), decodes what this module's producer framed, finds the ids
// of the catalogue's versions and schemas, and registers a schema of the
// catalogue (its id) or refuses to register another (the registry's
// read-only error, whose status and message it keeps).
func TestKafkaJSClientUsesTheCatalogue(t *testing.T) {
	cases := jsCases(t)
	got := runJS(t, "kafkajs.js", cases)

	want := map[string]string{}
	for name, c := range cases {
		id := fmt.Sprint(c.kind.RegistryID)
		subject := c.Topic + "-value"
		for _, s := range []string{name, subject} {
			want["getLatestSchemaId "+s] = "ok " + id
			want["register "+s] = "ok " + id
			want["getRegistryIdBySchema "+s] = "ok " + id
		}
		for _, version := range []string{"1", "latest", "1.0"} {
			want["getRegistryId "+name+" "+version] = "ok " + id
		}
		want["getRegistryId "+name+" 2"] = fmt.Sprintf(`error 404 Confluent_Schema_Registry - version "2" of subject %q not found`, name)
		want["encode "+name] = "ok framed"
		pointer := "/" + idMember(name)
		want["encode "+name+" invalid"] = `refused ConfluentSchemaRegistryValidationError: invalid payload [["` + pointer + `"]]`
		want["decode "+name] = "ok read"
		want["encode "+name+" without formats"] = map[bool]string{
			true:  `refused ConfluentSchemaRegistryArgumentError: no schema with key or ref "https://json-schema.org/draft/2020-12/schema"`,
			false: `refused ConfluentSchemaRegistryArgumentError: unknown format "uuid" ignored in schema at path "#/properties/message_id"`,
		}[name == "example.event"]
		// The client registers only where the level is the one it is
		// told, BACKWARD unless told: the catalogue's is FULL_TRANSITIVE.
		want["register "+name+" BACKWARD"] = "refused ConfluentSchemaRegistryCompatibilityError: Compatibility does not match the configuration (BACKWARD != FULL_TRANSITIVE)"
		want["register "+name+" under other-value"] = fmt.Sprintf(`error 422 Confluent_Schema_Registry - subject "other-value" is not served: it is no schema's name, and no topic subject maps to it; the catalogue is read-only, but the schema is %s's, which the operator serves under this subject with -subject other-value=%[1]s (api.Subjects)`, name)
	}
	want["register core.association core.device"] = `error 422 Confluent_Schema_Registry - subject "core.association" is read-only: the catalogue publishes a new version through its own repository (decision 13), not by registration; the schema is "core.device", not "core.association", the schema of subject "core.association"`
	want["getRegistryIdBySchema core.association core.device"] = `refused ConfluentSchemaRegistryError: Confluent_Schema_Registry - the schema is not a version of subject "core.association": it differs from version 1 (1.0) at "/$id"`
	want["getLatestSchemaId core.nothing"] = `error 404 Confluent_Schema_Registry - subject "core.nothing" not found: the subjects are the schemas' names and the topic subjects given to the service (associations-value, devices-value, events-value, vehicles-value); serve another with msgcheck serve -subject core.nothing=NAME (api.Subjects)`
	want["decode unknown id"] = `error 404 Confluent_Schema_Registry - schema "99" not found`
	judge(t, want, got)
}
