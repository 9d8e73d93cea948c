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
	if got, want := p.(*quartet.Policy).Config(), (quartet.Config{Order: "fair", Offers: "heartbeat", Delay: 3 * time.Second, Heartbeat: time.Second}); got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
	for arg, val := range map[string]any{"offers": "mail", "order": "lifo", "delay": "-1s", "node_locality_delay": -1, "off_switch_locations": "all"} {
		_, err := policy.Build(policy.Spec{Name: "quartet", Args: map[string]any{arg: val}})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%v: error %v, want one naming %s", arg, val, err, arg)
		}
	}
}

// The RM's gate args decode as capacity's.
func TestGateArgs(t *testing.T) {
	p, err := policy.Build(policy.Spec{Name: "quartet", Args: map[string]any{"node_locality_delay": 40, "off_switch_locations": "requested"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.(*quartet.Policy).Config(), (quartet.Config{Order: "fifo", Offers: "heartbeat", Delay: 3 * time.Second, NodeLocalityDelay: 40, OffSwitchLocations: "requested", Heartbeat: time.Second}); got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
}
