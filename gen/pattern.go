package main

import "github.com/fleetkit/catalogue/internal/pattern"

// ecmaToRE2 returns the RE2 expression that matches exactly the strings
// the ECMA-262 pattern p matches, or why there is none. It lives in
// internal/pattern, which the compatibility checker reads patterns with
// too.
func ecmaToRE2(p string) (string, error) { return pattern.ToRE2(p) }
