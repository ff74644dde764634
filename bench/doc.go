// Package bench compares the library's generated message types with the
// usual alternatives on the same inputs: encoding/json into a plain struct
// (the baseline), go-jsonschema's and ogen's generated code, and a general
// JSON Schema validator. It holds only benchmarks; README.md says how to run
// them and what they found.
package bench
