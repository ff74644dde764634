// Package api serves the message-schema catalogue over HTTP: the list of
// schemas, the versions of each, each schema file byte for byte, and the
// library's verdict on a message, so that producers in any language get the
// answer Go producers get; and, under RegistryPath, the schema-registry
// protocol, so that Confluent-style serializers fetch the catalogue's
// schemas unchanged (see RegistryPath for its routes).
//
// Handler is a value you mount in any Go service. Its routes carry the full
// /api/ prefix, so mount it at "/api/" without http.StripPrefix:
//
//	mux := http.NewServeMux()
//	mux.Handle("/api/", api.Handler())
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
//
// A ServeMux, though, answers a path that is not clean (//api/schemas,
// /api/../x) itself, with a redirect and an HTML body, before the API sees
// it. To have every path under /api/ answered in JSON, make the API the
// server's handler, and give it the service's other routes to fall back on:
//
//	mux := http.NewServeMux()
//	mux.HandleFunc("GET /healthz", healthz)
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", api.Handler(api.Fallback(mux))))
//
// The routes:
//
//	GET  /api/schemas                                     every schema: [{"name", "version", "id", "url"}]
//	GET  /api/schemas/{name}/versions                     the versions of one schema, in the same shape
//	GET  /api/schemas/{name}/versions/{version}           the schema file, exactly as published
//	POST /api/schemas/{name}/versions/{version}/validate  the verdict on the message in the body
//	POST /api/schemas/{name}/versions/{version}/compatibility  package compat's report on the proposed version in the body
//	     /api/registry/...                                the schema-registry protocol (RegistryPath)
//
// The validation route judges the request body, whatever its Content-Type,
// by exactly the named version's schema file, as decoding the message in Go
// with package catalogue's DecodeAs does (under an earlier minor, a member
// only a later minor declares is an unknown member like any other): 200 with
//
//	{"schema":"core.device","version":"1.0","valid":true}
//
// or 422 Unprocessable Content with
//
//	{"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/imei","rule":"imei","message":"not an IMEI: check digit is 9, want 8","value":"\"490154203237519\""}]}
//
// listing the violations, each with its JSON Pointer ("" for the document),
// rule, message and offending JSON text ("value", absent where no value is
// at fault, shortened when long). It lists at most msg.MaxViolations (100);
// "omitted", absent when zero, counts those found after them, so that the
// answer to any body stays under 64 KiB. A body over MaxMessageBytes
// (1 MiB) is answered 413, and one that stops arriving before its end 408
// (at the server's read time-out) or 400.
//
// The validation route holds at most MaxBodies request bodies at once,
// read or being read (by default DefaultMaxBodies: eight per CPU, at least
// 16), so that a flood of large messages costs a bounded amount of memory;
// beyond them it answers 503 Service Unavailable with Retry-After, at once.
// A body of up to 16 KiB whose length is announced, as a producer's
// message usually is, takes none of these places: it is read as it
// arrives, then judged among a few working places per CPU, so that
// clients sending their bodies slowly, however many, cannot keep the
// others from being answered.
// The compatibility route's bodies take places among the same ones (and
// it runs at most one comparison per CPU at once: a comparison beyond
// waits for its turn, up to five seconds, then is answered 503).
// The other routes serve precomputed bytes and are never turned away. A
// client that sends a large body slowly holds its place until the
// server's read time-out ends it: give the http.Server a ReadTimeout, as
// msgcheck serve does. No place is held while an answer is written.
//
// A request that carries CloudEvents attributes in binary mode (any ce-*
// header, as a message travels on a broker: see package ce) is judged with
// them: each must agree with the body and the route's schema (a
// ce-dataschema or ce-type naming another schema, a ce-id that is not the
// message's, a Content-Type other than application/json), and one that
// does not is a violation of rule "header" in the 422 answer.
//
// A schema file is immutable once published, so it is served with a strong
// ETag and "Cache-Control: public, max-age=31536000, immutable", and a
// conditional GET with a matching If-None-Match is answered 304 Not Modified.
//
// Errors are JSON, {"error": "..."}, and name what went wrong, never a
// socket address or an error of Go's: 404 for an unknown schema, version or
// path under /api/ (an unknown schema or version is 404 whatever the
// method), or for a path that is not clean; 405 with an Allow header for a
// method a route does not serve (OPTIONS is answered 204 with the same
// Allow header); 408 or 400 for a body that could not be
// read; 413 for a message too large to judge; 503 with Retry-After when
// too many bodies are held.
//
// The "id" of a schema is its $id as published, under schemas.BaseURL. The
// catalogue has been published under both http and https, so a client that
// resolves a schema by its $id must treat the two schemes as the same (as
// schemas.LookupID does); the API itself addresses schemas by name and
// version only.
package api
