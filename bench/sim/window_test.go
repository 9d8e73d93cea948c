package sim

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// overloaded is two racks of one single-slot host, and a job a second,
// each of four 64 MiB maps at 20 ns a byte (1.3 s each) and two
// reducers: the cluster does about one job in three seconds, so work
// piles up.
func overloaded(t *testing.T, jobs int) (*cluster.Topology, *workload.Workload, *workload.Datasets) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 125e6, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, ds := &workload.Workload{}, &workload.Datasets{}
	for i := range jobs {
		in := fmt.Sprintf("in%d", i)
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: in, Size: 256 * mib, BlockSize: 64 * mib, Replication: 1})
		w.Jobs = append(w.Jobs, workload.Job{ID: fmt.Sprintf("j%d", i), Arrival: float64(i), Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: in, Selectivity: 1, ComputeNsPerByte: 20},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 1},
		}})
	}
	return topo, w, ds
}

func simulateWindow(t *testing.T, topo *cluster.Topology, w *workload.Workload, ds *workload.Datasets, opt Options) (*checkingSink, *engine.Engine, *Result, error) {
	t.Helper()
	p, err := policy.New("fair")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Seed: 1}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	sink := &checkingSink{t: t}
	opt.Sink = sink
	res, err := New(eng, opt).Run()
	return sink, eng, res, err
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

// A window stops an overloaded run cleanly at the window: no error, the
// attempts running are recorded as cut at the window, every job not
// ended as unfinished, and the rack links count what moved until then.
func TestWindowCutsOverloadedRun(t *testing.T) {
	topo, w, ds := overloaded(t, 20)
	_, _, full, err := simulateWindow(t, topo, w, ds, Options{})
	if err != nil || full.Stalled || full.Cut {
		t.Fatalf("the run without a window: %v, %+v", err, full)
	}
	window := math.Round(full.SimTime / 3)
	t.Logf("without a window the run takes %.1f s; window %.0f s", full.SimTime, window)
	sink, eng, res, err := simulateWindow(t, topo, w, ds, Options{Window: window})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stalled || !res.Cut || res.SimTime != window {
		t.Fatalf("stalled %v (%s), cut %v, simulated %g s; want a cut at the %g s window", res.Stalled, res.StallReason, res.Cut, res.SimTime, window)
	}
	if len(sink.jobs) != len(w.Jobs) {
		t.Fatalf("%d job records for %d jobs", len(sink.jobs), len(w.Jobs))
	}
	states := map[engine.JobState]int{}
	for _, j := range sink.jobs {
		states[j.State]++
		switch j.State {
		case engine.JobSucceeded:
			if j.Finished > window {
				t.Errorf("job %s finished at %g, after the window", j.Name, j.Finished)
			}
		case engine.JobUnfinished:
			if !math.IsNaN(j.Finished) {
				t.Errorf("unfinished job %s has a finish time %g", j.Name, j.Finished)
			}
			if j.Arrival <= window != !math.IsNaN(j.Submitted) {
				t.Errorf("unfinished job %s arrived at %g, submitted %g", j.Name, j.Arrival, j.Submitted)
			}
		default:
			t.Errorf("job %s %s", j.Name, j.State)
		}
	}
	if states[engine.JobSucceeded] == 0 || states[engine.JobUnfinished] == 0 {
		t.Fatalf("job states %v: want some finished and some unfinished", states)
	}
	var cut int
	var crossDone int64
	for _, a := range sink.attempts {
		if a.End > window {
			t.Errorf("attempt %d ended at %g, after the window", a.ID, a.End)
		}
		switch a.Outcome {
		case engine.AttemptCut:
			cut++
			if a.End != window || a.Bytes != (engine.ByteCounts{}) {
				t.Errorf("cut attempt %d: end %g, bytes %v; want the window and none", a.ID, a.End, a.Bytes)
			}
		case engine.AttemptSucceeded:
			crossDone += a.Bytes.Cross()
		}
	}
	if cut == 0 || cut > len(topo.Hosts) {
		t.Errorf("%d attempts cut on %d single-slot hosts", cut, len(topo.Hosts))
	}
	// an unfinished job says what it was running and what waited for a
	// slot: the running ones are the cut attempts, and work piled up
	var running, waiting int
	for _, j := range sink.jobs {
		if j.State != engine.JobUnfinished || math.IsNaN(j.Submitted) {
			continue
		}
		if !strings.Contains(j.Reason, "tasks done at the window") {
			t.Errorf("job %s: reason %q", j.Name, j.Reason)
		}
		running += countByKind(t, j.Reason, "running: ")
		waiting += countByKind(t, j.Reason, "waiting for a slot: ")
	}
	if running != cut || waiting == 0 {
		t.Errorf("the unfinished jobs' reasons count %d running and %d waiting; want the %d cut attempts and some waiting", running, waiting, cut)
	}
	if n := eng.JobsFinished() + states[engine.JobUnfinished]; n != len(w.Jobs) {
		t.Errorf("the engine finished %d jobs and %d are unfinished, of %d", eng.JobsFinished(), states[engine.JobUnfinished], len(w.Jobs))
	}
	// the links carried what the finished attempts moved, and part of
	// what the cut ones did; less than the whole run
	up, upFull := sum(res.UplinkBytes), sum(full.UplinkBytes)
	t.Logf("cross-rack: %.0f B by the window (%d B by finished attempts), %.0f B in the whole run", up, crossDone, upFull)
	if up < float64(crossDone) || up >= upFull {
		t.Errorf("the uplinks carried %.0f B by the window; want between the finished attempts' %d B and the whole run's %.0f B", up, crossDone, upFull)
	}
	// a later window: the same run further on
	_, _, later, err := simulateWindow(t, topo, w, ds, Options{Window: 2 * window})
	if err != nil || !later.Cut {
		t.Fatalf("window %g: %v, %+v", 2*window, err, later)
	}
	if l := sum(later.UplinkBytes); l <= up {
		t.Errorf("the uplinks carried %.0f B by %g s and %.0f B by %g s", up, window, l, 2*window)
	}
	// a window after the end changes nothing
	_, _, long, err := simulateWindow(t, topo, w, ds, Options{Window: 2 * full.SimTime})
	if err != nil || long.Cut || long.SimTime != full.SimTime {
		t.Errorf("window after the end: %v, cut %v, simulated %g s; want the run without a window's %g s", err, long.Cut, long.SimTime, full.SimTime)
	}
}

