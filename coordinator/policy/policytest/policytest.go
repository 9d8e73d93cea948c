package policytest

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Topology is a uniform cluster of racks × hosts with the given slots.
func Topology(t testing.TB, racks, hosts, slots int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: slots, NICBps: 125e6, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// Dataset is a placed dataset with one single-replica HDD block per host
// given, each of size bytes.
func Dataset(name string, size int64, hosts ...cluster.HostID) workload.Dataset {
	d := workload.Dataset{Name: name}
	for _, h := range hosts {
		d.Blocks = append(d.Blocks, workload.Block{Size: size, Replicas: []workload.Replica{{Host: h, Tier: cluster.HDD}}})
	}
	return d
}

// MapJob is a map-only job reading a dataset.
func MapJob(id string, arrival float64, queue, input string) workload.Job {
	return workload.Job{ID: id, Arrival: arrival, Queue: queue, Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: input, Selectivity: 1}}}
}

// MapReduceJob is a map stage and a reduce stage of the given width.
func MapReduceJob(id string, arrival float64, input string, reducers int) workload.Job {
	j := MapJob(id, arrival, "", input)
	j.Stages = append(j.Stages, workload.Stage{Name: "reduce", Kind: workload.Reduce, Tasks: reducers, After: []string{"map"}, Selectivity: 1})
	return j
}

// Engine builds an engine at time 0 with every job that arrives at 0
// submitted.
func Engine(t testing.TB, cfg engine.Config, topo *cluster.Topology, w *workload.Workload, ds *workload.Datasets, p engine.Policy) *engine.Engine {
	t.Helper()
	e, err := engine.New(cfg, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(0); err != nil {
		t.Fatal(err)
	}
	return e
}

// Launch is a launched attempt as a test sees it.
type Launch struct {
	Job      string
	Stage    int
	Task     int
	Host     cluster.HostID
	Locality engine.Locality
}

// Launches offers one host and returns what the policy launched.
func Launches(e *engine.Engine, h cluster.HostID) []Launch {
	e.Offer(h)
	return Collect(e)
}

// Collect turns the engine's ready launches into Launch values.
func Collect(e *engine.Engine) []Launch {
	var out []Launch
	for _, a := range e.Ready().Launches {
		out = append(out, Launch{Job: e.Job(a.Task.Job).Spec.ID, Stage: int(a.Task.Stage), Task: int(a.Task.Index), Host: a.Host, Locality: a.Locality})
	}
	return out
}
