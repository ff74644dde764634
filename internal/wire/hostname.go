package wire

import "github.com/fleetkit/catalogue/internal/format"

// CheckHostname checks a string of format hostname (see package format).
var CheckHostname = format.CheckHostname
