package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/workload"
)

// refuser is offered every free slot and launches nothing after its
// first n launches: a policy that leaves waiting tasks unplaced forever.
type refuser struct{ n int }

func (*refuser) Name() string { return "refuser" }
func (r *refuser) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for ; r.n > 0 && ctx.FreeSlots(h) > 0; r.n-- {
		t, _, ok := ctx.PickMap(0, h, engine.Remote)
		if !ok {
			return
		}
		if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
			return
		}
	}
}

func refusingRun(t *testing.T, launches int) *engine.Engine {
	t.Helper()
	return stuckJobRun(t, &refuser{n: launches})
}

// stuckJobRun is one job of four maps arriving at 5 s, run by p.
func stuckJobRun(t *testing.T, p engine.Policy) *engine.Engine {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 256 * mib, BlockSize: 64 * mib, Replication: 2}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "stuck", Arrival: 5, Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1, ComputeNsPerByte: 2},
	}}}}
	eng, err := engine.New(engine.Config{Seed: 1, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// A policy that leaves the free slots idle while tasks wait, with
// nothing running and no job to come, is stopped by the watchdog after
// StallTimeout of heartbeats, not at the far time bound, with a reason
// that names the stuck job; disabled, the run goes on to the bound.
func TestWatchdogNamesTheStuckJob(t *testing.T) {
	res, err := New(refusingRun(t, 2), Options{StallTimeout: 100}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stalled {
		t.Fatalf("a run that can never finish ended without a stall at t=%g", res.SimTime)
	}
	for _, want := range []string{"no progress for 100s", "2 tasks pending and no attempt running", "free slots the policy leaves idle",
		"1 jobs left: stuck (running, 2 of 4 tasks done, 2 pending, 0 running)"} {
		if !strings.Contains(res.StallReason, want) {
			t.Errorf("stall reason %q lacks %q", res.StallReason, want)
		}
	}
	// the last map ends a few seconds after the arrival at 5 s
	if res.SimTime < 100 || res.SimTime > 130 {
		t.Errorf("stopped at t=%g, want about 100 s after the last attempt ended", res.SimTime)
	}

	res, err = New(refusingRun(t, 2), Options{StallTimeout: -1, MaxSimTime: 1000}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stalled || !strings.Contains(res.StallReason, "simulated time limit 1000s reached") || !strings.Contains(res.StallReason, "stuck (running") {
		t.Errorf("without the watchdog: stall %v %q, want the limit and the job named", res.Stalled, res.StallReason)
	}
}

// Waiting for a job to arrive is not a stall, however long, nor is a
// run that finishes.
func TestWatchdogWaitsForArrivals(t *testing.T) {
	res, err := New(oneJob(t, 5000), Options{StallTimeout: 100}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Stalled {
		t.Fatalf("stalled: %s", res.StallReason)
	}
}

// A run stopped at its time bound with attempts running names them, with
// their phase and the rate their flows move at.
func TestTimeBoundNamesTheRunningAttempts(t *testing.T) {
	res, err := New(refusingRun(t, 4), Options{MaxSimTime: 6}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stalled {
		t.Fatal("not stopped at the limit")
	}
	for _, want := range []string{"simulated time limit 6s reached", "1 jobs left: stuck", "4 attempts running: stuck stage 0 task ", "B/s)"} {
		if !strings.Contains(res.StallReason, want) {
			t.Errorf("stall reason %q lacks %q", res.StallReason, want)
		}
	}
}

// failer launches its first n tasks and then finds it cannot go on.
type failer struct {
	refuser
	err error
}

func (f *failer) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if f.n == 0 {
		f.err = errors.New("records.csv:7: no such task")
		return
	}
	f.refuser.OfferHost(ctx, h)
}

func (f *failer) Err() error { return f.err }

// A policy that fails (engine.Failer: a replay reaching a record of
// another workload) ends the run at once with its error, not with a
// stall at the watchdog or the time bound.
func TestFailingPolicyEndsTheRun(t *testing.T) {
	res, err := New(stuckJobRun(t, &failer{refuser: refuser{n: 2}}), Options{}).Run()
	if err == nil {
		t.Fatalf("the run ended without the policy's error: stalled %v at t=%g (%s)", res.Stalled, res.SimTime, res.StallReason)
	}
	if want := "the policy stopped the run at t=5.000s: records.csv:7: no such task"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Progress is reported while no job finishes, too: a run whose jobs take
// long shows its simulated time moving, with the bound it stops at.
func TestProgressWithoutJobsFinishing(t *testing.T) {
	var times []float64
	var bounds []float64
	res, err := New(refusingRun(t, 2), Options{StallTimeout: -1, MaxSimTime: 1e5, Progress: func(now, bound float64, done, jobs int) {
		if done != 0 || jobs != 1 {
			t.Errorf("progress: %d of %d jobs done, want 0 of 1", done, jobs)
		}
		times, bounds = append(times, now), append(bounds, bound)
	}}).Run()
	if err != nil || !res.Stalled {
		t.Fatalf("stalled %v, %v", res.Stalled, err)
	}
	if len(times) < 2 {
		t.Fatalf("%d progress reports over %g s simulated without a job finishing", len(times), res.SimTime)
	}
	for i := range times {
		if bounds[i] != 1e5 || i > 0 && times[i] <= times[i-1] {
			t.Fatalf("progress report %d: t=%g (before: %v), bound %g", i, times[i], times[:i], bounds[i])
		}
	}
}
