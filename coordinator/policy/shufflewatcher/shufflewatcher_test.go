package shufflewatcher_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs the spec scenarios in testdata/, one a file; the
// `policy shufflewatcher k=v` lines take the args a campaign would.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}

// TestBadArgs checks that an arg outside its choices is refused with a
// message naming the arg.
func TestBadArgs(t *testing.T) {
	for arg, val := range map[string]string{
		"map_racks": "two", "reduce_racks": "anywhere", "network": "nic",
		"order": "lifo", "threshold": "-1", "slow_start": "2", "node_delay": ".inf",
		"map_hosts": "near", "reduce_hosts": "all", "rx_ema_alpha": "0",
	} {
		_, err := policy.ScenarioFactory("shufflewatcher", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	if _, err := policy.ScenarioFactory("shufflewatcher", map[string]string{"node_delay": "2", "rack_delay": "1"}); err == nil || !strings.Contains(err.Error(), "rack_delay") {
		t.Errorf("rack_delay below node_delay: error %v, want one naming rack_delay", err)
	}
	if _, err := policy.ScenarioFactory("shufflewatcher", nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
