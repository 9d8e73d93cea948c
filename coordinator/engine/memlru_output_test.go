package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// memWriter writes every output's one replica in the writer's memory.
type memWriter struct{}

func (memWriter) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	return []workload.Replica{{Host: writer, Tier: cluster.Mem}}
}

// childJob is a map-only job reading a parent's output, arriving at a
// time; its maps write what they read.
func childJob(id, parent string, at Time) workload.Job {
	return workload.Job{ID: id, Arrival: at, Parents: []string{parent},
		Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: workload.ParentOutputPrefix + parent, Selectivity: 1}}}
}

// copyJob is a map-only job writing what it reads of a dataset.
func copyJob(id, input string, at Time) workload.Job {
	j := lruJob(id, input, at)
	j.Stages[0].Selectivity = 1
	return j
}

// memOutputs lists the job outputs ("out:job") with a memory replica on
// host h, and their bytes.
func memOutputs(e *Engine, h cluster.HostID) ([]string, int64) {
	var names []string
	var bytes int64
	for _, j := range e.jobs {
		for _, st := range j.Stages {
			if !st.Final {
				continue
			}
			for ti := range st.Tasks {
				t := &st.Tasks[ti]
				if t.State != TaskDone {
					continue
				}
				for _, r := range t.OutReplicas {
					if r.Host == h && r.Tier == cluster.Mem {
						names = append(names, "out:"+j.Spec.ID)
						bytes += t.OutputBytes
					}
				}
			}
		}
	}
	return names, bytes
}

// memAll is host h's memory: dataset blocks and outputs, sorted.
func memAll(e *Engine, h cluster.HostID) ([]string, int64) {
	blocks, b1 := memOn(e.Datasets(), h)
	outs, b2 := memOutputs(e, h)
	all := append(blocks, outs...)
	slices.Sort(all)
	return all, b1 + b2
}

// With MemoryLRU on, outputs written in memory are cached with the
// datasets' blocks: admitted against the capacity, evicted in LRU order
// with them, refreshed when a child job's map reads them, and demoted by
// a TierMove of the output that the child's later maps follow.
func TestMemoryLRUManagesOutputs(t *testing.T) {
	topo := lruTopo(t, 300)
	topo.Hosts[0].Slots = 1 // one map at a time, in submission order
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100), tiered("c", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{
		copyJob("ja", "a", 1), copyJob("jb", "b", 2), childJob("jc", "ja", 3),
		childJob("je", "jb", 3.5), // its map launches after jb's output is demoted
		lruJob("jd", "c", 4),      // writes nothing: its output of 0 B takes no room
	}}
	e := newEngine(t, Config{MemoryLRU: true, OutputPlacer: memWriter{}}, topo, w, ds, &scripted{offer: greedy})
	steps := []struct {
		at    Time
		offer bool
		mem   []string
		moves []string
	}{
		{1, true, []string{"a/0", "out:ja"}, []string{"a/0:hdd>mem"}},
		// jb's output evicts a/0, the oldest
		{2, true, []string{"b/0", "out:ja", "out:jb"}, []string{"b/0:hdd>mem", "a/0:mem>hdd"}},
		// jc reads ja's output from memory, so it is recent: b/0 goes
		{3, true, []string{"out:ja", "out:jb", "out:jc"}, []string{"b/0:mem>hdd"}},
		{3.5, false, []string{"out:ja", "out:jb", "out:jc"}, nil},
		// c's upload evicts jb's output, the oldest
		{4, false, []string{"c/0", "out:ja", "out:jc"}, []string{"out:jb:mem>hdd", "c/0:hdd>mem"}},
		// je, submitted before jb's output was demoted, reads it on HDD;
		// its own output evicts ja's
		{4.5, true, []string{"c/0", "out:jc", "out:je"}, []string{"out:ja:mem>hdd"}},
		{5, true, []string{"c/0", "out:jc", "out:jd", "out:je"}, nil},
	}
	jobOf := map[AttemptID]string{}
	readTier := map[string]cluster.TierKind{}
	for _, step := range steps {
		if err := e.Advance(step.at); err != nil {
			t.Fatal(err)
		}
		if step.offer {
			e.Offer(0)
		}
		rd := e.Ready()
		for _, a := range rd.Launches {
			jobOf[a.ID] = e.Job(a.Task.Job).Spec.ID
			readTier[jobOf[a.ID]] = a.Source.Tier
		}
		finishAll(t, e, rd)
		rd2 := e.Ready()
		var moves []string
		for _, m := range append(rd.TierMoves, rd2.TierMoves...) {
			name := fmt.Sprintf("%s/%d", m.Dataset, m.Block)
			if m.Dataset == "" {
				if m.Object() != (ObjectRef{Attempt: m.Attempt}) {
					t.Fatalf("move %+v names %+v", m, m.Object())
				}
				name = "out:" + jobOf[m.Attempt]
			}
			moves = append(moves, fmt.Sprintf("%s:%s>%s", name, m.From, m.To))
		}
		if !slices.Equal(moves, step.moves) {
			t.Errorf("at %g: moves %v, want %v", step.at, moves, step.moves)
		}
		mem, used := memAll(e, 0)
		if !slices.Equal(mem, step.mem) {
			t.Errorf("at %g: host 0's memory holds %v, want %v", step.at, mem, step.mem)
		}
		if used > 300 || used != e.lru.used[0] {
			t.Errorf("at %g: host 0 holds %d B in memory, the cache counts %d, capacity 300", step.at, used, e.lru.used[0])
		}
	}
	want := map[string]cluster.TierKind{"ja": cluster.Mem, "jb": cluster.Mem, "jc": cluster.Mem, "jd": cluster.Mem, "je": cluster.HDD}
	if !reflect.DeepEqual(readTier, want) {
		t.Errorf("maps read %v, want %v", readTier, want)
	}
	if e.Stats.MemoryOutputs != 5 || e.Stats.MemoryUploads != 3 || e.Stats.MemoryDemotions != 4 || e.Stats.Rejected != 0 {
		t.Errorf("outputs %d, uploads %d, demotions %d, rejected %v; want 5, 3, 4, none", e.Stats.MemoryOutputs, e.Stats.MemoryUploads,
			e.Stats.MemoryDemotions, e.Stats.RejectedByReason)
	}
	for _, j := range e.jobs {
		if j.State != JobSucceeded {
			t.Errorf("job %s is %s", j.Spec.ID, j.State)
		}
	}
}

