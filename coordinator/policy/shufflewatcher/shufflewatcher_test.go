package shufflewatcher_test

import (
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs the spec scenarios in testdata/, one a file; the
// `policy shufflewatcher k=v` lines take the args a campaign would.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}
