package shadow_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs shadow.md §8's scenarios through the engine, one a
// file in testdata/; the `policy shadow k=v` lines take a campaign's args.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}

// TestBadArgs checks that an arg out of its range is refused with a
// message naming it, and that the defaults build.
func TestBadArgs(t *testing.T) {
	for arg, val := range map[string]string{
		"theta": "-1", "shuffle_model": "down", "reduce_placement": "anywhere", "rack_locality_delay": "-2",
	} {
		_, err := policy.ScenarioFactory("shadow", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	if _, err := policy.ScenarioFactory("shadow", nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