// An output being written is not evicted: with memory full of running
// attempts' outputs, the next is written to HDD, and an attempt that
// fails gives its room back without a move.
func TestMemoryLRUOutputsBeingWritten(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 1, 2)}}
	w := &workload.Workload{Jobs: []workload.Job{copyJob("j", "in", 0)}}
	e := newEngine(t, Config{MemoryLRU: true, OutputPlacer: memWriter{}}, topo, w, ds, &scripted{offer: greedy})
	e.Offer(0) // two slots: two maps, the second finds memory taken
	rd := e.Ready()
	if len(rd.Launches) != 2 || len(rd.TierMoves) != 0 {
		t.Fatalf("%d launches, moves %+v; want 2, none", len(rd.Launches), rd.TierMoves)
	}
	if got := []cluster.TierKind{rd.Launches[0].OutputReplicas[0].Tier, rd.Launches[1].OutputReplicas[0].Tier}; !slices.Equal(got, []cluster.TierKind{cluster.Mem, cluster.HDD}) {
		t.Fatalf("outputs written to %v, want mem then hdd", got)
	}
	if err := e.AttemptFailed(rd.Launches[0].ID, "boom"); err != nil {
		t.Fatal(err)
	}
	if e.lru.used[0] != 0 || len(e.Ready().TierMoves) != 0 {
		t.Fatalf("after the failure the cache counts %d B on host 0, want 0 and no move", e.lru.used[0])
	}
}

// Off (the default), an output written in memory stays there and
// nothing moves.
func TestMemoryLRUOffLeavesOutputs(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{copyJob("ja", "a", 1), copyJob("jb", "b", 2), childJob("jc", "ja", 3)}}
	e := newEngine(t, Config{OutputPlacer: memWriter{}}, topo, w, ds, &scripted{offer: greedy})
	for _, at := range []Time{1, 2, 3} {
		if err := e.Advance(at); err != nil {
			t.Fatal(err)
		}
		e.Offer(0)
		rd := e.Ready()
		if len(rd.TierMoves) > 0 {
			t.Fatalf("at %g: moves %+v without MemoryLRU", at, rd.TierMoves)
		}
		finishAll(t, e, rd)
	}
	if mem, _ := memAll(e, 0); !slices.Equal(mem, []string{"a/0", "b/0", "out:ja", "out:jb", "out:jc"}) {
		t.Fatalf("host 0's memory holds %v, want everything as placed", mem)
	}
	if e.Stats.MemoryOutputs != 0 || e.Stats.MemoryDemotions != 0 {
		t.Fatalf("%d outputs admitted, %d demotions without MemoryLRU", e.Stats.MemoryOutputs, e.Stats.MemoryDemotions)
	}
}

