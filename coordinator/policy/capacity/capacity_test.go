package capacity

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs the scenarios in testdata/, one a file.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", scenarioPolicy)
}

// scenarioPolicy builds `policy capacity [node_locality_delay=N]`.
func scenarioPolicy(name string, args map[string]string) (engine.Policy, error) {
	if name != "capacity" {
		return nil, fmt.Errorf("unknown policy %q (want capacity)", name)
	}
	var cfg Config
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "node_locality_delay" {
			return nil, fmt.Errorf("unknown argument %q (want node_locality_delay)", k)
		}
		v, err := strconv.Atoi(args[k])
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not a whole number", k, args[k])
		}
		cfg.NodeLocalityDelay = v
	}
	return New(cfg), nil
}
