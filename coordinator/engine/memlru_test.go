package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// lruTopo is one rack of three hosts whose memory tiers hold memCap bytes
// (0: unbounded).
func lruTopo(t *testing.T, memCap int64) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 3, Slots: 2, NICBps: 1e9, Oversubscription: 1,
		Tiers: []cluster.Tier{
			{Kind: cluster.Mem, ReadBps: 4e9, WriteBps: 2e9, CapacityBytes: memCap},
			{Kind: cluster.SSD, ReadBps: 5e8, WriteBps: 4e8},
			{Kind: cluster.HDD, ReadBps: 2e8, WriteBps: 1.6e8},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// tiered makes a placed dataset of blocks of the given sizes, each with
// a memory replica on host 0, an HDD one on host 1 and an SSD one on
// host 2 (OctopusFS's one replica per tier).
func tiered(name string, sizes ...int64) workload.Dataset {
	d := workload.Dataset{Name: name}
	for _, s := range sizes {
		d.Blocks = append(d.Blocks, workload.Block{Size: s, Replicas: []workload.Replica{
			{Host: 0, Tier: cluster.Mem}, {Host: 1, Tier: cluster.HDD}, {Host: 2, Tier: cluster.SSD}}})
	}
	return d
}

// lruJob is a map-only job reading a dataset, arriving at a time.
func lruJob(id, input string, at Time) workload.Job {
	return workload.Job{ID: id, Arrival: at, Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: input}}}
}

// lruStep is a time the scenario advances to, and the blocks ("dataset/
// block", sorted) in host 0's memory once the jobs that arrived are
// submitted and their maps launched and done.
type lruStep struct {
	at  Time
	mem []string
}

type lruScenario struct {
	name     string
	memCap   int64
	datasets []workload.Dataset
	jobs     []workload.Job
	read     bool // launch the maps (a launch is a use of its block)
	steps    []lruStep
	// uploads and demotions are the Stats at the end.
	uploads, demotions int64
}

var lruScenarios = []lruScenario{
	{
		name:     "a block read recently survives, the oldest is demoted",
		memCap:   200,
		datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100), tiered("c", 100), tiered("d", 100)},
		// a2 reads a again after b's upload: b is the older when c comes
		jobs: []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2), lruJob("ja2", "a", 2.5), lruJob("jc", "c", 3), lruJob("jd", "d", 4)},
		read: true,
		steps: []lruStep{
			{0, nil}, {1, []string{"a/0"}}, {2, []string{"a/0", "b/0"}}, {2.5, []string{"a/0", "b/0"}},
			{3, []string{"a/0", "c/0"}}, {4, []string{"c/0", "d/0"}},
		},
		uploads: 4, demotions: 2,
	},
	{
		name:     "without reads the least recently uploaded goes first",
		memCap:   200,
		datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100), tiered("c", 100), tiered("d", 100)},
		jobs:     []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2), lruJob("jc", "c", 3), lruJob("jd", "d", 4)},
		read:     true,
		steps:    []lruStep{{1, []string{"a/0"}}, {2, []string{"a/0", "b/0"}}, {3, []string{"b/0", "c/0"}}, {4, []string{"c/0", "d/0"}}},
		uploads:  4, demotions: 2,
	},
	{
		name:     "a dataset is uploaded when its first reader arrives, not before",
		memCap:   300,
		datasets: []workload.Dataset{tiered("a", 100, 100), tiered("never", 100)},
		jobs:     []workload.Job{lruJob("ja", "a", 5), lruJob("ja2", "a", 6)},
		steps:    []lruStep{{0, nil}, {4.9, nil}, {5, []string{"a/0", "a/1"}}, {6, []string{"a/0", "a/1"}}},
		uploads:  2,
	},
	{
		name:     "a dataset larger than memory evicts its own first blocks",
		memCap:   200,
		datasets: []workload.Dataset{tiered("e", 100, 100, 100)},
		jobs:     []workload.Job{lruJob("je", "e", 1)},
		steps:    []lruStep{{1, []string{"e/1", "e/2"}}},
		uploads:  3, demotions: 1,
	},
	{
		name:     "a block larger than the whole memory tier stays on HDD",
		memCap:   150,
		datasets: []workload.Dataset{tiered("small", 100), tiered("big", 200, 50)},
		jobs:     []workload.Job{lruJob("js", "small", 1), lruJob("jb", "big", 2)},
		steps:    []lruStep{{1, []string{"small/0"}}, {2, []string{"big/1", "small/0"}}},
		uploads:  2,
	},
	{
		name:     "capacity 0 is unbounded",
		memCap:   0,
		datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100), tiered("c", 100)},
		jobs:     []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2), lruJob("jc", "c", 3)},
		read:     true,
		steps:    []lruStep{{3, []string{"a/0", "b/0", "c/0"}}},
		uploads:  3,
	},
}

