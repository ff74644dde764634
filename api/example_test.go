package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/fleetkit/catalogue/api"
)

func ExampleHandler() {
	mux := http.NewServeMux()
	mux.Handle("/api/", api.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/schemas")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var list []struct {
		Name, Version, URL string
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		panic(err)
	}
	for _, s := range list {
		fmt.Println(s.Name, s.Version, s.URL)
	}

	schema, err := http.Get(srv.URL + list[0].URL)
	if err != nil {
		panic(err)
	}
	schema.Body.Close()
	fmt.Println(schema.Status, schema.Header.Get("Content-Type"))
	// Output:
	// core.association 1.0 /api/schemas/core.association/versions/1.0
	// core.device 1.0 /api/schemas/core.device/versions/1.0
	// core.vehicle 1.0 /api/schemas/core.vehicle/versions/1.0
	// example.event 1.0 /api/schemas/example.event/versions/1.0
	// 200 OK application/schema+json
}

// A producer in any language posts a message to its schema's validate URL
// and gets the verdict the Go library gives.
func ExampleHandler_validate() {
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()

	event := `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"archived","occurred_at":"2026-03-01T08:00:20Z"}`
	resp, err := http.Post(srv.URL+"/api/schemas/example.event/versions/1.0/validate", "application/json", strings.NewReader(event))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Status)
	fmt.Print(string(body))
	// Output:
	// 422 Unprocessable Entity
	// {"schema":"example.event","version":"1.0","valid":false,"violations":[{"path":"/type","rule":"enum","message":"want one of \"created\", \"updated\" or \"deleted\", got \"archived\"","value":"\"archived\""}]}
}

// The API in front of a service's own routes: every path that is, or
// looks like, the API's is answered by it, in JSON; the others go to the
// service's mux.
func ExampleFallback() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	})
	h := api.Handler(api.Fallback(mux))

	for _, path := range []string{"/healthz", "/api/schemas/core.nope/versions", "/api/schemas/../../etc/passwd"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 200 ok
	// 404 {"error":"unknown schema \"core.nope\"; known schemas: core.association, core.device, core.vehicle, example.event"}
	// 404 {"error":"no such resource: /api/schemas/../../etc/passwd"}
}

// A Confluent-style serializer that names subjects after topics
// (TopicNameStrategy) finds a schema through the topic subjects given to
// the Handler; every schema's own name is a subject too.
func ExampleSubjects() {
	subjects := map[string]string{"telemetry-value": "core.device"}
	if err := api.CheckSubjects(subjects); err != nil { // as from configuration
		panic(err)
	}
	srv := httptest.NewServer(api.Handler(api.Subjects(subjects)))
	defer srv.Close()

	for _, subject := range []string{"telemetry-value", "core.device", "orders-value"} {
		resp, err := http.Get(srv.URL + api.RegistryPath + "/subjects/" + subject + "/versions/latest")
		if err != nil {
			panic(err)
		}
		var answer struct {
			Subject   string
			ID        int32
			Version   int
			ErrorCode int `json:"error_code"`
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if err != nil {
			panic(err)
		}
		fmt.Println(subject, resp.StatusCode, answer.ID, answer.Version, answer.ErrorCode)
	}
	// Output:
	// telemetry-value 200 2 1 0
	// core.device 200 2 1 0
	// orders-value 404 0 0 40401
}
