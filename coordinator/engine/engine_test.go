package engine

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// scripted is a policy whose hooks are test functions.
type scripted struct {
	offer    func(ctx *Context, h cluster.HostID)
	round    func(ctx *Context, free []cluster.HostID)
	choose   func(ctx *Context, a *Attempt) OutputDecision
	output   func(ctx *Context, a *Attempt, n int) []workload.Replica
	plan     func(ctx *Context, fk *Foreknowledge)
	lost     []cluster.HostID
	released []int
}

func (p *scripted) Name() string { return "scripted" }
func (p *scripted) OfferHost(ctx *Context, h cluster.HostID) {
	if p.offer != nil {
		p.offer(ctx, h)
	}
}
func (p *scripted) StageReleased(ctx *Context, j JobID, st int) { p.released = append(p.released, st) }
func (p *scripted) HostLost(ctx *Context, h cluster.HostID)     { p.lost = append(p.lost, h) }

type roundPolicy struct{ scripted }

func (p *roundPolicy) ScheduleRound(ctx *Context, free []cluster.HostID) { p.round(ctx, free) }

type choosing struct{ scripted }

func (p *choosing) ChooseOutput(ctx *Context, a *Attempt) OutputDecision { return p.choose(ctx, a) }

type placing struct{ scripted }

func (p *placing) PlaceOutput(ctx *Context, a *Attempt, n int) []workload.Replica {
	return p.output(ctx, a, n)
}
func (p *placing) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	out := make([][]workload.Replica, len(sizes))
	for i := range out {
		out[i] = []workload.Replica{{Host: cluster.HostID(len(t.Hosts) - 1), Tier: cluster.SSD}}
	}
	return out, nil
}

type planning struct{ scripted }

func (p *planning) Plan(ctx *Context, fk *Foreknowledge) { p.plan(ctx, fk) }

// greedy launches the first pending task of the first job, anywhere.
func greedy(ctx *Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 {
		launched := false
		for _, j := range ctx.Running() {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				t, _, ok = ctx.PickMap(j.ID, h, Remote)
			}
			if ok {
				if _, err := ctx.Launch(t, h, LaunchOptions{}); err == nil {
					launched = true
					break
				}
			}
		}
		if !launched {
			return
		}
	}
}

func topo2x2(t *testing.T, slots int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: slots, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// blocksOn makes a placed dataset with one block per host listed.
func blocksOn(name string, size int64, hosts ...cluster.HostID) workload.Dataset {
	d := workload.Dataset{Name: name}
	for _, h := range hosts {
		d.Blocks = append(d.Blocks, workload.Block{Size: size, Replicas: []workload.Replica{{Host: h, Tier: cluster.HDD}}})
	}
	return d
}

func mapReduce(id, input string, reducers int) workload.Job {
	return workload.Job{ID: id, Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: input, Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: reducers, After: []string{"map"}, Selectivity: 1},
	}}
}