// An explicit time bound may not be below the window; the window stops
// a run that reaches it before the bound, as a clean cut.
func TestWindowAndTimeBound(t *testing.T) {
	for _, o := range []Options{{Window: -1}, {Window: math.Inf(1)}, {Window: 100, MaxSimTime: 99}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	topo, w, ds := overloaded(t, 20)
	_, _, res, err := simulateWindow(t, topo, w, ds, Options{Window: 20, MaxSimTime: 20})
	if err != nil || res.Stalled || !res.Cut || res.SimTime != 20 {
		t.Errorf("window 20 s, bound 20 s: %v, %+v", err, res)
	}
	_, _, res, err = simulateWindow(t, topo, w, ds, Options{Window: 20, MaxSimTime: 10})
	if err == nil || !strings.Contains(err.Error(), "below the window") {
		t.Errorf("window 20 s, bound 10 s: %v, %+v", err, res)
	}
}

// Two job DAGs, counted by hand: a1 → a2 arrives at 0, three maps and
// two reducers of at most 64 MiB, a few seconds under Fair; b1 → b2
// arrives at 1 with 32 maps of 64 MiB at 20 ns a byte on two slots, over
// 40 s of work. A 30 s window sees the first finished and not the
// second: 2 workloads, 1 finished, b1 and b2 unfinished; the throughput
// is a1 and a2 over the window, the cross-rack bytes per workload all of
// the run's.
func TestWindowSummaryCountsWorkloads(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 125e6, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		{Name: "inA", Size: 128 * mib, BlockSize: 64 * mib, Replication: 1},
		{Name: "inB", Size: 2048 * mib, BlockSize: 64 * mib, Replication: 1},
	}}
	job := func(id string, arrival float64, input string, parents ...string) workload.Job {
		return workload.Job{ID: id, Arrival: arrival, Parents: parents, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: input, Selectivity: 0.5, ComputeNsPerByte: 20},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}, Selectivity: 1},
		}}
	}
	w := &workload.Workload{Jobs: []workload.Job{
		job("a1", 0, "inA"), job("b1", 1, "inB"),
		job("a2", 0, workload.ParentOutputPrefix+"a1", "a1"), job("b2", 1, workload.ParentOutputPrefix+"b1", "b1"),
	}}
	dir := t.TempDir()
	const window = 30
	s, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: "fair"}, Seed: 1,
		Dir: dir, Options: Options{Window: window}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Jobs != 4 || s.FailedJobs != 0 || s.UnfinishedJobs != 2 || s.Workloads != 2 || s.WorkloadsFinished != 1 || s.WindowS != window {
		t.Fatalf("jobs %d, failed %d, unfinished %d, workloads %d, finished %d, window %g; want 4, 0, 2, 2, 1, %d",
			s.Jobs, s.FailedJobs, s.UnfinishedJobs, s.Workloads, s.WorkloadsFinished, s.WindowS, window)
	}
	if want := 2.0 / window * 3600; math.Abs(s.ThroughputJPH-want) > 1e-9 {
		t.Errorf("throughput %g jobs/h, want %g (2 jobs in %d s)", s.ThroughputJPH, want, window)
	}
	if s.Bytes.Cross() == 0 || s.CrossRackBytesPerWorkload != float64(s.Bytes.Cross()) ||
		s.CrossInputPerWorkload != float64(s.Bytes[engine.ClassInput][engine.LevelCross]) ||
		s.CrossDependentPerWorkload != float64(s.Bytes[engine.ClassDependent][engine.LevelCross]) ||
		s.CrossShufflePerWorkload != float64(s.Bytes[engine.ClassShuffle][engine.LevelCross]) {
		t.Errorf("per workload %g (input %g, dependent %g, shuffle %g); bytes %v over 1 finished workload",
			s.CrossRackBytesPerWorkload, s.CrossInputPerWorkload, s.CrossDependentPerWorkload, s.CrossShufflePerWorkload, s.Bytes)
	}
	// jobs.csv: the unfinished jobs have no finish and no completion time
	f, err := os.Open(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[0]] = strings.Join([]string{r[2], r[6], r[7]}, " ")
	}
	for _, id := range []string{"b1", "b2"} {
		if got[id] != "unfinished  " {
			t.Errorf("jobs.csv %s: state, finished_s, jct_s %q; want unfinished and empty", id, got[id])
		}
	}
	for _, id := range []string{"a1", "a2"} {
		if !strings.HasPrefix(got[id], "succeeded ") {
			t.Errorf("jobs.csv %s: %q, want succeeded", id, got[id])
		}
	}
}

