package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// topoSplit is 2 racks × 2 hosts, each with a pool of mapSlots and one of
// reduceSlots.
func topoSplit(t *testing.T, mapSlots, reduceSlots int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: mapSlots, ReduceSlots: reduceSlots, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// A map takes a map slot and a reduce a reduce slot; a launch into a full
// pool is rejected though the other pool has room; a host with both pools
// full is no longer free; its loss frees neither pool again and takes both
// out of the live slots.
func TestSplitPoolsLaunchAndHostLoss(t *testing.T) {
	topo := topoSplit(t, 1, 1)
	// no block on hosts 0 and 2: their loss loses no input
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 1, 3, 3, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 2)}}
	e := newEngine(t, Config{SlowStart: 0.25}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	if ctx.TotalSlots() != 8 || e.FreeSlots() != 8 {
		t.Fatalf("total %d free %d, want 8 slots of both pools", ctx.TotalSlots(), e.FreeSlots())
	}
	m0, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.FreeMapSlots(0) != 0 || ctx.FreeReduceSlots(0) != 1 || ctx.FreeSlots(0) != 1 {
		t.Fatalf("after a map: free map %d reduce %d any %d, want 0 1 1", ctx.FreeMapSlots(0), ctx.FreeReduceSlots(0), ctx.FreeSlots(0))
	}
	_, err = ctx.Launch(TaskRef{0, 0, 1}, 0, LaunchOptions{})
	if err == nil || !strings.Contains(err.Error(), "full host") || !strings.Contains(err.Error(), "no free map slot") {
		t.Fatalf("a second map on a host with one map slot: %v", err)
	}
	if err := e.AttemptSucceeded(m0, nil); err != nil {
		t.Fatal(err)
	}
	if ctx.FreeMapSlots(0) != 1 {
		t.Fatalf("the map's end gave back %d map slots", ctx.FreeMapSlots(0))
	}
	if _, err := ctx.Launch(TaskRef{0, 0, 1}, 0, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Launch(TaskRef{0, 1, 0}, 0, LaunchOptions{}); err != nil {
		t.Fatalf("a reduce into the free reduce slot of a host whose map slot is busy: %v", err)
	}
	_, err = ctx.Launch(TaskRef{0, 1, 1}, 0, LaunchOptions{})
	if err == nil || !strings.Contains(err.Error(), "no free reduce slot") {
		t.Fatalf("a second reduce on a host with one reduce slot: %v", err)
	}
	if e.Stats.RejectedByReason["full host"] != 2 {
		t.Fatalf("rejections %v, want 2 full host", e.Stats.RejectedByReason)
	}
	for _, h := range e.freeHosts {
		if h == 0 {
			t.Fatal("host 0 has both pools full but is still on the free list")
		}
	}
	if e.FreeSlots() != 6 || len(e.freeHosts) != 3 {
		t.Fatalf("free %d on %d hosts, want 6 on 3", e.FreeSlots(), len(e.freeHosts))
	}
	if err := e.HostLost(0); err != nil {
		t.Fatal(err)
	}
	if ctx.TotalSlots() != 6 || e.FreeSlots() != 6 || ctx.FreeMapSlots(0) != 0 || ctx.FreeReduceSlots(0) != 0 {
		t.Fatalf("after host 0's loss: total %d free %d, host 0 free %d/%d", ctx.TotalSlots(), e.FreeSlots(), ctx.FreeMapSlots(0), ctx.FreeReduceSlots(0))
	}
	// host 1's pools still take a map and a reduce each
	if _, err := ctx.Launch(TaskRef{0, 0, 1}, 1, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := ctx.Launch(TaskRef{0, 1, 0}, 1, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.FreeSlots(1) != 0 || e.FreeSlots() != 4 {
		t.Fatalf("host 1 free %d, cluster free %d, want 0 and 4", ctx.FreeSlots(1), e.FreeSlots())
	}
	// the reduce's end gives its slot back to the reduce pool
	if err := ctx.Kill(r); err != nil {
		t.Fatal(err)
	}
	if ctx.FreeMapSlots(1) != 0 || ctx.FreeReduceSlots(1) != 1 {
		t.Fatalf("after the reduce's end host 1 has %d map and %d reduce slots free, want 0 and 1", ctx.FreeMapSlots(1), ctx.FreeReduceSlots(1))
	}
	// a host with a free slot in either pool is free again
	if e.FreeSlots() != 5 {
		t.Fatalf("cluster free %d, want 5 with host 1's reduce slot", e.FreeSlots())
	}
	// a host lost with free slots keeps none
	if err := e.HostLost(2); err != nil {
		t.Fatal(err)
	}
	if ctx.FreeMapSlots(2) != 0 || ctx.FreeReduceSlots(2) != 0 || e.FreeSlots() != 3 || ctx.TotalSlots() != 4 {
		t.Fatalf("after host 2's loss: its free %d/%d, cluster free %d of %d", ctx.FreeMapSlots(2), ctx.FreeReduceSlots(2), e.FreeSlots(), ctx.TotalSlots())
	}
}

type offerSeen struct {
	offering         SlotKind
	free             int
	pending, maps    int
	shuffles         int
	pendingList      int
	canRunMap        bool
	canRunReduce     bool
	launchedMaps     int
	launchedShuffles int
}

// A heartbeat of a host with split pools offers the map pool, then the
// reduce pool; in each, FreeSlots and the pending helpers answer for that
// pool only, so greedy (which takes reduces first) fills both pools
// without a rejected launch.
func TestSplitOfferOffersEachPoolItsOwnTasks(t *testing.T) {
	topo := topoSplit(t, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 3)}}
	var seen []offerSeen
	p := &scripted{}
	p.offer = func(ctx *Context, h cluster.HostID) {
		s := offerSeen{offering: ctx.Offering(), free: ctx.FreeSlots(h), pending: ctx.PendingTasks(),
			maps: ctx.PendingMaps(0), shuffles: ctx.PendingShuffles(0), pendingList: len(ctx.Pending(0, nil)),
			canRunMap: ctx.CanRun(TaskRef{0, 0, 7}), canRunReduce: ctx.CanRun(TaskRef{0, 1, 0})}
		before := len(ctx.RunningOn(h))
		greedy(ctx, h)
		for _, id := range ctx.RunningOn(h)[before:] {
			if ctx.Attempt(id).Task.Stage == 0 {
				s.launchedMaps++
			} else {
				s.launchedShuffles++
			}
		}
		seen = append(seen, s)
	}
	e := newEngine(t, Config{SlowStart: 0.1}, topo, w, ds, p)
	ctx := &Context{e}
	m, _ := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	e.Offer(1)
	want := []offerSeen{
		{offering: MapSlot, free: 2, pending: 7, maps: 7, pendingList: 7, canRunMap: true, launchedMaps: 2},
		{offering: ReduceSlot, free: 1, pending: 3, shuffles: 3, pendingList: 3, canRunReduce: true, launchedShuffles: 1},
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("offers\n got %+v\nwant %+v", seen, want)
	}
	if e.Stats.Rejected != 0 || e.Stats.Decisions != 2 {
		t.Fatalf("rejected %v, decisions %d: want none and 2", e.Stats.RejectedByReason, e.Stats.Decisions)
	}
	if ctx.Offering() != AnySlot || ctx.FreeSlots(2) != 3 || ctx.PendingTasks() != 7 {
		t.Fatalf("after the offer: offering %s, host 2 free %d, pending %d: want any, 3 and 7", ctx.Offering(), ctx.FreeSlots(2), ctx.PendingTasks())
	}
	// a full map pool with maps pending and a free reduce pool with no
	// reduce pending: no offer at all
	seen = nil
	e2 := newEngine(t, Config{}, topo, &workload.Workload{Jobs: []workload.Job{{ID: "m", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}, ds, p)
	e2.Offer(2)
	e2.Offer(2)
	if len(seen) != 1 || seen[0].offering != MapSlot || seen[0].launchedMaps != 2 {
		t.Fatalf("offers of a map-only job: %+v", seen)
	}
}

// A RoundScheduler gets a round of the map pools, then a round of the
// reduce pools, each listing the hosts with a free slot of that pool.
func TestSplitRoundsOfferEachPool(t *testing.T) {
	topo := topoSplit(t, 1, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	type round struct {
		offering SlotKind
		free     []cluster.HostID
	}
	var rounds []round
	p := &roundPolicy{}
	p.round = func(ctx *Context, free []cluster.HostID) {
		rounds = append(rounds, round{ctx.Offering(), append([]cluster.HostID(nil), free...)})
		for _, h := range free {
			greedy(ctx, h)
		}
	}
	e := newEngine(t, Config{SlowStart: 0.1}, topo, w, ds, p)
	ctx := &Context{e}
	m, _ := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Launch(TaskRef{0, 0, 4}, 0, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	e.Schedule()
	want := []round{{MapSlot, []cluster.HostID{1, 2, 3}}, {ReduceSlot, []cluster.HostID{0, 1, 2, 3}}}
	if !reflect.DeepEqual(rounds, want) {
		t.Fatalf("rounds %+v, want %+v", rounds, want)
	}
	rd := e.Ready()
	if e.Stats.Rejected != 0 || len(rd.Launches) != 4 {
		t.Fatalf("rejected %v, launched %d: want none and 3 maps + 1 reduce", e.Stats.RejectedByReason, len(rd.Launches))
	}
}

// Hosts with one pool are offered once, for every kind of task, as before
// split pools existed.
func TestOnePoolOfferIsOneOfferOfEveryKind(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 2)}}
	var offerings []SlotKind
	p := &scripted{}
	p.offer = func(ctx *Context, h cluster.HostID) {
		offerings = append(offerings, ctx.Offering())
		greedy(ctx, h)
	}
	e := newEngine(t, Config{SlowStart: 0.25}, topo, w, ds, p)
	ctx := &Context{e}
	m, _ := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{})
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	e.Offer(1)
	rd := e.Ready()
	// greedy takes reduces first: both slots of the one pool go to them
	if !reflect.DeepEqual(offerings, []SlotKind{AnySlot}) || len(rd.Launches) != 2 || rd.Launches[0].Task.Stage != 1 || rd.Launches[1].Task.Stage != 1 {
		t.Fatalf("offerings %v, launches %d", offerings, len(rd.Launches))
	}
	if ctx.FreeMapSlots(2) != 2 || ctx.FreeReduceSlots(2) != 2 || ctx.FreeSlots(2) != 2 {
		t.Fatal("a one-pool host's pools are not its one pool")
	}
}
