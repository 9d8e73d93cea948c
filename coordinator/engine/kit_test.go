package engine

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// New places datasets and adds queues in copies of its own: the caller's
// inputs stay as they were.
func TestNewDoesNotModifyItsInputs(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		{Name: "raw", Size: 300, BlockSize: 100, Replication: 2},
		blocksOn("placed", 10, 0, 1),
	}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("a", "raw", 2), mapReduce("b", "placed", 1)}}
	w.Jobs[0].Queue = "adhoc"
	cfg := Config{Queues: []Queue{{Name: "prod", Weight: 2}}}
	before := struct {
		ds  workload.Datasets
		w   workload.Workload
		cfg []Queue
	}{cloneDatasets(ds), cloneWorkload(w), append([]Queue(nil), cfg.Queues...)}
	e := newEngine(t, cfg, topo, w, ds, &scripted{offer: greedy})
	if !reflect.DeepEqual(*ds, before.ds) || !reflect.DeepEqual(*w, before.w) || !reflect.DeepEqual(cfg.Queues, before.cfg) {
		t.Fatal("New modified its inputs")
	}
	if !e.Datasets().Datasets[0].Placed() || len(e.Datasets().Datasets[0].Blocks) != 3 {
		t.Fatalf("the engine's own datasets are not placed: %+v", e.Datasets().Datasets[0])
	}
	// the default placer is HDFS's: two replicas of each block, on two racks
	for _, b := range e.Datasets().Datasets[0].Blocks {
		if len(b.Replicas) != 2 || topo.RackOf(b.Replicas[0].Host) == topo.RackOf(b.Replicas[1].Host) {
			t.Fatalf("block placed %+v, want 2 replicas on 2 racks", b.Replicas)
		}
	}
	// moving a replica between tiers is the engine's business too
	rep := ds.Datasets[1].Blocks[0].Replicas[0]
	if err := (&Context{e}).SetReplicaTier("placed", 0, rep.Host, cluster.SSD); err != nil {
		t.Fatal(err)
	}
	if ds.Datasets[1].Blocks[0].Replicas[0].Tier != rep.Tier {
		t.Fatal("SetReplicaTier changed the caller's dataset")
	}
}

func cloneDatasets(ds *workload.Datasets) workload.Datasets {
	out := workload.Datasets{}
	for _, d := range ds.Datasets {
		c := d
		c.Blocks = nil
		for _, b := range d.Blocks {
			c.Blocks = append(c.Blocks, workload.Block{Size: b.Size, Replicas: append([]workload.Replica(nil), b.Replicas...)})
		}
		out.Datasets = append(out.Datasets, c)
	}
	return out
}

func cloneWorkload(w *workload.Workload) workload.Workload {
	out := workload.Workload{}
	for _, j := range w.Jobs {
		c := j
		c.Stages = append([]workload.Stage(nil), j.Stages...)
		out.Jobs = append(out.Jobs, c)
	}
	return out
}

type configuring struct{ scripted }

func (p *configuring) Configure(cfg *Config) {
	cfg.SlowStart = 1
	cfg.MaxTaskFailures = 9
}

// A policy's defaults fill what the run left unset, and only that.
func TestConfigureFillsUnsetFields(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	e := newEngine(t, Config{MaxTaskFailures: 2}, topo, w, ds, &configuring{})
	if e.cfg.SlowStart != 1 || e.cfg.MaxTaskFailures != 2 {
		t.Fatalf("slow-start %g, max failures %d: want the policy's 1 and the run's 2", e.cfg.SlowStart, e.cfg.MaxTaskFailures)
	}
}

type planPlacer struct {
	planning
	planned bool
}

func (p *planPlacer) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	out := make([][]workload.Replica, len(sizes))
	for i := range out {
		host := cluster.HostID(3)
		if !p.planned {
			host = 0 // placed before the plan: wrong
		}
		out[i] = []workload.Replica{{Host: host, Tier: cluster.HDD}}
	}
	return out, nil
}

