package pushbox_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs pushbox.md §8's scenarios in testdata/, one a file;
// the `policy pushbox k=v` lines take the args a campaign would.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}

// TestBadArgs checks that an arg outside its range is refused with a
// message naming the arg, and that the defaults build.
func TestBadArgs(t *testing.T) {
	for arg, val := range map[string]string{
		"m": "0", "ema_alpha": "0", "node_delay": "-1", "rack_delay": "0.5", "rack_local": "maybe",
		"classes": "0", "gp_bin_bytes": "0", "error_factor": "0.5", "coflow_size": "half", "min_coflow": "some",
	} {
		_, err := policy.ScenarioFactory("pushbox", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	if _, err := policy.ScenarioFactory("pushbox", nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
