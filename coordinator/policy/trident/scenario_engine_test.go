package trident_test

import (
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestEngineScenarios runs testdata/*.txt: the §8 scenarios through the
// engine, as a campaign runs the policy.
func TestEngineScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}