// An output whose final size is above what was admitted (a reduce's
// output is an expectation until its input is) takes its final size
// when written, and the host evicts again: the older blocks first, the
// output itself if they are not enough.
func TestMemoryLRUOutputGrowsWhenWritten(t *testing.T) {
	for _, tc := range []struct {
		memCap int64
		moves  []string
		used   int64
	}{
		{300, []string{"a/0:mem>hdd"}, 250},
		{200, []string{"a/0:mem>hdd", "out:mem>hdd"}, 0},
	} {
		topo := lruTopo(t, tc.memCap)
		topo.Hosts[0].Slots = 1
		ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100)}}
		w := &workload.Workload{Jobs: []workload.Job{copyJob("ja", "a", 1)}}
		e := newEngine(t, Config{MemoryLRU: true, OutputPlacer: memWriter{}}, topo, w, ds, &scripted{offer: greedy})
		if err := e.Advance(1); err != nil {
			t.Fatal(err)
		}
		e.Offer(0)
		rd := e.Ready()
		if len(rd.Launches) != 1 || e.lru.used[0] != 200 {
			t.Fatalf("cap %d: %d launches, %d B in memory; want 1 and a/0 with the output", tc.memCap, len(rd.Launches), e.lru.used[0])
		}
		rd.Launches[0].OutputBytes = 250 // as fixShuffle would, for a reduce
		if err := e.AttemptSucceeded(rd.Launches[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		var moves []string
		for _, m := range e.Ready().TierMoves {
			name := fmt.Sprintf("%s/%d", m.Dataset, m.Block)
			if m.Dataset == "" {
				name = "out"
			}
			moves = append(moves, fmt.Sprintf("%s:%s>%s", name, m.From, m.To))
		}
		if !slices.Equal(moves, tc.moves) || e.lru.used[0] != tc.used {
			t.Errorf("cap %d: moves %v, %d B in memory; want %v, %d", tc.memCap, moves, e.lru.used[0], tc.moves, tc.used)
		}
		if _, used := memAll(e, 0); used != tc.used {
			t.Errorf("cap %d: host 0 holds %d B in memory, the cache counts %d", tc.memCap, used, tc.used)
		}
	}
}

// An upload that finds its host's memory full of outputs still being
// written leaves the block where it is held, on HDD: nothing can be
// evicted yet, and the engine goes on (it must not spin on the
// eviction).
func TestMemoryLRUUploadBehindOutputsBeingWritten(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 0), tiered("b", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{copyJob("j", "in", 0), lruJob("k", "b", 1)}}
	e := newEngine(t, Config{MemoryLRU: true, OutputPlacer: memWriter{}}, topo, w, ds, &scripted{offer: greedy})
	e.Offer(0) // j's one map writes its 100 B output into host 0's memory
	if rd := e.Ready(); len(rd.Launches) != 1 || rd.Launches[0].OutputReplicas[0].Tier != cluster.Mem {
		t.Fatalf("launches %+v, want one writing to memory", rd.Launches)
	}
	if err := e.Advance(1); err != nil { // k arrives: b is uploaded
		t.Fatal(err)
	}
	if mem, used := memAll(e, 0); len(mem) != 0 || e.lru.used[0] != 100 || used != 0 {
		t.Errorf("host 0's memory holds %v (%d B done), the cache counts %d B; want only j's output being written, 100 B", mem, used, e.lru.used[0])
	}
	if tier, _ := e.replicaTier(ObjectRef{Dataset: "b", Block: 0}, 0); tier != cluster.HDD || e.Stats.MemoryUploads != 0 {
		t.Errorf("b/0 on host 0 is on %s after %d uploads, want hdd and none", tier, e.Stats.MemoryUploads)
	}
}