func newEngine(t *testing.T, cfg Config, topo *cluster.Topology, w *workload.Workload, ds *workload.Datasets, p Policy) *Engine {
	t.Helper()
	e, err := New(cfg, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(0); err != nil {
		t.Fatal(err)
	}
	return e
}

// finishAll reports every launched attempt as succeeded, in launch order.
func finishAll(t *testing.T, e *Engine, rd Ready) {
	t.Helper()
	for _, a := range rd.Launches {
		if e.Attempt(a.ID) == nil {
			continue
		}
		if err := e.AttemptSucceeded(a.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHeartbeatOfferLaunchesOnlyOnOfferedHost(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{offer: greedy})
	e.Offer(2)
	rd := e.Ready()
	if len(rd.Launches) != 2 {
		t.Fatalf("offer of a 2-slot host launched %d attempts", len(rd.Launches))
	}
	for _, a := range rd.Launches {
		if a.Host != 2 {
			t.Fatalf("attempt launched on host %d, offered host 2", a.Host)
		}
	}
	if e.Pending() != 2 || e.FreeSlots() != 6 {
		t.Fatalf("pending %d free %d, want 2 and 6", e.Pending(), e.FreeSlots())
	}
}

func TestBatchRoundSeesAllFreeSlots(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	var seen []cluster.HostID
	p := &roundPolicy{}
	p.round = func(ctx *Context, free []cluster.HostID) {
		seen = append([]cluster.HostID(nil), free...)
		for _, h := range free {
			if t, ok := ctx.NextNodeLocal(0, h); ok {
				_, _ = ctx.Launch(t, h, LaunchOptions{})
			}
		}
	}
	e := newEngine(t, Config{}, topo, w, ds, p)
	e.Schedule()
	rd := e.Ready()
	if len(seen) != 4 || len(rd.Launches) != 4 {
		t.Fatalf("round saw %v and launched %d", seen, len(rd.Launches))
	}
	for _, a := range rd.Launches {
		if a.Locality != NodeLocal {
			t.Fatalf("attempt on host %d reads from %d", a.Host, a.Source.Host)
		}
	}
}

func TestSlotLeftIdleOnPurpose(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	// launches only node-local: hosts 1..3 stay idle though work is pending
	p := &scripted{offer: func(ctx *Context, h cluster.HostID) {
		if t, ok := ctx.NextNodeLocal(0, h); ok {
			_, _ = ctx.Launch(t, h, LaunchOptions{})
		}
	}}
	e := newEngine(t, Config{}, topo, w, ds, p)
	for _, h := range []cluster.HostID{1, 2, 3} {
		e.Offer(h)
	}
	if rd := e.Ready(); len(rd.Launches) != 0 || e.Pending() != 1 {
		t.Fatalf("launched %d, pending %d: the idle policy was overridden", len(rd.Launches), e.Pending())
	}
	e.Offer(0)
	if rd := e.Ready(); len(rd.Launches) != 1 || rd.Launches[0].Host != 0 {
		t.Fatalf("node-local launch on host 0 expected, got %+v", rd.Launches)
	}
}

func TestChildJobSubmittedWhenAllParentsFinish(t *testing.T) {
	topo := topo2x2(t, 4)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("a", 100, 0), blocksOn("b", 100, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "pa", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "a", Selectivity: 0.5}}},
		{ID: "pb", Arrival: 5, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "b", Selectivity: 0.5}}},
		{ID: "child", Parents: []string{"pa", "pb"}, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "@pa", Selectivity: 1}}},
	}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{offer: greedy})
	e.Offer(0)
	finishAll(t, e, e.Ready())
	if e.Job(2).State != JobWaiting {
		t.Fatalf("child is %s before its second parent arrived", e.Job(2).State)
	}
	if err := e.Advance(5); err != nil {
		t.Fatal(err)
	}
	e.Schedule()
	finishAll(t, e, e.Ready())
	child := e.Job(2)
	if child.State != JobRunning || child.Submitted != 5 {
		t.Fatalf("child %s submitted at %g, want running since 5", child.State, child.Submitted)
	}
	// its input is pa's output, where pa's task wrote it
	reps := (&Context{e}).Replicas(TaskRef{2, 0, 0})
	if len(reps) != 1 || reps[0].Host != 0 || child.Stages[0].Tasks[0].InputBytes != 50 {
		t.Fatalf("child input %+v size %d, want pa's 50-byte output on host 0", reps, child.Stages[0].Tasks[0].InputBytes)
	}
	e.Offer(0)
	rd := e.Ready()
	finishAll(t, e, rd)
	if !e.Done() || rd.Launches[0].Locality != NodeLocal {
		t.Fatalf("done=%v; child read at %s", e.Done(), rd.Launches[0].Locality)
	}
}

