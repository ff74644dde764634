// Package vocabulary holds the Go types generated from the fixture
// catalogue in testdata/fixture-vocabulary: a made-up schema (demo.reading
// 1.0) that uses every keyword the generator supports, so that the
// vocabulary is generated, and held to the oracle, on a schema of the
// catalogue's own kind rather than only on the official suite's groups.
// Kinds is the table of its versions, generated as package catalogue's
// is.
package vocabulary
