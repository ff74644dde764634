//go:build race

package jsontext

// raceEnabled says the race detector is on, under which sync.Pool drops
// a share of what is put in it, on purpose, so that a pooled table is
// sometimes made afresh.
const raceEnabled = true
