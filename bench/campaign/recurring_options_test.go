package campaign

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// TestRecurringShapeOptions: jobs, window, task_scale and adhoc reach the
// recurring generator (spec/corral.md §5.3's simulation is 200 W1 jobs
// over 15 minutes; its ad hoc mix adds unplanned jobs).
func TestRecurringShapeOptions(t *testing.T) {
	w, ds, p := generated(t, recurringCampaign(", jobs: 20, window: 900, task_scale: 0.5, adhoc: 3"))
	if len(p.Jobs) != 20 || len(w.Jobs) != 23 {
		t.Fatalf("%d jobs predicted and %d in all, want 20 recurring and 3 ad hoc", len(p.Jobs), len(w.Jobs))
	}
	var last float64
	for _, j := range w.Jobs {
		last = max(last, j.Arrival)
	}
	if last > 900 || last < 450 {
		t.Errorf("last arrival at %g s, want within a 900 s window", last)
	}
	_, dsf, _ := generated(t, recurringCampaign(", jobs: 20, window: 900, adhoc: 3"))
	// W1's block size stays, so its input bytes follow its map tasks
	bytes := func(d []workload.Dataset) (n int64) {
		for _, x := range d {
			n += x.Size
		}
		return n
	}
	if half, whole := bytes(ds.Datasets), bytes(dsf.Datasets); !(half < whole*3/4) {
		t.Errorf("task_scale 0.5: %d input bytes against %d at 1", half, whole)
	}
}

func TestRecurringShapeOptionsRejected(t *testing.T) {
	cases := map[string]struct{ opts, want string }{
		"no jobs":         {", jobs: 0", "c.yaml:4: workload generator: jobs must be at least 1 (got 0)"},
		"zero task scale": {", task_scale: 0", "c.yaml:4: workload generator: task_scale multiplies W1's task counts and must be positive (got 0)"},
		"negative adhoc":  {", adhoc: -1", "c.yaml:4: workload generator: adhoc is a number of jobs and must be at least 0 (got -1)"},
		"zero window":     {", window: 0", "c.yaml:4: workload generator: window is a span in seconds and must be positive"},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, recurringCampaign(tc.opts)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	_, err := Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: ml, jobs: 5}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if want := "c.yaml:4: workload generator: jobs is an option of the recurring and fbtiers generator, not of ml"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("jobs on ml: error %v, want %q", err, want)
	}
	_, err = Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: ml, window: 5}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if want := "c.yaml:4: workload generator: window is an option of the tpch and recurring generator, not of ml"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("window on ml: error %v, want %q", err, want)
	}
}