func TestReduceSlowStart(t *testing.T) {
	topo := topo2x2(t, 8)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 0, 1, 1, 2, 2, 3, 3, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 2)}}
	// take maps only, so that nothing else finishes them
	onlyMaps := func(ctx *Context, h cluster.HostID) {
		for ctx.FreeSlots(h) > 0 {
			t, _, ok := ctx.PickMap(0, h, Remote)
			if !ok {
				return
			}
			_, _ = ctx.Launch(t, h, LaunchOptions{})
		}
	}
	e := newEngine(t, Config{SlowStart: 0.3}, topo, w, ds, &scripted{offer: onlyMaps})
	e.Schedule()
	rd := e.Ready()
	if len(rd.Launches) != 10 {
		t.Fatalf("launched %d maps", len(rd.Launches))
	}
	for i, a := range rd.Launches[:3] {
		if e.Job(0).Stages[1].Released {
			t.Fatalf("reduce released after %d of 10 maps, slow-start 0.3", i)
		}
		if err := e.AttemptSucceeded(a.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !e.Job(0).Stages[1].Released || e.Pending() != 2 {
		t.Fatalf("reduce not released after 3 of 10 maps (pending %d)", e.Pending())
	}
	// a reduce cannot finish before the maps do
	e2 := e
	e2.policy = &scripted{offer: greedy}
	e2.Schedule()
	rd = e2.Ready()
	if len(rd.Launches) != 2 {
		t.Fatalf("launched %d reducers", len(rd.Launches))
	}
	if err := e2.AttemptSucceeded(rd.Launches[0].ID, nil); err == nil {
		t.Fatal("a reducer finished before its maps")
	}
}

func TestDuplicateAttemptsChooseOutputAndKillLoser(t *testing.T) {
	topo := topo2x2(t, 1)
	ds, w := oneMapJob(cluster.SSD)
	p := &choosing{}
	p.choose = func(ctx *Context, a *Attempt) OutputDecision {
		if !a.Duplicate {
			return HoldOutput // wait for the copy
		}
		return UseOutput
	}
	e := newEngine(t, Config{}, topo, w, ds, p)
	ctx := &Context{e}
	orig := launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false)
	if _, err := ctx.LaunchDuplicate(TaskRef{0, 0, 0}, 0, LaunchOptions{}); err == nil {
		t.Fatal("duplicate on a full host accepted")
	}
	dup := launchOK(t, ctx, TaskRef{0, 0, 0}, 2, true)
	third, err := ctx.LaunchDuplicate(TaskRef{0, 0, 0}, 3, LaunchOptions{Source: &workload.Replica{Host: 2, Tier: cluster.SSD}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(orig, nil); err != nil {
		t.Fatal(err)
	}
	if e.Job(0).State != JobRunning {
		t.Fatal("held output finished the task")
	}
	if err := e.AttemptSucceeded(dup, nil); err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	if e.Job(0).State != JobSucceeded || len(rd.Kills) != 1 || rd.Kills[0] != third {
		t.Fatalf("job %s, kills %v: want succeeded and attempt %d killed", e.Job(0).State, rd.Kills, third)
	}
	task := e.Job(0).Stages[0].Tasks[0]
	if task.OutHost != 2 || e.Stats.Duplicates != 2 || e.Stats.DuplicatesUsed != 1 {
		t.Fatalf("output on host %d, duplicates %d used %d", task.OutHost, e.Stats.Duplicates, e.Stats.DuplicatesUsed)
	}
	var killed *AttemptRecord
	for i := range rd.Attempts {
		if rd.Attempts[i].ID == third {
			killed = &rd.Attempts[i]
		}
	}
	if killed == nil || killed.Outcome != AttemptKilled || killed.Source.Host != 2 || killed.Locality != RackLocal {
		t.Fatalf("loser record %+v", killed)
	}
}

func TestPriorityChange(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	id, err := ctx.Launch(TaskRef{0, 0, 0}, 1, LaunchOptions{Priority: 3})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	if err := ctx.SetPriority(id, 0); err != nil {
		t.Fatal(err)
	}
	if err := ctx.SetPriority(id+1, 0); err == nil {
		t.Fatal("priority of an unknown attempt accepted")
	}
	rd := e.Ready()
	if len(rd.Priorities) != 1 || e.Attempt(id).Priority != 0 {
		t.Fatalf("priority change not surfaced: %+v", rd.Priorities)
	}
}

func TestPlacementHooks(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 250, BlockSize: 100}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, OutputReplicas: 2}}}}}
	p := &placing{}
	p.output = func(ctx *Context, a *Attempt, n int) []workload.Replica {
		if n != 2 {
			t.Errorf("asked for %d output replicas, want 2", n)
		}
		return []workload.Replica{{Host: a.Host, Tier: cluster.Mem}, {Host: 0, Tier: cluster.HDD}}
	}
	e := newEngine(t, Config{}, topo, w, ds, p)
	st := e.Job(0).Stages[0]
	if len(st.Tasks) != 3 || st.Tasks[2].InputBytes != 50 {
		t.Fatalf("250 bytes in 100-byte blocks gave %d tasks, last %d bytes", len(st.Tasks), st.Tasks[2].InputBytes)
	}
	for _, b := range st.blocks {
		if b.Replicas[0].Host != 3 || b.Replicas[0].Tier != cluster.SSD {
			t.Fatalf("dataset placement hook ignored: %+v", b.Replicas)
		}
	}
	ctx := &Context{e}
	id, _ := ctx.Launch(TaskRef{0, 0, 0}, 2, LaunchOptions{})
	a := e.Attempt(id)
	if len(a.OutputReplicas) != 2 || a.OutputReplicas[1].Host != 0 {
		t.Fatalf("output placement hook ignored: %+v", a.OutputReplicas)
	}
	if err := e.AttemptSucceeded(id, nil); err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	rec := rd.Attempts[0]
	if rec.Bytes[ClassInput][LevelRack] != 100 || rec.Bytes[ClassOutput][LevelCross] != 100 {
		t.Fatalf("bytes %+v: want 100 rack-local input, 100 cross-rack output", rec.Bytes)
	}
}

