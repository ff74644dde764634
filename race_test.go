//go:build race

package catalogue_test

// raceEnabled says the race detector is on, under which sync.Pool drops a
// share of what is put in it, on purpose: a decoder's pooled table of
// member names is then sometimes made afresh.
const raceEnabled = true
