package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
)

// TestCasesCountsUnderItsRule pins the count each rule wants: exactly one
// schema of a oneOf, at least one of an anyOf, none for a not.
func TestCasesCountsUnderItsRule(t *testing.T) {
	for _, tc := range []struct {
		rule msg.Rule
		n    int
		ok   bool
	}{
		{msg.RuleOneOf, 0, false}, {msg.RuleOneOf, 1, true}, {msg.RuleOneOf, 2, false},
		{msg.RuleAnyOf, 0, false}, {msg.RuleAnyOf, 1, true}, {msg.RuleAnyOf, 3, true},
		{msg.RuleNot, 0, true}, {msg.RuleNot, 1, false},
	} {
		var e Errors
		e.Cases("", "/a", tc.rule, tc.n, 3)
		if tc.ok {
			assert.NoError(t, e.Err(), "%s %d", tc.rule, tc.n)
			continue
		}
		var me *msg.Error
		require.ErrorAs(t, e.Err(), &me, "%s %d", tc.rule, tc.n)
		assert.Equal(t, tc.rule, me.Violations[0].Rule)
		assert.Equal(t, "/a", me.Violations[0].Path)
	}
}

// TestCaseErrorsCountWithoutAllocating pins that a case's errors only
// count failing checks: a case that fails allocates nothing.
func TestCaseErrorsCountWithoutAllocating(t *testing.T) {
	c := CaseErrors()
	assert.True(t, c.Passed())
	c.Min("", "/a", 1, 2)
	assert.False(t, c.Passed())
	allocs := testing.AllocsPerRun(100, func() {
		c := CaseErrors()
		c.Min("", "/a", 1, 2)
		c.MaxLength("", "/a", "abcdef", 2)
		if c.Passed() {
			t.Fatal("passed")
		}
	})
	assert.Zero(t, allocs)
}

// TestAbsorbKeepsTheLimit pins that absorbed violations keep their paths
// and stop at msg.MaxViolations, counting the rest.
func TestAbsorbKeepsTheLimit(t *testing.T) {
	var e, o Errors
	for range msg.MaxViolations - 1 {
		e.Required("", "/x")
	}
	o.Required("/m", "/y")
	o.Required("/m", "/z")
	e.Absorb(&o)
	var me *msg.Error
	require.ErrorAs(t, e.Err(), &me)
	assert.Len(t, me.Violations, msg.MaxViolations)
	assert.Equal(t, "/m/y", me.Violations[msg.MaxViolations-1].Path)
	assert.Equal(t, 1, me.Omitted)
}

// TestConditionalNamesTheBranch pins that a value that fails the branch
// its if picks breaks rule then or else, and one that passes it nothing.
func TestConditionalNamesTheBranch(t *testing.T) {
	for _, tc := range []struct {
		passedIf, passed bool
		want             msg.Rule
	}{{true, true, ""}, {false, true, ""}, {true, false, msg.RuleThen}, {false, false, msg.RuleElse}} {
		var e Errors
		e.Conditional("", "/a", tc.passedIf, tc.passed)
		if tc.want == "" {
			assert.NoError(t, e.Err())
			continue
		}
		var me *msg.Error
		require.ErrorAs(t, e.Err(), &me)
		assert.Equal(t, tc.want, me.Violations[0].Rule)
	}
}

// TestContainsCountsBothBounds pins the rule each bound of contains
// breaks: too few passing items break contains, too many maxContains.
func TestContainsCountsBothBounds(t *testing.T) {
	for _, tc := range []struct {
		n, min, max int
		want        msg.Rule
	}{{1, 1, -1, ""}, {0, 1, -1, msg.RuleContains}, {0, 0, 0, ""}, {3, 1, 2, msg.RuleMaxContains}, {2, 1, 2, ""}} {
		var e Errors
		e.Contains("", "/a", tc.n, tc.min, tc.max)
		if tc.want == "" {
			assert.NoError(t, e.Err(), "%+v", tc)
			continue
		}
		var me *msg.Error
		require.ErrorAs(t, e.Err(), &me, "%+v", tc)
		assert.Equal(t, tc.want, me.Violations[0].Rule)
	}
}

// TestDependentSchemaNamesTheMember pins that an object failing the
// schema of a member it has breaks rule dependentSchemas, naming it.
func TestDependentSchemaNamesTheMember(t *testing.T) {
	var e Errors
	e.DependentSchema("", "/a", "b", true)
	require.NoError(t, e.Err())
	e.DependentSchema("", "/a", "b", false)
	var me *msg.Error
	require.ErrorAs(t, e.Err(), &me)
	assert.Equal(t, msg.RuleDependentSchemas, me.Violations[0].Rule)
	assert.Contains(t, me.Violations[0].Message, `"b"`)
}