func TestOfflinePlanSeesTheFuture(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "now", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}},
		{ID: "later", Arrival: 1000, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}},
	}}
	var saw []string
	p := &planning{}
	p.plan = func(ctx *Context, fk *Foreknowledge) {
		for _, j := range fk.Workload.Jobs {
			saw = append(saw, j.ID)
		}
		if ctx.Now() != 0 {
			t.Errorf("plan at %g", ctx.Now())
		}
	}
	newEngine(t, Config{}, topo, w, ds, p)
	if strings.Join(saw, ",") != "now,later" {
		t.Fatalf("plan saw %v", saw)
	}
}

func TestNetworkStatusIsInput(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	// refuses to start remote reads while the source rack's uplink is saturated
	p := &scripted{offer: func(ctx *Context, h cluster.HostID) {
		if ctx.Network().UplinkSaturated(0) && ctx.Topology().RackOf(h) != 0 {
			return
		}
		greedy(ctx, h)
	}}
	e := newEngine(t, Config{}, topo, w, ds, p)
	e.SetNetwork(NetworkStatus{UplinkLoad: []float64{0.95, 0}, SaturationThreshold: 0.9})
	e.Offer(3)
	if len(e.Ready().Launches) != 0 {
		t.Fatal("launched through a saturated uplink")
	}
	e.SetNetwork(NetworkStatus{UplinkLoad: []float64{0.5, 0}})
	e.Offer(3)
	if len(e.Ready().Launches) != 1 {
		t.Fatal("did not launch once the uplink cleared")
	}
}

func TestQueuesCountRunningSlots(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2)}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "a", Queue: "prod", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}},
		{ID: "b", Queue: "dev", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}},
	}}
	e := newEngine(t, Config{Queues: []Queue{{Name: "prod", Weight: 3, Capacity: 0.75}}}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	qs := e.Queues()
	if len(qs) != 2 || qs[0].Name != "prod" || qs[0].Weight != 3 || qs[1].Name != "dev" {
		t.Fatalf("queues %+v", qs)
	}
	if qs[0].Running+qs[1].Running != 6 || qs[0].Running != 3 {
		t.Fatalf("running per queue %d/%d", qs[0].Running, qs[1].Running)
	}
}

