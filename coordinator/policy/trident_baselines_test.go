package policy_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestTridentBaselineScenarios runs testdata/trident: trident.md's §8
// scenarios for the paper's Default baselines (sparkdefault, Spark 2.4
// of §4.1; capacity, Hadoop 2.7 of §4.2), each file one policy.
func TestTridentBaselineScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata/trident", policy.ScenarioFactory)
}

// One off-switch container a heartbeat is a rule of YARN's containers:
// every policy that has the arg takes it with heartbeat offers and
// refuses it, by name, with Spark's.
func TestOneOffSwitchNeedsHeartbeatOffers(t *testing.T) {
	for _, name := range []string{"hscheduler", "quartet", "trident"} {
		if _, err := policy.Build(policy.Spec{Name: name, Args: map[string]any{"one_off_switch_per_heartbeat": true}}); err != nil {
			t.Errorf("%s with heartbeat offers: %v", name, err)
		}
		_, err := policy.Build(policy.Spec{Name: name, Args: map[string]any{"one_off_switch_per_heartbeat": true, "offers": "spark"}})
		if err == nil || !strings.Contains(err.Error(), "one_off_switch_per_heartbeat") {
			t.Errorf("%s with spark offers: error %v, want one naming one_off_switch_per_heartbeat", name, err)
		}
	}
}

// The heartbeat interval the rule waits out must be positive; a bad one
// is refused by name.
func TestHeartbeatArg(t *testing.T) {
	for _, name := range []string{"capacity", "hscheduler", "quartet", "trident", "corral"} {
		if _, err := policy.Build(policy.Spec{Name: name, Args: map[string]any{"heartbeat": "500ms"}}); err != nil {
			t.Errorf("%s heartbeat 500ms: %v", name, err)
		}
		for _, bad := range []string{"0s", "-1s"} {
			_, err := policy.Build(policy.Spec{Name: name, Args: map[string]any{"heartbeat": bad}})
			if err == nil || !strings.Contains(err.Error(), "heartbeat") {
				t.Errorf("%s heartbeat %s: error %v, want one naming heartbeat", name, bad, err)
			}
		}
	}
}
