//go:build !race

package catalogue_test

const raceEnabled = false