// replicaModel is where every replica is: dataset/block/host → tier.
type replicaModel map[string]cluster.TierKind

func modelOf(ds *workload.Datasets) replicaModel {
	m := replicaModel{}
	for _, d := range ds.Datasets {
		for b, blk := range d.Blocks {
			for _, r := range blk.Replicas {
				m[fmt.Sprintf("%s/%d/%d", d.Name, b, r.Host)] = r.Tier
			}
		}
	}
	return m
}

// memOn lists the blocks in a host's memory, and their bytes.
func memOn(ds *workload.Datasets, h cluster.HostID) ([]string, int64) {
	var names []string
	var bytes int64
	for _, d := range ds.Datasets {
		for b, blk := range d.Blocks {
			for _, r := range blk.Replicas {
				if r.Host == h && r.Tier == cluster.Mem {
					names = append(names, fmt.Sprintf("%s/%d", d.Name, b))
					bytes += blk.Size
				}
			}
		}
	}
	slices.Sort(names)
	return names, bytes
}

// runLRU plays a scenario, checking at every step and after every tier
// move that each host's memory holds at most its capacity, that the
// moves the driver gets take the replicas from where they were to where
// the engine says they are, and that no replica is dropped. It returns
// the moves made.
func runLRU(t *testing.T, sc lruScenario) []TierMove {
	t.Helper()
	topo := lruTopo(t, sc.memCap)
	ds := &workload.Datasets{Datasets: sc.datasets}
	before := cloneDatasets(ds)
	w := &workload.Workload{Jobs: sc.jobs}
	p := &scripted{}
	if sc.read {
		p.offer = greedy
	}
	e, err := New(Config{MemoryLRU: true}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	// nothing is in memory until a reader arrives: the driver stores the
	// data where the engine's datasets say, so this needs no move
	for h := range topo.Hosts {
		if mem, _ := memOn(e.Datasets(), cluster.HostID(h)); len(mem) > 0 {
			t.Fatalf("host %d holds %v in memory before any job arrived", h, mem)
		}
	}
	model := modelOf(e.Datasets())
	var moves []TierMove
	for _, step := range sc.steps {
		if err := e.Advance(step.at); err != nil {
			t.Fatal(err)
		}
		e.Schedule()
		rd := e.Ready()
		for _, m := range rd.TierMoves {
			k := fmt.Sprintf("%s/%d/%d", m.Dataset, m.Block, m.Host)
			if model[k] != m.From {
				t.Fatalf("at %g: move %+v of a replica on %s", step.at, m, model[k])
			}
			model[k] = m.To
			// the driver executes the moves in order: memory must never
			// be over capacity in between
			var used int64
			for _, d := range e.Datasets().Datasets {
				for b, blk := range d.Blocks {
					if model[fmt.Sprintf("%s/%d/%d", d.Name, b, m.Host)] == cluster.Mem {
						used += blk.Size
					}
				}
			}
			if c := sc.memCap; c > 0 && used > c {
				t.Fatalf("at %g: after move %+v host %d holds %d B in memory, capacity %d", step.at, m, m.Host, used, c)
			}
		}
		moves = append(moves, rd.TierMoves...)
		if got := e.ctx.TierMoves(); got != int64(len(moves)) {
			t.Fatalf("at %g: TierMoves %d, the driver got %d moves", step.at, got, len(moves))
		}
		if got := modelOf(e.Datasets()); !reflect.DeepEqual(got, model) {
			t.Fatalf("at %g: replicas %v, the moves say %v (a replica dropped or moved without a TierMove)", step.at, got, model)
		}
		for h := range topo.Hosts {
			_, used := memOn(e.Datasets(), cluster.HostID(h))
			if sc.memCap > 0 && used > sc.memCap {
				t.Fatalf("at %g: host %d holds %d B in memory, capacity %d", step.at, h, used, sc.memCap)
			}
		}
		if mem, _ := memOn(e.Datasets(), 0); !slices.Equal(mem, step.mem) {
			t.Errorf("at %g: host 0's memory holds %v, want %v", step.at, mem, step.mem)
		}
		finishAll(t, e, rd)
	}
	if e.Stats.MemoryUploads != sc.uploads || e.Stats.MemoryDemotions != sc.demotions {
		t.Errorf("uploads %d, demotions %d; want %d, %d", e.Stats.MemoryUploads, e.Stats.MemoryDemotions, sc.uploads, sc.demotions)
	}
	if e.Stats.Rejected != 0 {
		t.Errorf("the cache's moves were rejected: %v", e.Stats.RejectedByReason)
	}
	if !reflect.DeepEqual(*ds, before) {
		t.Error("the cache changed the caller's datasets")
	}
	return moves
}

func TestMemoryLRU(t *testing.T) {
	for _, sc := range lruScenarios {
		t.Run(sc.name, func(t *testing.T) { runLRU(t, sc) })
	}
}

// A demotion that makes room comes before the promotion that needs it,
// in the moves the driver executes in order.
func TestMemoryLRUDemotesBeforePromoting(t *testing.T) {
	moves := runLRU(t, lruScenarios[1])
	var got []string
	for _, m := range moves {
		got = append(got, fmt.Sprintf("%s/%d:%s>%s", m.Dataset, m.Block, m.From, m.To))
	}
	want := "a/0:hdd>mem b/0:hdd>mem a/0:mem>hdd c/0:hdd>mem b/0:mem>hdd d/0:hdd>mem"
	if strings.Join(got, " ") != want {
		t.Fatalf("moves %v, want %s", got, want)
	}
}

// The same run makes the same moves.
func TestMemoryLRUDeterministic(t *testing.T) {
	first := runLRU(t, lruScenarios[0])
	for range 5 {
		if again := runLRU(t, lruScenarios[0]); !reflect.DeepEqual(again, first) {
			t.Fatalf("moves %v, then %v", first, again)
		}
	}
}

// Off (the default), memory replicas stay where the placer put them and
// nothing moves.
func TestMemoryLRUOffByDefault(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2)}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{offer: greedy})
	for _, at := range []Time{1, 2} {
		if err := e.Advance(at); err != nil {
			t.Fatal(err)
		}
		e.Schedule()
		rd := e.Ready()
		if len(rd.TierMoves) > 0 {
			t.Fatalf("at %g: moves %+v without MemoryLRU", at, rd.TierMoves)
		}
		finishAll(t, e, rd)
	}
	if mem, _ := memOn(e.Datasets(), 0); !slices.Equal(mem, []string{"a/0", "b/0"}) {
		t.Fatalf("host 0's memory holds %v, want both blocks as placed", mem)
	}
	if e.Stats.MemoryUploads != 0 || e.Stats.MemoryDemotions != 0 {
		t.Fatalf("stats %d uploads, %d demotions without MemoryLRU", e.Stats.MemoryUploads, e.Stats.MemoryDemotions)
	}
}

