package quartet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/quartet"
)

// The args decode over the defaults (delay 3s), and bad ones are refused
// by name.
func TestArgs(t *testing.T) {
	p, err := policy.Build(policy.Spec{Name: "quartet", Args: map[string]any{"order": "fair"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.(*quartet.Policy).Config(), (quartet.Config{Order: "fair", Delay: 3 * time.Second}); got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
	for arg, val := range map[string]any{"order": "lifo", "delay": "-1s"} {
		_, err := policy.Build(policy.Spec{Name: "quartet", Args: map[string]any{arg: val}})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%v: error %v, want one naming %s", arg, val, err, arg)
		}
	}
}