// Plan runs before data is placed, with the predictions, and is timed.
func TestPlanBeforePlacementWithPredictions(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 20, BlockSize: 10, Replication: 1}}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	pred := &workload.Predicted{Jobs: []workload.Prediction{{ID: "j", InputBytes: 25, MapTasks: 3}}}
	p := &planPlacer{}
	var seen *workload.Predicted
	p.plan = func(ctx *Context, fk *Foreknowledge) {
		p.planned = true
		seen = fk.Predicted
	}
	clock := int64(0)
	e := newEngine(t, Config{Predicted: pred, Stopwatch: func() int64 { clock += 7; return clock }}, topo, w, ds, p)
	if seen != pred {
		t.Fatal("the planner was not told the predictions")
	}
	for _, b := range e.Datasets().Datasets[0].Blocks {
		if b.Replicas[0].Host != 3 {
			t.Fatal("data was placed before the plan")
		}
	}
	if e.Stats.PlanNanos != 7 {
		t.Fatalf("plan time %d, want 7", e.Stats.PlanNanos)
	}
	bad := &workload.Predicted{Jobs: []workload.Prediction{{ID: "nope"}}}
	if _, err := New(Config{Predicted: bad}, topo, w, ds, &scripted{}); err == nil {
		t.Fatal("a prediction of an unknown job was accepted")
	}
}

type inputWatcher struct {
	scripted
	done []AttemptID
}

func (p *inputWatcher) InputDone(ctx *Context, a *Attempt) { p.done = append(p.done, a.ID) }

// Shuffle availability is pushed in Ready, once per attempt and change;
// input-done and progress reach the attempt and the policy.
func TestShuffleUpdatesInputDoneAndProgress(t *testing.T) {
	topo := topo2x2(t, 4)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 0, 1, 2)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	p := &inputWatcher{}
	p.offer = greedy
	e := newEngine(t, Config{SlowStart: 0.3}, topo, w, ds, p)
	e.Offer(0)
	maps := e.Ready().Launches
	if len(maps) != 3 {
		t.Fatalf("%d maps launched", len(maps))
	}
	if err := e.Progress(maps[0].ID, 40); err != nil || e.Attempt(maps[0].ID).Received != 40 {
		t.Fatalf("progress: %v", err)
	}
	if err := e.InputDone(maps[0].ID); err != nil || len(p.done) != 1 || !e.Attempt(maps[0].ID).InputDone {
		t.Fatalf("input done: %v, hook saw %v", err, p.done)
	}
	if err := e.AttemptSucceeded(maps[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	e.Offer(1) // the reduce is released by slow-start
	rd := e.Ready()
	if len(rd.Launches) != 1 || rd.Launches[0].InputFixed {
		t.Fatalf("launches %+v: want one early reduce, input not yet fixed", rd.Launches)
	}
	red := rd.Launches[0].ID
	if err := e.InputDone(red); err == nil {
		t.Fatal("a reduce had its whole input before its upstream was done")
	}
	for i, a := range maps[1:] {
		if err := e.AttemptSucceeded(a.ID, nil); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue // two map outputs change before the driver looks: one update
		}
	}
	rd = e.Ready()
	if len(rd.Shuffles) != 1 || rd.Shuffles[0] != (ShuffleUpdate{Attempt: red, Complete: true}) {
		t.Fatalf("shuffle updates %+v, want one complete update of attempt %d", rd.Shuffles, red)
	}
	if a := e.Attempt(red); !a.InputFixed || a.InputBytes != 300 {
		t.Fatalf("reduce input fixed %v at %d bytes, want 300", a.InputFixed, a.InputBytes)
	}
	if len(e.Ready().Shuffles) != 0 {
		t.Fatal("an update was repeated")
	}
}

// oneMapJob is a job of one map over one 64-byte block with replicas on
// host 0 (HDD) and host 2 (on tier second).
func oneMapJob(second cluster.TierKind) (*workload.Datasets, *workload.Workload) {
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{{Size: 64, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}, {Host: 2, Tier: second}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1}}}}}
	return ds, w
}

