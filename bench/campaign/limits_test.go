package campaign

import (
	"strings"
	"testing"
	"time"
)

// limits: stall_timeout bounds how long a live run may make no progress;
// a value that is not a positive duration is refused with its line.
func TestLimitsStallTimeout(t *testing.T) {
	const head = "name: x\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: tpch, scale_factor: 1, scale: 0.01}\n"
	c, err := Load(writeCampaign(t, head+"limits: {max_run_time: 10m, stall_timeout: 45s}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.StallTimeout != 45*time.Second || c.Limits.MaxRunTime != 10*time.Minute {
		t.Fatalf("limits %+v, want a stall timeout of 45s", c.Limits)
	}
	for _, bad := range []string{"soon", "-5s", "0s"} {
		_, err := Load(writeCampaign(t, head+"limits: {stall_timeout: "+bad+"}\nruns: [{mode: sim, policies: [fifo]}]\n"))
		if err == nil || !strings.Contains(err.Error(), "c.yaml:5") || !strings.Contains(err.Error(), "stall_timeout") {
			t.Errorf("stall_timeout %s: error %v, want c.yaml:5 naming stall_timeout", bad, err)
		}
	}
}