func TestHostLossFailsAttemptsAndRecomputesLostOutputs(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: 10, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}, {Host: 2, Tier: cluster.HDD}}},
		{Size: 10, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}, {Host: 3, Tier: cluster.HDD}}},
	}}}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	p := &scripted{}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, p)
	ctx := &Context{e}
	m0, _ := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	m1, _ := ctx.Launch(TaskRef{0, 0, 1}, 1, LaunchOptions{})
	if err := e.AttemptSucceeded(m0, nil); err != nil {
		t.Fatal(err)
	}
	// host 0 dies: map 0's output there is lost, map 1 keeps running on 1
	if err := e.HostLost(0); err != nil {
		t.Fatal(err)
	}
	if e.Job(0).Stages[0].Tasks[0].State != TaskPending || e.Stats.Recomputed != 1 || len(p.lost) != 1 {
		t.Fatalf("lost map output not rescheduled: %+v, recomputed %d", e.Job(0).Stages[0].Tasks[0], e.Stats.Recomputed)
	}
	if _, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{}); err == nil {
		t.Fatal("launched on a dead host")
	}
	// host 1 dies with map 1 running
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	last := rd.Attempts[len(rd.Attempts)-1]
	if last.ID != m1 || last.Outcome != AttemptFailed {
		t.Fatalf("running attempt on dead host: %+v", last)
	}
	// rerun both maps on the live replicas' hosts, then the reduce
	a, err := ctx.Launch(TaskRef{0, 0, 0}, 2, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ctx.Launch(TaskRef{0, 0, 1}, 3, LaunchOptions{})
	_ = e.AttemptSucceeded(a, nil)
	_ = e.AttemptSucceeded(b, nil)
	r, err := ctx.Launch(TaskRef{0, 1, 0}, 2, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(r, nil); err != nil {
		t.Fatal(err)
	}
	rec := e.Ready().Attempts
	got := rec[len(rec)-1].Bytes[ClassShuffle]
	if !e.Done() || got[LevelLocal] != 10 || got[LevelRack] != 10 {
		t.Fatalf("done=%v shuffle bytes %v: want 10 local (host 2) and 10 in-rack (host 3)", e.Done(), got)
	}
}

func TestLostInputFailsJob(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}},
		{ID: "child", Parents: []string{"j"}, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "@j"}}},
	}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	if err := e.HostLost(0); err != nil {
		t.Fatal(err)
	}
	if !e.Done() || e.Job(0).State != JobFailed || e.Job(1).State != JobFailed {
		t.Fatalf("states %s %s", e.Job(0).State, e.Job(1).State)
	}
	if !strings.Contains(e.Job(0).Reason, "lost") || !strings.Contains(e.Job(1).Reason, "parent j failed") {
		t.Fatalf("reasons %q %q", e.Job(0).Reason, e.Job(1).Reason)
	}
}

func TestInvalidActionsAreRejectedAndCounted(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	if _, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := []func() error{
		func() error { _, err := ctx.Launch(TaskRef{0, 0, 1}, 0, LaunchOptions{}); return err },  // full host
		func() error { _, err := ctx.Launch(TaskRef{0, 0, 0}, 1, LaunchOptions{}); return err },  // not pending
		func() error { _, err := ctx.Launch(TaskRef{0, 0, 9}, 1, LaunchOptions{}); return err },  // unknown task
		func() error { _, err := ctx.Launch(TaskRef{7, 0, 0}, 1, LaunchOptions{}); return err },  // unknown job
		func() error { _, err := ctx.Launch(TaskRef{0, 0, 1}, 99, LaunchOptions{}); return err }, // unknown host
		func() error {
			_, err := ctx.Launch(TaskRef{0, 0, 1}, 1, LaunchOptions{Source: &workload.Replica{Host: 3, Tier: cluster.HDD}})
			return err
		}, // replica that does not exist
		func() error { return ctx.Kill(42) },
		func() error { return ctx.UseHeldOutput(42) },
	}
	for i, f := range bad {
		if err := f(); err == nil || !errors.Is(err, errRejected) {
			t.Fatalf("bad action %d: err %v", i, err)
		}
	}
	if e.Stats.Rejected != int64(len(bad)) || e.Stats.RejectedByReason["full host"] != 1 {
		t.Fatalf("rejected %d %v", e.Stats.Rejected, e.Stats.RejectedByReason)
	}
	if e.Pending() != 1 || e.FreeSlots() != 3 {
		t.Fatalf("a rejected action changed state: pending %d free %d", e.Pending(), e.FreeSlots())
	}
}