// launchOK launches task ref on host h (a copy beside its running
// attempt when duplicate), failing the test if the engine refuses.
func launchOK(t *testing.T, ctx *Context, ref TaskRef, h cluster.HostID, duplicate bool) AttemptID {
	t.Helper()
	launch := ctx.Launch
	if duplicate {
		launch = ctx.LaunchDuplicate
	}
	id, err := launch(ref, h, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A held output that dies with its host is not used when the task's last
// running attempt fails: the task runs again.
func TestHeldOutputOnLostHostIsPruned(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{{Size: 64, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}, {Host: 2, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	p := &choosing{}
	p.choose = func(ctx *Context, a *Attempt) OutputDecision { return HoldOutput }
	e := newEngine(t, Config{}, topo, w, ds, p)
	ctx := &Context{e}
	orig := launchOK(t, ctx, TaskRef{0, 0, 0}, 1, false)
	dup := launchOK(t, ctx, TaskRef{0, 0, 0}, 1^3, true)  // host 2
	if err := e.AttemptSucceeded(orig, nil); err != nil { // held, on host 1
		t.Fatal(err)
	}
	// host 1 dies with the held output, then the duplicate fails
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptFailed(dup, "disk"); err != nil {
		t.Fatal(err)
	}
	task := ctx.Task(TaskRef{0, 0, 0})
	if task.State != TaskPending {
		t.Fatalf("task %v with output on host %d: the lost held output was used", task.State, task.OutHost)
	}
}

// When a task's last running copy is discarded, the output held back
// from an earlier copy finishes the task: it does not run a third time.
func TestDiscardedCopyUsesHeldOutput(t *testing.T) {
	topo := topo2x2(t, 1)
	ds, w := oneMapJob(cluster.HDD)
	p := &choosing{}
	p.choose = func(ctx *Context, a *Attempt) OutputDecision {
		if a.Duplicate {
			return DiscardOutput
		}
		return HoldOutput
	}
	e := newEngine(t, Config{}, topo, w, ds, p)
	ctx := &Context{e}
	orig := launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false)
	dup := launchOK(t, ctx, TaskRef{0, 0, 0}, 2, true)
	if err := e.AttemptSucceeded(orig, nil); err != nil { // held
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(dup, nil); err != nil { // discarded
		t.Fatal(err)
	}
	task := ctx.Task(TaskRef{0, 0, 0})
	if task.State != TaskDone || task.OutAttempt != orig || e.Job(0).State != JobSucceeded {
		t.Fatalf("task %v with output of attempt %d, job %s: want done with the held output of %d", task.State, task.OutAttempt, e.Job(0).State, orig)
	}
}

// A held output with no other copy of its task running is used at once,
// and counts for slow-start only as the done task it becomes.
func TestHeldOutputUsedAtOnceLeavesNoHeldSplit(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{{Size: 64, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}, {Size: 64, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	p := &choosing{}
	p.choose = func(ctx *Context, a *Attempt) OutputDecision { return HoldOutput }
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, p)
	ctx := &Context{e}
	ids := []AttemptID{ // one slot a host
		launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false),
		launchOK(t, ctx, TaskRef{0, 0, 1}, 1, false),
	}
	if err := e.AttemptSucceeded(ids[0], nil); err != nil { // the only copy: used at once
		t.Fatal(err)
	}
	st := e.Job(0).Stages[0]
	if st.Done != 1 || st.heldSplits != 0 {
		t.Fatalf("done %d, held splits %d: want 1 and 0", st.Done, st.heldSplits)
	}
	if e.Job(0).Stages[1].Released {
		t.Fatal("the reduce stage was released at slow-start 1 with one of two maps done")
	}
	if err := e.AttemptSucceeded(ids[1], nil); err != nil {
		t.Fatal(err)
	}
	if !e.Job(0).Stages[1].Released || st.heldSplits != 0 {
		t.Fatalf("released %v, held splits %d after both maps: want true and 0", e.Job(0).Stages[1].Released, st.heldSplits)
	}
}

// A queue's ordering decides its jobs' order; the policy's own is the
// default.
func TestQueueOrdering(t *testing.T) {
	a := &Job{ID: 0, Submitted: 1, Running: 5}
	b := &Job{ID: 1, Submitted: 2, Running: 1}
	if !OrderFIFO.Less(a, b) || OrderFair.Less(a, b) {
		t.Fatal("FIFO must serve the earlier job, Fair the one holding fewer slots")
	}
	if OrderDefault.Resolve(OrderFair) != OrderFair || OrderFIFO.Resolve(OrderFair) != OrderFIFO {
		t.Fatal("Resolve")
	}
	if o, err := ParseOrdering("fair"); err != nil || o != OrderFair {
		t.Fatalf("ParseOrdering: %v %v", o, err)
	}
	if _, err := ParseOrdering("lifo"); err == nil {
		t.Fatal("an unknown ordering was accepted")
	}
	topo := topo2x2(t, 1)
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	if _, err := New(Config{Queues: []Queue{{Name: "q", Capacity: 0.5, MaxCapacity: 0.2}}}, topo, w, ds, &scripted{}); err == nil {
		t.Fatal("a queue whose maximum is below its capacity was accepted")
	}
	if _, err := New(Config{Queues: []Queue{{Name: "q", Weight: 1}, {Name: "q", Weight: 2}}}, topo, w, ds, &scripted{}); err == nil || !strings.Contains(err.Error(), "the name q is queue 0's too") {
		t.Fatalf("two queues of one name: %v", err)
	}
	if _, err := New(Config{Queues: []Queue{{Name: "a", Capacity: 0.7}, {Name: "b", Capacity: 0.7}}}, topo, w, ds, &scripted{}); err == nil || !strings.Contains(err.Error(), "capacities add up to 1.4") {
		t.Fatalf("capacities of 1.4: %v", err)
	}
}

// An output placer in Config places job outputs (HDFS-style baselines).
func TestConfigOutputPlacer(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	job := workload.Job{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, OutputReplicas: 2}}}
	w := &workload.Workload{Jobs: []workload.Job{job}}
	e := newEngine(t, Config{OutputPlacer: offRack{}}, topo, w, ds, &scripted{offer: greedy})
	e.Offer(0)
	rd := e.Ready()
	if len(rd.Launches) != 1 {
		t.Fatal("no launch")
	}
	reps := rd.Launches[0].OutputReplicas
	if len(reps) != 2 || reps[0].Host != 0 || topo.RackOf(reps[1].Host) == topo.RackOf(0) {
		t.Fatalf("output replicas %+v, want the writer and an off-rack host", reps)
	}
}

// offRack puts the second replica on the first host of the last rack.
type offRack struct{}

func (offRack) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	last := t.Racks[len(t.Racks)-1].Hosts[0]
	return []workload.Replica{{Host: writer, Tier: cluster.HDD}, {Host: last, Tier: cluster.HDD}}
}

// With OutputPipeline a replica's bytes are counted from the replica
// before it, as HDFS's write pipeline sends them: of HDFS's placement (the
// writer, then two hosts of another rack) one copy crosses racks, where
// sent from the writer both do.
func TestOutputPipelineLevels(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	job := workload.Job{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, OutputReplicas: 3}}}
	w := &workload.Workload{Jobs: []workload.Job{job}}
	for _, c := range []struct {
		pipeline     bool
		rack, across int64
	}{{false, 0, 20}, {true, 10, 10}} {
		e := newEngine(t, Config{OutputPipeline: c.pipeline, OutputPlacer: otherRackPair{}}, topo, w, ds, &scripted{offer: greedy})
		e.Offer(0)
		rd := e.Ready()
		if len(rd.Launches) != 1 {
			t.Fatal("no launch")
		}
		if err := e.AttemptSucceeded(rd.Launches[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		out := e.Ready().Attempts[0].Bytes[ClassOutput]
		if out[LevelRack] != c.rack || out[LevelCross] != c.across {
			t.Errorf("pipeline %v: output bytes in-rack %d, cross-rack %d; want %d and %d", c.pipeline, out[LevelRack], out[LevelCross], c.rack, c.across)
		}
	}
}

// otherRackPair places HDFS's way: the writer, then the two hosts of the
// last rack.
type otherRackPair struct{}

func (otherRackPair) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	r := t.Racks[len(t.Racks)-1].Hosts
	return []workload.Replica{{Host: writer, Tier: cluster.HDD}, {Host: r[0], Tier: cluster.HDD}, {Host: r[1], Tier: cluster.HDD}}
}

