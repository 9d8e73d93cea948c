package policy_test

import (
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
