package replay_test

import (
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata/scenarios", policy.ScenarioFactory)
}
