package wire

import (
	"strconv"

	"github.com/fleetkit/catalogue/msg"
)

// Cases checks the count n of the total schemas of a oneOf or an anyOf
// (rule) beside a type that accept the value at base+name: exactly one
// for a oneOf, at least one for an anyOf.
func (e *Errors) Cases(base, name string, rule msg.Rule, n, total int) {
	if n == 1 || n > 1 && rule == msg.RuleAnyOf {
		return
	}
	e.badCases(base, name, rule, n, total)
}

func (e *Errors) badCases(base, name string, rule msg.Rule, n, total int) {
	if e.Full() {
		e.Omit()
		return
	}
	want := "want exactly one of the " + strconv.Itoa(total) + " schemas of its oneOf to accept the value, got " + strconv.Itoa(n)
	if rule == msg.RuleAnyOf {
		want = "want at least one of the " + strconv.Itoa(total) + " schemas of its anyOf to accept the value, got none"
	}
	e.Add(base, name, rule, "", want)
}
