package engine

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// A map stage with a replica per host keeps its node-local queues by
// host in a slice, a smaller one in a map; both answer alike.
func TestNodeLocalQueuesDenseAndSparse(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		blocksOn("wide", 100, 0, 1, 2, 3), // 4 replicas on 4 hosts: a slice
		blocksOn("narrow", 100, 3),        // 1 replica: a map
	}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("wide", "wide", 1), mapReduce("narrow", "narrow", 1)}}
	e := newEngine(t, Config{Seed: 1}, topo, w, ds, &scripted{})
	wide, narrow := e.jobs[0].Stages[0], e.jobs[1].Stages[0]
	if wide.byHost.dense == nil || wide.byHost.sparse != nil {
		t.Fatalf("wide stage: want its queues in a slice, got dense %v sparse %v", wide.byHost.dense != nil, wide.byHost.sparse != nil)
	}
	if narrow.byHost.sparse == nil || narrow.byHost.dense != nil {
		t.Fatalf("narrow stage: want its queues in a map, got dense %v sparse %v", narrow.byHost.dense != nil, narrow.byHost.sparse != nil)
	}
	ctx := &e.ctx
	for h := cluster.HostID(0); h < 4; h++ {
		tr, ok := ctx.NextNodeLocal(0, h)
		if !ok || tr.Index != int32(h) {
			t.Errorf("wide on host %d: got %v %v, want its task %d", h, tr, ok, h)
		}
		tr, ok = ctx.NextNodeLocal(1, h)
		if want := h == 3; ok != want || (ok && tr.Index != 0) {
			t.Errorf("narrow on host %d: got %v %v, want a local task only on host 3", h, tr, ok)
		}
	}
	if tr, ok := ctx.NextNodeLocal(0, 4); ok {
		t.Errorf("wide on host 4, which the 4-host cluster does not have: got %v, want none", tr)
	}
	// launched elsewhere, a task leaves its host's queue
	if _, err := ctx.Launch(TaskRef{Job: 0, Stage: 0, Index: 2}, 0, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	if tr, ok := ctx.NextNodeLocal(0, 2); ok {
		t.Errorf("wide on host 2 after its task launched on host 0: got %v, want none", tr)
	}
	if _, err := ctx.Launch(TaskRef{Job: 1, Stage: 0, Index: 0}, 1, LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	if tr, ok := ctx.NextNodeLocal(1, 3); ok {
		t.Errorf("narrow on host 3 after its task launched on host 1: got %v, want none", tr)
	}
}