// A map that reads a block after its upload reads it from memory; one
// whose block was demoted reads the tier it went to (the engine's source
// choice follows the moves).
func TestMemoryLRUMapsReadWhereTheCacheSays(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2), lruJob("ja2", "a", 3)}}
	// every map runs on host 0, which holds the memory replicas
	e := newEngine(t, Config{MemoryLRU: true}, topo, w, ds, &scripted{offer: greedy})
	tiers := map[string]cluster.TierKind{}
	for _, at := range []Time{1, 2, 3} {
		if err := e.Advance(at); err != nil {
			t.Fatal(err)
		}
		e.Offer(0)
		rd := e.Ready()
		for _, a := range rd.Launches {
			tiers[e.Job(a.Task.Job).Spec.ID] = a.Source.Tier
		}
		finishAll(t, e, rd)
	}
	want := map[string]cluster.TierKind{"ja": cluster.Mem, "jb": cluster.Mem, "ja2": cluster.HDD}
	if !reflect.DeepEqual(tiers, want) {
		t.Fatalf("maps read %v, want %v", tiers, want)
	}
}

// A dataset whose memory host is lost before its upload stays where it
// was held there: the cache moves nothing on a dead host, and none of its
// moves is rejected.
func TestMemoryLRUSkipsDeadHosts(t *testing.T) {
	topo := lruTopo(t, 100)
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a", 100), tiered("b", 100)}}
	w := &workload.Workload{Jobs: []workload.Job{lruJob("ja", "a", 1), lruJob("jb", "b", 2)}}
	e := newEngine(t, Config{MemoryLRU: true}, topo, w, ds, &scripted{offer: greedy})
	if err := e.Advance(1); err != nil {
		t.Fatal(err)
	}
	e.Schedule()
	finishAll(t, e, e.Ready())
	if err := e.HostLost(0); err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(2); err != nil {
		t.Fatal(err)
	}
	e.Schedule()
	rd := e.Ready()
	if len(rd.TierMoves) > 0 {
		t.Fatalf("moves %+v on a dead host", rd.TierMoves)
	}
	finishAll(t, e, rd)
	if mem, _ := memOn(e.Datasets(), 0); !slices.Equal(mem, []string{"a/0"}) {
		t.Fatalf("dead host 0's memory holds %v, want a/0 as it was", mem)
	}
	if e.Stats.MemoryUploads != 1 || e.Stats.MemoryDemotions != 0 || e.Stats.Rejected != 0 {
		t.Fatalf("uploads %d, demotions %d, rejected %v", e.Stats.MemoryUploads, e.Stats.MemoryDemotions, e.Stats.RejectedByReason)
	}
	if j := e.Job(1); j.State != JobSucceeded {
		t.Fatalf("jb is %s: its HDD and SSD replicas are alive", j.State)
	}
}
