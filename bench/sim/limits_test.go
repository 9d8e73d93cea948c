package sim

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// oneJob is a small cluster and one map-reduce job arriving at arrival.
func oneJob(t *testing.T, arrival float64) *engine.Engine {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 256 * mib, BlockSize: 64 * mib, Replication: 2}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Arrival: arrival, Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1, ComputeNsPerByte: 2},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 1},
	}}}}
	p, err := policy.New("fifo")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Seed: 1, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// countingSink counts link samples and keeps their times.
type countingSink struct {
	times []float64
	up    [][]float64
}

func (c *countingSink) Attempt(*engine.AttemptRecord) error { return nil }
func (c *countingSink) Job(*engine.JobRecord) error         { return nil }
func (c *countingSink) LinkSample(t float64, up, _ []float64) error {
	c.times = append(c.times, t)
	c.up = append(c.up, append([]float64(nil), up...))
	return nil
}

func TestOptionsLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		want string
	}{
		{"resolution NaN", Options{Resolution: math.NaN()}, "resolution NaN is not a finite number"},
		{"resolution negative", Options{Resolution: -1}, "resolution -1 s is below the limit of 1e-06 s"},
		{"resolution tiny", Options{Resolution: 1e-300}, "resolution 1e-300 s is below the limit of 1e-06 s"},
		{"resolution huge", Options{Resolution: 1e9}, "resolution 1e+09 s is above the limit of 60 s"},
		{"full recompute Inf", Options{FullRecompute: math.Inf(1)}, "full-recompute period +Inf is not a finite number"},
		{"full recompute NaN", Options{FullRecompute: math.NaN()}, "full-recompute period NaN"},
		{"max sim time NaN", Options{MaxSimTime: math.NaN()}, "max simulated time NaN is not a finite number"},
		{"max sim time negative", Options{MaxSimTime: -5}, "max simulated time -5 s is negative"},
		{"max sim time Inf", Options{MaxSimTime: math.Inf(1)}, "max simulated time +Inf"},
		{"heartbeat tiny", Options{Heartbeat: 1e-9}, "heartbeat 1e-09 s is below the limit of 0.001 s"},
		{"sample NaN", Options{Sample: math.NaN()}, "link sample period NaN"},
		{"background NaN", Options{Background: math.NaN()}, "background share NaN is outside [0, 1)"},
		{"background leaving a crawl", Options{Background: 0.9999999999999}, "background share 0.9999999999999 leaves rack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// through Run, the path every caller takes
			_, err := New(oneJob(t, 0), tc.opt).Run()
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

// A job arriving at the largest arrival the workload accepts finishes in
// bounded wall time: the link sample timers that fire while the cluster
// waits for it do not run for 10^8 periods, and their records stay within
// the budget.
func TestHugeArrivalIsBounded(t *testing.T) {
	eng := oneJob(t, workload.MaxArrivalS)
	sink := &countingSink{}
	start := time.Now()
	res, err := New(eng, Options{Sink: sink}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Stalled || !eng.Done() {
		t.Fatalf("stalled: %s", res.StallReason)
	}
	if res.SimTime < workload.MaxArrivalS {
		t.Fatalf("simulated %g s, before the job's arrival", res.SimTime)
	}
	if wall := time.Since(start); wall > 20*time.Second {
		t.Errorf("a run took %v of wall time", wall)
	}
	if budget := linkSampleBudget(2); len(sink.times) > budget || len(sink.times) < budget/2 {
		t.Errorf("%d link samples, want between %d and %d", len(sink.times), budget/2, budget)
	}
	checkEvenPeriods(t, sink.times)
}

func checkEvenPeriods(t *testing.T, times []float64) {
	t.Helper()
	if len(times) < 2 {
		return
	}
	period := times[0]
	for i := 1; i < len(times); i++ {
		if d := times[i] - times[i-1]; math.Abs(d-period) > 1e-6*period {
			t.Fatalf("sample %d comes %g s after the previous one, want %g s", i, d, period)
		}
	}
}

// Merged samples are the samples a run at the doubled period records.
func TestLinkSamplesMerge(t *testing.T) {
	run := func(sample float64, budget int) *countingSink {
		sink := &countingSink{}
		s := New(oneJob(t, 0), Options{Sink: sink, Sample: sample, Resolution: 0.001})
		s.sampleBudget = budget
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		return sink
	}
	fine := run(0.5, 1<<20)
	merged := run(0.5, 4)
	if len(fine.times) <= 4 {
		t.Fatalf("only %d samples at 0.5 s: the test needs more", len(fine.times))
	}
	if len(merged.times) > 4 {
		t.Fatalf("%d samples with a budget of 4", len(merged.times))
	}
	checkEvenPeriods(t, merged.times)
	coarse := run(merged.times[0], 1<<20)
	if len(coarse.times) != len(merged.times) {
		t.Fatalf("%d samples at %g s, %d merged", len(coarse.times), merged.times[0], len(merged.times))
	}
	for i := range coarse.times {
		for r := range coarse.up[i] {
			if math.Abs(coarse.up[i][r]-merged.up[i][r]) > 1e-9 {
				t.Errorf("sample %d rack %d: merged %g, at the coarse period %g", i, r, merged.up[i][r], coarse.up[i][r])
			}
		}
	}
}

// With MaxSimTime 0 the bound is derived from the workload; passing it
// (here, an explicit bound below the job's arrival) stops the run saying
// so.
func TestTimeBound(t *testing.T) {
	eng := oneJob(t, 1000)
	opt := Options{Heartbeat: 1, FetchPoll: 2}
	got, err := TimeBound(eng, opt)
	if err != nil {
		t.Fatal(err)
	}
	// 256 MiB read, 256 MiB map output written and shuffled, 256 MiB
	// reduce output: 4 × 256 MiB through the slowest resource, the rack
	// uplink at 2 hosts × 125 MB/s / 2; 256 MiB × 2 ns of CPU; 4 map and
	// 2 reduce tasks × 3 s of heartbeat and poll.
	bytes := 4.0 * 256 * mib
	want := 1000 + TimeBoundSafety*(bytes/125e6+256*mib*2/1e9+6*3) + TimeBoundSlackS
	if math.Abs(got-want) > 1e-6*want {
		t.Errorf("TimeBound = %g, want %g", got, want)
	}
	res, err := New(oneJob(t, 1000), Options{MaxSimTime: 500}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stalled || !strings.Contains(res.StallReason, "simulated time limit 500s reached") {
		t.Errorf("stall %v %q, want the limit named", res.Stalled, res.StallReason)
	}
	s := New(oneJob(t, 1000), Options{})
	s.timeBound = 500 // as if derived: a workload whose bound it passes
	res, err = s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stalled || !strings.Contains(res.StallReason, "the bound derived from the workload") || !strings.Contains(res.StallReason, "--max-sim-time") {
		t.Errorf("stall %v %q, want the derived bound and how to raise it", res.Stalled, res.StallReason)
	}
}

// A run of a workload without jobs is refused before anything is written:
// its summary would be zeros that read as figures.
func TestEmptyWorkloadIsRefused(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	_, _, err = RunOne(Spec{Topology: topo, Workload: &workload.Workload{}, Datasets: &workload.Datasets{}, Policy: policy.Spec{Name: "fifo"}, Seed: 1, Dir: dir})
	if !errors.Is(err, workload.ErrNoJobs) {
		t.Fatalf("an empty workload: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused run left its directory: %v", err)
	}
}