// TestOutputCopies checks what a planner is told of an output's copies
// (Context.OutputCopies), hop by hop as TestOutputPipelineLevels counts
// the bytes: under HDFS's placement (the writer, then two hosts of
// rack 1) the writer's NIC sends one copy and one crosses racks through
// the pipeline, two and two without it; the default placement (the
// writer's rack) sends one copy of two and none across; one replica,
// nothing. The run's own random source is not drawn from.
func TestOutputCopies(t *testing.T) {
	topo := topo2x2(t, 1)
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", OutputReplicas: 3}}}}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	for _, c := range []struct {
		name       string
		cfg        Config
		n          int
		out, cross float64
	}{
		{"hdfs, pipeline", Config{OutputPipeline: true, OutputPlacer: otherRackPair{}}, 3, 1, 1},
		{"hdfs, from the writer", Config{OutputPlacer: otherRackPair{}}, 3, 2, 2},
		{"default placement", Config{OutputPipeline: true}, 2, 1, 0},
		{"one replica", Config{OutputPipeline: true}, 1, 0, 0},
	} {
		e := newEngine(t, c.cfg, topo, w, ds, &scripted{offer: greedy})
		twin := newEngine(t, c.cfg, topo, w, ds, &scripted{offer: greedy})
		out, cross := (&Context{e: e}).OutputCopies(rand.New(rand.NewPCG(1, 2)), 0, c.n, 8)
		if out != c.out || cross != c.cross {
			t.Errorf("%s: %g copies out of the writer, %g across racks; want %g and %g", c.name, out, cross, c.out, c.cross)
		}
		if e.rng.Uint64() != twin.rng.Uint64() {
			t.Errorf("%s: OutputCopies drew from the run's random source", c.name)
		}
	}
}
