package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

const mib = 1 << 20

// randomCase builds a random topology and workload: map-only, map-reduce,
// multi-stage and job-DAG jobs of random sizes and arrivals.
func randomCase(seed uint64) (*cluster.Topology, *workload.Workload, *workload.Datasets) {
	rng := rand.New(rand.NewPCG(seed, 7))
	topo, err := cluster.Uniform(cluster.UniformSpec{
		Racks: 1 + rng.IntN(4), HostsPerRack: 1 + rng.IntN(4), Slots: 1 + rng.IntN(3),
		NICBps: 125e6, Oversubscription: 1 + rng.Float64()*4,
	})
	if err != nil {
		panic(err)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	nj := 1 + rng.IntN(12)
	for i := 0; i < nj; i++ {
		id := fmt.Sprintf("j%d", i)
		in := "in-" + id
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: in, Size: int64(rng.IntN(600)) * mib, BlockSize: 64 * mib, Replication: 1 + rng.IntN(3)})
		j := workload.Job{ID: id, Arrival: float64(rng.IntN(30)), Queue: []string{"a", "b"}[rng.IntN(2)]}
		mapStage := workload.Stage{Name: "map", Kind: workload.Map, Input: in, Selectivity: rng.Float64() * 2, ComputeNsPerByte: rng.Float64() * 3}
		if ds.Datasets[i].Size == 0 {
			mapStage.Tasks = 1
		}
		if i > 0 && rng.IntN(3) == 0 {
			p := fmt.Sprintf("j%d", rng.IntN(i))
			j.Parents = []string{p}
			mapStage.Input = workload.ParentOutputPrefix + p
			mapStage.Tasks = 0
		}
		j.Stages = append(j.Stages, mapStage)
		switch rng.IntN(3) {
		case 1:
			j.Stages = append(j.Stages, workload.Stage{Name: "reduce", Kind: workload.Reduce, Tasks: 1 + rng.IntN(5), After: []string{"map"}, Selectivity: 0.5, Skew: rng.Float64(), OutputReplicas: 1 + rng.IntN(2)})
		case 2:
			j.Stages = append(j.Stages,
				workload.Stage{Name: "join", Kind: workload.Generic, Tasks: 1 + rng.IntN(4), After: []string{"map"}, Selectivity: 1},
				workload.Stage{Name: "agg", Kind: workload.Reduce, Tasks: 1 + rng.IntN(3), After: []string{"join", "map"}, OutputBytes: int64(rng.IntN(50)) * mib})
		}
		w.Jobs = append(w.Jobs, j)
	}
	return topo, w, ds
}

// checkingSink checks invariants on every record.
type checkingSink struct {
	t        *testing.T
	attempts []engine.AttemptRecord
	jobs     []engine.JobRecord
	buf      bytes.Buffer
}

func (c *checkingSink) Attempt(r *engine.AttemptRecord) error {
	c.attempts = append(c.attempts, *r)
	fmt.Fprintf(&c.buf, "a %d %v %d %.9f %.9f %s %v\n", r.ID, r.Task, r.Host, r.Start, r.End, r.Outcome, r.Bytes)
	return nil
}
func (c *checkingSink) Job(r *engine.JobRecord) error {
	c.jobs = append(c.jobs, *r)
	fmt.Fprintf(&c.buf, "j %s %.9f %s\n", r.Name, r.Finished, r.State)
	return nil
}
func (c *checkingSink) LinkSample(t float64, up, down []float64) error {
	fmt.Fprintf(&c.buf, "l %.9f %v %v\n", t, up, down)
	return nil
}

func simulate(t *testing.T, pol string, seed uint64) (*checkingSink, *engine.Engine, *Result) {
	topo, w, ds := randomCase(seed)
	p, err := policy.New(pol)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Seed: seed, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	sink := &checkingSink{t: t}
	s := New(eng, Options{Sink: sink, MaxSimTime: 1e7})
	res, err := s.Run()
	if err != nil {
		t.Fatalf("%s seed %d: %v", pol, seed, err)
	}
	if res.Stalled {
		t.Fatalf("%s seed %d stalled: %s", pol, seed, res.StallReason)
	}
	return sink, eng, res
}

func TestPropertiesRandomWorkloads(t *testing.T) {
	for _, pol := range policy.Deciding() {
		for seed := uint64(1); seed <= 40; seed++ {
			sink, eng, res := simulate(t, pol, seed)
			topo := eng.Topology()
			// every job finished and succeeded; every task done
			if len(sink.jobs) != len(eng.Jobs()) {
				t.Fatalf("%s seed %d: %d of %d jobs finished", pol, seed, len(sink.jobs), len(eng.Jobs()))
			}
			for _, j := range eng.Jobs() {
				if j.State != engine.JobSucceeded || j.TasksDone != j.Tasks {
					t.Fatalf("%s seed %d: job %s %s with %d/%d tasks", pol, seed, j.Spec.ID, j.State, j.TasksDone, j.Tasks)
				}
			}
			// no slot over-committed, at any instant
			perHost := map[cluster.HostID][]slotEvent{}
			for _, a := range sink.attempts {
				perHost[a.Host] = append(perHost[a.Host], slotEvent{a.Start, 1}, slotEvent{a.End, -1})
			}
			for h, evs := range perHost {
				if peak := peakConcurrency(evs); peak > topo.Hosts[h].Slots {
					t.Fatalf("%s seed %d: host %d ran %d attempts at once with %d slots", pol, seed, h, peak, topo.Hosts[h].Slots)
				}
			}
			// bytes conserved: each shuffle stage fetched exactly what its
			// upstream wrote; cross-rack bytes the engine expects equal what
			// the rack links carried
			checkConservation(t, pol, seed, eng, sink, res)
			checkShuffleLinks(t, pol, seed, eng, sink, res)
		}
	}
}

