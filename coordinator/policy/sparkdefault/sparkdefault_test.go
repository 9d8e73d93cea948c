package sparkdefault_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/policy/sparkdefault"
	"github.com/racklab/racklab/coordinator/workload"
)

// tiered is racks × hosts one-slot hosts with memory, SSD and HDD.
func tiered(t *testing.T, racks, hosts int) *cluster.Topology {
	t.Helper()
	d := cluster.DefaultTiers()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: 1, NICBps: 125e6, Oversubscription: 1,
		Tiers: []cluster.Tier{d[cluster.Mem], d[cluster.SSD], d[cluster.HDD]}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func block(reps ...workload.Replica) workload.Block {
	return workload.Block{Size: 1e7, Replicas: reps}
}

// readOn runs, on 2 racks × 3 hosts (r0: h0-h2, r1: h3-h5), a job "busy"
// holding every host but h2 and then j, whose one block has the replicas
// given, with no locality wait; it returns j's attempt on h2.
func readOn(t *testing.T, reps ...workload.Replica) *engine.Attempt {
	t.Helper()
	topo := tiered(t, 2, 3)
	busy := workload.Dataset{Name: "busy"}
	for _, h := range []cluster.HostID{0, 1, 3, 4, 5} {
		busy.Blocks = append(busy.Blocks, block(workload.Replica{Host: h, Tier: cluster.HDD}))
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{busy, {Name: "a", Blocks: []workload.Block{block(reps...)}}}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("busy", 0, "", "busy"), policytest.MapJob("j", 0, "", "a")}}
	p := sparkdefault.New(sparkdefault.Config{Order: "fifo", LocalityWait: 0})
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, p)
	e.Schedule()
	for _, a := range e.Ready().Launches {
		if e.Job(a.Task.Job).Spec.ID == "j" {
			if a.Host != 2 {
				t.Fatalf("j ran on h%d, want h2", a.Host)
			}
			return a
		}
	}
	t.Fatal("j did not run")
	return nil
}

// Spark is tier-blind, but a rack-local or off-rack read is the file
// system's: the closest replica, fastest tier, lowest host, as the engine
// picks for the other baselines.
func TestSourceOfNonLocalReads(t *testing.T) {
	r := func(h cluster.HostID, k cluster.TierKind) workload.Replica { return workload.Replica{Host: h, Tier: k} }
	for _, c := range []struct {
		name   string
		reps   []workload.Replica
		want   workload.Replica
		reason string
	}{
		{"rack-local: fastest in the rack, not the first listed nor the fastest anywhere",
			[]workload.Replica{r(0, cluster.HDD), r(3, cluster.Mem), r(1, cluster.SSD)}, r(1, cluster.SSD), "rack-local"},
		{"rack-local: lowest host among equals",
			[]workload.Replica{r(1, cluster.HDD), r(0, cluster.HDD), r(4, cluster.HDD)}, r(0, cluster.HDD), "rack-local"},
		{"off-rack: fastest anywhere",
			[]workload.Replica{r(3, cluster.HDD), r(5, cluster.Mem), r(4, cluster.SSD)}, r(5, cluster.Mem), "off-rack"},
	} {
		a := readOn(t, c.reps...)
		if a.Source != c.want || a.Note.Reason != c.reason {
			t.Errorf("%s: read %+v (%s), want %+v (%s)", c.name, a.Source, a.Note.Reason, c.want, c.reason)
		}
	}
}

// A node-local launch reads the replica on the executor's host whatever
// its tier, and is classed by that tier.
func TestNodeLocalReadIsTierBlind(t *testing.T) {
	a := readOn(t, workload.Replica{Host: 3, Tier: cluster.Mem}, workload.Replica{Host: 2, Tier: cluster.HDD}, workload.Replica{Host: 0, Tier: cluster.Mem})
	if want := (workload.Replica{Host: 2, Tier: cluster.HDD}); a.Source != want || a.Note.Reason != "hdd-local" {
		t.Errorf("read %+v (%s), want %+v (hdd-local)", a.Source, a.Note.Reason, want)
	}
}

// launches runs one round of 8 one-task-per-host maps on 4 × 4 hosts
// with every block on three hosts, and lists where each task ran.
func launches(t *testing.T, seed uint64) []string {
	topo := tiered(t, 4, 4)
	d := workload.Dataset{Name: "a"}
	for i := range 8 {
		d.Blocks = append(d.Blocks, block(
			workload.Replica{Host: cluster.HostID(i), Tier: cluster.HDD},
			workload.Replica{Host: cluster.HostID(i + 4), Tier: cluster.HDD},
			workload.Replica{Host: cluster.HostID(i + 8), Tier: cluster.HDD}))
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{d}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	e := policytest.Engine(t, engine.Config{Seed: seed}, topo, w, ds, sparkdefault.New(sparkdefault.DefaultConfig()))
	e.Schedule()
	var out []string
	for _, l := range policytest.Collect(e) {
		out = append(out, topo.Hosts[l.Host].Name)
	}
	return out
}

// The offers are shuffled from the run's seed: the same seed places the
// same way, and the seeds do not all place alike.
func TestOfferOrderFollowsTheSeed(t *testing.T) {
	first := launches(t, 7)
	if again := launches(t, 7); !slices.Equal(first, again) {
		t.Fatalf("seed 7 placed %v, then %v", first, again)
	}
	differs := false
	for seed := uint64(8); seed < 12; seed++ {
		differs = differs || !slices.Equal(first, launches(t, seed))
	}
	if !differs {
		t.Errorf("seeds 7-11 all placed %v", first)
	}
}

func TestValidate(t *testing.T) {
	if err := sparkdefault.DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	err := sparkdefault.Config{Order: "lifo", LocalityWait: -time.Second}.Validate()
	if err == nil || !strings.Contains(err.Error(), `order "lifo"`) || !strings.Contains(err.Error(), "locality_wait -1s") {
		t.Errorf("bad order and wait: %v", err)
	}
}
