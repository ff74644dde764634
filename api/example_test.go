package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

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
