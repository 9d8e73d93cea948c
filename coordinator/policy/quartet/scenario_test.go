package quartet_test

import (
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs testdata/*.txt: the spec's scenarios through the
// engine, with the policy built from the registry as a campaign builds it.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}
