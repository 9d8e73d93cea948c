package corral_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs the runtime scenarios in testdata/, one a file; the
// `policy corral k=v` lines take the args a campaign would.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}

// TestBadArgs checks that an arg outside its range is refused with a
// message naming the arg.
func TestBadArgs(t *testing.T) {
	for arg, val := range map[string]string{
		"objective": "fastest", "placement": "anywhere", "second_rack": "far", "alpha": "-1",
		"map_rate": "-2", "background": "1", "node_delay": "-1", "fail_threshold": "2", "slow_start": "3",
	} {
		_, err := policy.ScenarioFactory("corral", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	if _, err := policy.ScenarioFactory("corral", nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
