package fair

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// TestScenarios runs the spec scenarios in testdata/, one a file.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", scenarioPolicy)
}

// scenarioPolicy builds `policy fair [node_threshold=1] [rack_threshold=1]`.
func scenarioPolicy(name string, args map[string]string) (engine.Policy, error) {
	if name != "fair" {
		return nil, fmt.Errorf("unknown policy %q (want fair)", name)
	}
	cfg := DefaultConfig()
	knobs := map[string]*float64{"node_threshold": &cfg.NodeThreshold, "rack_threshold": &cfg.RackThreshold}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst, ok := knobs[k]
		if !ok {
			return nil, fmt.Errorf("unknown argument %q (want node_threshold, rack_threshold)", k)
		}
		v, err := strconv.ParseFloat(args[k], 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not a number", k, args[k])
		}
		*dst = v
	}
	return New(cfg), nil
}
