package engine

import (
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// shuffleLinksRun is one job on three racks of one host each (host i in
// rack i): three maps of 100 bytes, two on host 0 and one on host 1, and
// two reducers with shares 1:3, reducer 0 on host 2 and reducer 1 on
// host 1. With dupOn >= 0 a duplicate of reducer 0 runs on that host and
// finishes first. It returns the job's record and the run's attempt
// records.
func shuffleLinksRun(t *testing.T, dupOn cluster.HostID) (JobRecord, []AttemptRecord) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 1, Slots: 3, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 0, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 2, Shares: []float64{1, 3}, After: []string{"map"}, Selectivity: 1},
	}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	launch := func(ref TaskRef, h cluster.HostID, dup bool) AttemptID {
		t.Helper()
		var id AttemptID
		var err error
		if dup {
			id, err = ctx.LaunchDuplicate(ref, h, LaunchOptions{})
		} else {
			id, err = ctx.Launch(ref, h, LaunchOptions{})
		}
		if err != nil {
			t.Fatalf("launch %+v on host %d: %v", ref, h, err)
		}
		return id
	}
	succeed := func(id AttemptID) {
		t.Helper()
		if err := e.AttemptSucceeded(id, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range []cluster.HostID{0, 0, 1} {
		succeed(launch(TaskRef{0, 0, int32(i)}, h, false))
	}
	r0 := launch(TaskRef{0, 1, 0}, 2, false)
	r1 := launch(TaskRef{0, 1, 1}, 1, false)
	if dupOn >= 0 {
		succeed(launch(TaskRef{0, 1, 0}, dupOn, true)) // kills r0
	} else {
		succeed(r0)
	}
	succeed(r1)
	rd := e.Ready()
	if len(rd.Jobs) != 1 || rd.Jobs[0].State != JobSucceeded {
		t.Fatalf("job records %+v, want one job succeeded", rd.Jobs)
	}
	return rd.Jobs[0], rd.Attempts
}

// crossShuffle sums what the attempt records count as the cross-rack
// fetches of shuffling attempts: the shuffle class, and the duplicate
// class of duplicate reduce attempts.
func crossShuffle(recs []AttemptRecord) int64 {
	var n int64
	for _, a := range recs {
		if a.Kind == workload.Map || a.Outcome != AttemptSucceeded {
			continue
		}
		n += a.Bytes[ClassShuffle][LevelCross] + a.Bytes[ClassDuplicate][LevelCross]
	}
	return n
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// A job's per-rack shuffle link bytes, by hand: map outputs lie 200 bytes
// in rack 0 and 100 in rack 1. Reducer 0 (a quarter) in rack 2 fetches
// 75 across racks, 50 from rack 0 and 25 from rack 1; reducer 1 (three
// quarters) in rack 1 fetches 150 from rack 0 and its 75 from rack 1
// inside the rack. Up is [200 25 0], down [0 150 75], and each sums to
// the attempts' cross-rack shuffle bytes.
func TestJobShuffleLinkBytes(t *testing.T) {
	job, recs := shuffleLinksRun(t, -1)
	if want := []int64{200, 25, 0}; !slices.Equal(job.ShuffleUp, want) {
		t.Fatalf("shuffle up %v, want %v", job.ShuffleUp, want)
	}
	if want := []int64{0, 150, 75}; !slices.Equal(job.ShuffleDown, want) {
		t.Fatalf("shuffle down %v, want %v", job.ShuffleDown, want)
	}
	var shuffle int64
	for _, a := range recs {
		shuffle += a.Bytes[ClassShuffle][LevelCross]
	}
	if shuffle != 225 || sum(job.ShuffleUp) != shuffle || sum(job.ShuffleDown) != shuffle {
		t.Fatalf("cross-rack shuffle %d, up %d, down %d: want 225 each", shuffle, sum(job.ShuffleUp), sum(job.ShuffleDown))
	}
	if job.Duplicates != 0 || job.DuplicatesUsed != 0 {
		t.Fatalf("duplicates %d used %d, want none", job.Duplicates, job.DuplicatesUsed)
	}
}

// A duplicate reducer that wins loads the links of its own rack: reducer
// 0's duplicate in rack 0 fetches rack 1's 25 bytes across racks, and the
// killed original nothing. The job counts the duplicate, used.
func TestJobShuffleLinkBytesOfADuplicate(t *testing.T) {
	job, recs := shuffleLinksRun(t, 0)
	if want := []int64{150, 25, 0}; !slices.Equal(job.ShuffleUp, want) {
		t.Fatalf("shuffle up %v, want %v", job.ShuffleUp, want)
	}
	if want := []int64{25, 150, 0}; !slices.Equal(job.ShuffleDown, want) {
		t.Fatalf("shuffle down %v, want %v", job.ShuffleDown, want)
	}
	if n := crossShuffle(recs); n != 175 || sum(job.ShuffleUp) != n {
		t.Fatalf("attempts' cross-rack shuffle %d, links' %d: want 175 each", n, sum(job.ShuffleUp))
	}
	if job.Duplicates != 1 || job.DuplicatesUsed != 1 {
		t.Fatalf("duplicates %d used %d, want 1 and 1", job.Duplicates, job.DuplicatesUsed)
	}
}

// The split by source rack is whole bytes that add up to the cross-rack
// total whatever the rounding, largest remainders first.
func TestCrossSourcesAddUp(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 1, Slots: 1, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{topo: topo}
	up := &Stage{outByRack: []int64{0, 1, 1, 1}}
	j := &Job{Stages: []*Stage{up, {upstream: []int{0}}}}
	a := &Attempt{Host: 0}
	for cross := int64(1); cross <= 7; cross++ {
		parts := e.crossSources(j, j.Stages[1], a, cross)
		if sum(parts) != cross || parts[0] != 0 {
			t.Fatalf("cross %d split %v", cross, parts)
		}
	}
	if parts := e.crossSources(j, j.Stages[1], a, 2); !slices.Equal(parts, []int64{0, 1, 1, 0}) {
		t.Fatalf("2 bytes over three equal racks split %v, want the lower racks first", parts)
	}
	up.outByRack = []int64{5, 0, 0, 0}
	if parts := e.crossSources(j, j.Stages[1], a, 3); parts != nil {
		t.Fatalf("nothing outside the attempt's rack, split %v", parts)
	}
}