func TestEngineRejectsBadInputs(t *testing.T) {
	topo := topo2x2(t, 1)
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "nope"}}}}}
	if _, err := New(Config{}, topo, w, nil, &scripted{}); err == nil || !strings.Contains(err.Error(), `unknown dataset "nope"`) {
		t.Fatalf("err %v", err)
	}
	type nothing struct{ Policy }
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("nope", 1, 0)}}
	if _, err := New(Config{}, topo, w, ds, nothing{&scripted{}}); err == nil || !strings.Contains(err.Error(), "schedules nothing") {
		t.Fatalf("err %v", err)
	}
	if _, err := New(Config{SlowStart: 2}, topo, w, ds, &scripted{}); err == nil {
		t.Fatal("slow-start 2 accepted")
	}
}

func TestPartitionsAddUp(t *testing.T) {
	for _, skew := range []float64{0, 0.5, 1, 2} {
		cum := zipfCumulative(7, skew)
		for _, total := range []int64{0, 1, 6, 7, 1000, 123456789} {
			var sum int64
			for i := 0; i < 7; i++ {
				p := partition(cum, i, total)
				if p < 0 {
					t.Fatalf("negative partition")
				}
				sum += p
			}
			if sum != total {
				t.Fatalf("skew %g: partitions of %d add to %d", skew, total, sum)
			}
		}
	}
	if c := zipfCumulative(2, 1); partition(c, 0, 300) != 200 {
		t.Fatalf("zipf(1) over 2 partitions: first gets %d of 300, want 200", partition(c, 0, 300))
	}
}

// Slow-started reducers may not take every slot while their maps wait: a
// cluster of 4 slots lets 2 early reducers run, and maps keep the rest.
func TestEarlyShuffleLimitAvoidsReducerDeadlock(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 4)}}
	e := newEngine(t, Config{SlowStart: 0.1}, topo, w, ds, &scripted{offer: greedy})
	ctx := &Context{e}
	m, _ := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	e.Schedule()
	reducers, maps := 0, 0
	var aMap *Attempt
	for _, a := range e.Ready().Launches {
		if a.Task.Stage == 1 {
			reducers++
		} else {
			maps++
			aMap = a
		}
	}
	if reducers != 2 || maps != 2 {
		t.Fatalf("%d early reducers and %d maps on 4 slots, want 2 and 2", reducers, maps)
	}
	// free a map's slot: a third early reducer may still not have it
	if err := ctx.Kill(aMap.ID); err != nil {
		t.Fatal(err)
	}
	for _, ti := range []int32{0, 1, 2, 3} {
		if e.Job(0).Stages[1].Tasks[ti].State != TaskPending {
			continue
		}
		_, err := ctx.Launch(TaskRef{0, 1, ti}, aMap.Host, LaunchOptions{})
		if err == nil || !strings.Contains(err.Error(), "early shuffle limit") {
			t.Fatalf("third early reducer: %v", err)
		}
		break
	}
}

// A policy's output placement whose first replica is not on the writer is
// refused (the writer's worker writes that copy itself), and the engine
// places the output.
func TestOutputPlacementStartsOnTheWriter(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, OutputReplicas: 2}}}}}
	p := &placing{}
	p.output = func(ctx *Context, a *Attempt, n int) []workload.Replica {
		return []workload.Replica{{Host: 3, Tier: cluster.HDD}, {Host: 1, Tier: cluster.HDD}}
	}
	e := newEngine(t, Config{}, topo, w, ds, p)
	ctx := &Context{e}
	id, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if reps := e.Attempt(id).OutputReplicas; len(reps) != 2 || reps[0].Host != 0 {
		t.Fatalf("output replicas %+v, want the engine's, first on the writer (host 0)", reps)
	}
	if got := e.Stats.RejectedByReason["bad output placement"]; got != 1 {
		t.Errorf("rejections %v, want one bad output placement", e.Stats.RejectedByReason)
	}
}
