//go:build race

package nats

const raceEnabled = true
