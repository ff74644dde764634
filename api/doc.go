// Package api serves the message-schema catalogue over HTTP: the list of
// schemas, the versions of each, each schema file byte for byte, and the
// library's verdict on a message, so that producers in any language get the
// answer Go producers get.
//
// Handler is a value you mount in any Go service. Its routes carry the full
// /api/ prefix, so mount it at "/api/" without http.StripPrefix:
//
//	mux := http.NewServeMux()
//	mux.Handle("/api/", api.Handler())
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
//
// The routes:
//
//	GET  /api/schemas                                     every schema: [{"name", "version", "id", "url"}]
//	GET  /api/schemas/{name}/versions                     the versions of one schema, in the same shape
//	GET  /api/schemas/{name}/versions/{version}           the schema file, exactly as published
//	POST /api/schemas/{name}/versions/{version}/validate  the verdict on the message in the body
//
// The validation route judges the request body, whatever its Content-Type,
// by exactly the named version's schema file, as decoding the message in Go
// with package catalogue's DecodeAs does (under an earlier minor, a member
// only a later minor declares is an unknown member like any other): 200 with {"valid":true}, or 422 Unprocessable Content with
//
//	{"valid":false,"violations":[{"path":"/imei","rule":"imei","message":"not an IMEI: check digit is 9, want 8","value":"\"490154203237519\""}]}
//
// listing every violation, each with its JSON Pointer ("" for the document),
// rule, message and offending JSON text ("value", absent where no value is
// at fault). A body over MaxMessageBytes (1 MiB) is answered 413.
//
// A schema file is immutable once published, so it is served with a strong
// ETag and "Cache-Control: public, max-age=31536000, immutable", and a
// conditional GET with a matching If-None-Match is answered 304 Not Modified.
//
// Errors are JSON, {"error": "..."}: 404 for an unknown schema, version or
// path under /api/, 405 with an Allow header for a method a route does not
// serve, and 413 for a message too large to judge.
//
// The "id" of a schema is its $id as published, under schemas.BaseURL. The
// catalogue has been published under both http and https, so a client that
// resolves a schema by its $id must treat the two schemes as the same (as
// schemas.LookupID does); the API itself addresses schemas by name and
// version only.
package api