type slotEvent struct {
	t     float64
	delta int
}

func peakConcurrency(evs []slotEvent) int {
	// ends before starts at the same instant: a slot freed is reusable
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].delta < evs[b].delta
	})
	n, peak := 0, 0
	for _, e := range evs {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

func checkConservation(t *testing.T, pol string, seed uint64, eng *engine.Engine, sink *checkingSink, res *Result) {
	t.Helper()
	type key struct {
		job   engine.JobID
		stage int16
	}
	written := map[key]int64{}
	fetched := map[key]int64{}
	var expectCross int64
	// an attempt killed while reading across racks (the loser of a
	// duplicate race: Shadow's rejected duplicates, KMN's unused copies)
	// moved part of its input, which the engine, accounting finished
	// attempts only, does not expect: at most its whole input
	var killedCross int64
	for _, a := range sink.attempts {
		if a.Outcome == engine.AttemptKilled && (a.Kind != workload.Map || a.Locality == engine.Remote) {
			killedCross += a.InputBytes
		}
		if a.Outcome != engine.AttemptSucceeded {
			continue
		}
		// only the output a task used is shuffled: a duplicate's loser
		// (Shadow's) succeeded too, and its output was dropped
		if eng.Job(a.Task.Job).Stages[a.Task.Stage].Tasks[a.Task.Index].OutAttempt == a.ID {
			written[key{a.Task.Job, a.Task.Stage}] += a.OutputBytes
		}
		if a.Kind != workload.Map {
			var got int64
			for l := range a.Bytes[engine.ClassShuffle] {
				got += a.Bytes[engine.ClassShuffle][l]
			}
			fetched[key{a.Task.Job, a.Task.Stage}] += got
		}
		expectCross += a.Bytes.Cross()
	}
	for _, j := range eng.Jobs() {
		for _, st := range j.Stages {
			if st.Spec.Kind == workload.Map {
				continue
			}
			var up int64
			for _, u := range st.Spec.After {
				for k, s2 := range j.Stages {
					if s2.Spec.Name == u {
						up += written[key{j.ID, int16(k)}]
					}
				}
			}
			if got := fetched[key{j.ID, int16(st.Index)}]; got != up {
				t.Fatalf("%s seed %d: job %s stage %s fetched %d bytes, upstream wrote %d", pol, seed, j.Spec.ID, st.Spec.Name, got, up)
			}
		}
	}
	var measured float64
	for _, b := range res.UplinkBytes {
		measured += b
	}
	// aggregated shuffle flows round each source rack's part separately
	slack := float64(len(sink.attempts) * len(eng.Topology().Racks))
	tol := slack + 1e-9*float64(expectCross)
	if measured < float64(expectCross)-tol || measured > float64(expectCross+killedCross)+tol {
		t.Fatalf("%s seed %d: rack uplinks carried %.0f bytes, engine expects %d cross-rack (and up to %d of killed maps)", pol, seed, measured, expectCross, killedCross)
	}
}

func TestSameSeedSameRecords(t *testing.T) {
	for _, pol := range policy.Deciding() {
		for seed := uint64(1); seed <= 10; seed++ {
			a, _, _ := simulate(t, pol, seed)
			b, _, _ := simulate(t, pol, seed)
			if !bytes.Equal(a.buf.Bytes(), b.buf.Bytes()) {
				t.Fatalf("%s seed %d: two runs differ", pol, seed)
			}
		}
	}
}

func TestRunOneWritesIdenticalFiles(t *testing.T) {
	topo, w, ds := randomCase(3)
	dir := t.TempDir()
	for _, run := range []string{"a", "b"} {
		if _, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: "fair"}, Seed: 9, Dir: filepath.Join(dir, run)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"attempts.csv", "jobs.csv", "links.csv"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "b", f))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Fatalf("%s differs between identical runs (or is empty)", f)
		}
	}
}

// An arrival whose time rounds to a step below it is released: just
// above a step's end (0.0300000001 s at the default step of 10 ms), and
// where a millionth of a step is below a float's spacing (100,000.05 s at
// a step of 1 µs). Before, the simulator stopped at the rounded time, the
// engine did not release the job, and the loop, finding the same arrival
// next, spun at that time without end.
func TestArrivalRoundedBelowItsTimeIsReleased(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 1e9, Oversubscription: 1}, 1e9, 1e9)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: 16 << 20, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
	for _, c := range []struct{ arrival, step float64 }{{0.0300000001, 0.01}, {100000.05, 1e-6}} {
		w := &workload.Workload{Jobs: []workload.Job{{ID: "late", Arrival: c.arrival, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 0}}}}}
		eng, err := engine.New(engine.Config{Seed: 1}, topo, w, ds, &pinned{host: func(engine.TaskRef) cluster.HostID { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		s := New(eng, Options{Resolution: c.step})
		if got := s.roundUp(c.arrival); got >= c.arrival {
			t.Fatalf("arrival %v rounds to %v, not below it: the case is gone", c.arrival, got)
		}
		done := make(chan error, 1)
		var res *Result
		go func() {
			var err error
			res, err = s.Run()
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil || res.Stalled || eng.JobsFinished() != 1 {
				t.Fatalf("arrival %v, step %v: %v, %+v, %d jobs finished", c.arrival, c.step, err, res, eng.JobsFinished())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("arrival %v, step %v: the run did not end in 20 s", c.arrival, c.step)
		}
	}
}