// countByKind sums the counts of a reason's part after label ("running:
// 1 map, 2 reduce" is 3).
func countByKind(t *testing.T, reason, label string) int {
	t.Helper()
	_, part, ok := strings.Cut(reason, label)
	if !ok {
		return 0
	}
	part, _, _ = strings.Cut(part, ";")
	n := 0
	for _, kv := range strings.Split(part, ", ") {
		var k int
		var kind string
		if _, err := fmt.Sscanf(kv, "%d %s", &k, &kind); err != nil || (kind != "map" && kind != "reduce" && kind != "generic") {
			t.Errorf("reason %q: %q is not a count of a stage kind", reason, kv)
		}
		n += k
	}
	return n
}

// A run cut at its window counts what its running flows carried by then
// on the rack links: one map on rack 1 reads 100 MB from rack 0 through a
// 1 MB/s link, and a window at 40 s leaves 40 MB crossed. Before, the
// links reported only the flows that had ended: 0 B.
func TestCutCountsTheBytesOfRunningFlows(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 1e6, Oversubscription: 1}, 1e9, 1e9)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: 100e6, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 0}}}}}
	eng, err := engine.New(engine.Config{Seed: 1}, topo, w, ds, &pinned{host: func(engine.TaskRef) cluster.HostID { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(eng, Options{Window: 40}).Run()
	if err != nil || !res.Cut {
		t.Fatalf("%v, %+v", err, res)
	}
	if up, down := res.UplinkBytes[0], res.DownlinkBytes[1]; math.Abs(up-40e6) > 0.2e6 || math.Abs(down-40e6) > 0.2e6 {
		t.Errorf("rack 0's uplink carried %.0f B and rack 1's downlink %.0f B by the window; want 40 MB", up, down)
	}
}
