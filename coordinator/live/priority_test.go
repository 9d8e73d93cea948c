package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/internal/traffic"
)

// ranked launches like policytest.Greedy, every attempt at one network
// priority.
type ranked struct{ prio uint8 }

func (ranked) Name() string { return "ranked" }

func (p ranked) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 {
		launched := false
		for _, j := range ctx.Running() {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				t, _, ok = ctx.PickMap(j.ID, h, engine.Remote)
			}
			if ok {
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{Priority: p.prio}); err == nil {
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

// A launch carries the DSCP of the priority the policy gave it, from the
// one table shaping builds its leaves from: the attempt's first bytes are
// ranked, not only those after a re-mark.
func TestLaunchCarriesPriorityDSCP(t *testing.T) {
	topo := memTopology(t, 2, 2)
	w, ds := smallInputs(t, topo)
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("prio")
	const prio = 2
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "ranked", PolicyImpl: ranked{prio: prio},
		Seed: 1, Cluster: "prio", Listen: "127.0.0.1:0", Creds: creds, OutDir: t.TempDir(), StopWorkers: true,
		Logf: t.Logf, MemberAddr: "127.0.0.1", MaxRunTime: 40 * time.Second}
	var mu sync.Mutex
	dscps := map[int64]uint8{}
	cfg.OnListening = func(u string) {
		admin, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		if _, err := admin.Subscribe(subj.WorkerWildcard(), func(m *nats.Msg) {
			var l wire.Launch
			if wire.Decode(m.Data, wire.TypeLaunch, &l) == nil {
				mu.Lock()
				dscps[l.Attempt] = l.DSCP
				mu.Unlock()
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := admin.Flush(); err != nil {
			t.Fatal(err)
		}
		startWorkers(t, topo, u, creds, "prio")
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Jobs != 1 || res.FailedJobs != 0 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dscps) == 0 {
		t.Fatal("no launch seen")
	}
	want := traffic.PriorityDSCP(prio)
	for id, d := range dscps {
		if d != want {
			t.Errorf("attempt %d launched with DSCP %d, want %d (priority %d's, band %v)", id, d, want, prio, traffic.PriorityBand(prio))
		}
	}
}
