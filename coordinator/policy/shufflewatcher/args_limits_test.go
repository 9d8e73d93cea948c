package shufflewatcher_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
)

// TestDelaysBeyondMaxDelayAreRefused: node_delay=1e300 used to pass
// Validate, and its budget, ⌈1e300 × hosts⌉ as an int, overflowed to a
// negative count, so the job took a rack-local or remote map at its
// first offer instead of waiting (testdata/delay_max_waits.txt shows the
// largest delay accepted waiting).
func TestDelaysBeyondMaxDelayAreRefused(t *testing.T) {
	for _, args := range []map[string]string{
		{"node_delay": "1e300", "rack_delay": "1e300"},
		{"rack_delay": "1e19"},
		{"map_racks": "all", "node_delay": "1e10"},
	} {
		_, err := policy.ScenarioFactory("shufflewatcher", args)
		if err == nil || !strings.Contains(err.Error(), "at most 1e+09") {
			t.Errorf("%v: error %v, want one giving the limit", args, err)
		}
	}
	if _, err := policy.ScenarioFactory("shufflewatcher", map[string]string{"node_delay": "1e9", "rack_delay": "1e9"}); err != nil {
		t.Errorf("node_delay and rack_delay at the limit: %v", err)
	}
}
