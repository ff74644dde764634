//go:build race

package compat_test

// raceEnabled shortens the slowest tests under the race detector, which
// makes them ten times slower and finds nothing more in them: they judge
// one pair at a time.
const raceEnabled = true
