package wire

import (
	"strconv"

	"github.com/fleetkit/catalogue/msg"
)

// full is a list of violations already full, shared and never written:
// errors that start with it count each failing check, and allocate
// nothing, since a check records no violation in full errors.
var full = make([]*msg.Violation, msg.MaxViolations)

// CaseErrors returns the errors one schema of a oneOf or an anyOf beside
// a type checks a value into (see Cases): they only count the checks
// that fail, so that a case that does not pass costs no allocation.
func CaseErrors() Errors { return Errors{list: full[:len(full):len(full)]} }

// Passed reports whether no check failed into e, errors from CaseErrors.
func (e *Errors) Passed() bool { return e.omitted == 0 }

// Cases checks the count n of the total schemas of a oneOf, an anyOf or
// a not (rule) beside a type that accept the value at base+name: exactly
// one for a oneOf, at least one for an anyOf, none for a not.
func (e *Errors) Cases(base, name string, rule msg.Rule, n, total int) {
	if rule == msg.RuleNot {
		if n == 0 {
			return
		}
	} else if n == 1 || n > 1 && rule == msg.RuleAnyOf {
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
	switch rule {
	case msg.RuleAnyOf:
		want = "want at least one of the " + strconv.Itoa(total) + " schemas of its anyOf to accept the value, got none"
	case msg.RuleNot:
		want = "want a value the schema of its not refuses"
	}
	e.Add(base, name, rule, "", want)
}

// Conditional checks an if, a then and an else beside a type: the value
// at base+name, which passed the schema of the if or not (passedIf), must
// have passed that of the then, or of the else (passed).
func (e *Errors) Conditional(base, name string, passedIf, passed bool) {
	if passed {
		return
	}
	if e.Full() {
		e.Omit()
		return
	}
	if passedIf {
		e.Add(base, name, msg.RuleThen, "", "want a value the schema of its then accepts, as its if accepts it")
		return
	}
	e.Add(base, name, msg.RuleElse, "", "want a value the schema of its else accepts, as its if refuses it")
}

// Contains checks that n items of the array at base+name, those that
// pass the schema of its contains, are at least min and, unless max is
// negative, at most max.
func (e *Errors) Contains(base, name string, n, min, max int) {
	if n >= min && (max < 0 || n <= max) {
		return
	}
	if e.Full() {
		e.Omit()
		return
	}
	if n < min {
		e.Add(base, name, msg.RuleContains, "", "want at least "+strconv.Itoa(min)+" items that pass the schema of its contains, got "+strconv.Itoa(n))
		return
	}
	e.Add(base, name, msg.RuleMaxContains, "", "want at most "+strconv.Itoa(max)+" items that pass the schema of its contains, got "+strconv.Itoa(n))
}

// DependentSchema records, unless passed, that the object at base+name,
// which has the member named member, fails the schema its
// dependentSchemas gives that member.
func (e *Errors) DependentSchema(base, name, member string, passed bool) {
	if passed {
		return
	}
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleDependentSchemas, "", "want an object the schema of its dependentSchemas for "+Quote(member)+" accepts, as it has that member")
}
