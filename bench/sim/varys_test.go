package sim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

func newCoflowNetwork(capacities []float64) *network {
	n := newNetwork(capacities)
	n.coflows = true
	return n
}

func newCoflow(job engine.JobID) *coflow { return &coflow{key: coflowKey{job: job, stage: 1}} }

// addTo starts a flow of a coflow (nil: none) at time 0.
func addTo(n *network, c *coflow, res []int32, size float64) *flow {
	f := n.add(0, res, size, 0, nil)
	n.join(f, c)
	return f
}

// drain runs the network until every flow has ended, recomputing the
// rates at every end, and returns when each ended.
func drain(t *testing.T, n *network) map[*flow]float64 {
	t.Helper()
	n.recompute(0, true)
	ends := map[*flow]float64{}
	for len(n.byEnd) > 0 {
		at, f := n.nextFinish()
		if math.IsInf(at, 1) {
			t.Fatalf("%d flows left with no end in sight", len(n.byEnd))
		}
		n.remove(at, f)
		ends[f] = at
		n.recompute(at, true)
		checkFeasible(t, n)
	}
	return ends
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func wantRates(t *testing.T, what string, got []*flow, want ...float64) {
	t.Helper()
	for i, f := range got {
		if !near(f.rate, want[i]) {
			rates := make([]float64, len(got))
			for k, g := range got {
				rates[k] = g.rate
			}
			t.Fatalf("%s: rates %v, want %v", what, rates, want)
		}
	}
}

func wantEnds(t *testing.T, what string, ends map[*flow]float64, got []*flow, want ...float64) {
	t.Helper()
	for i, f := range got {
		if !near(ends[f], want[i]) {
			times := make([]float64, len(got))
			for k, g := range got {
				times[k] = ends[g]
			}
			t.Fatalf("%s: ends %v, want %v", what, times, want)
		}
	}
}

// SEBF: coflow A has 80 bytes through port P and 80 through Q (160 in
// all, bottleneck 0.8 s at 100 B/s); coflow B has 100 bytes through P
// (1 s). A goes first although it is bigger in bytes: it has P alone and
// ends at 0.8 s, then B has P alone and ends at 1.8 s. Max-min splits P:
// A's flow on P ends at 1.6 s, B at 1.8 s. (Smallest-bytes-first would
// serve B first and end A at 1.8 s.)
func TestVarysSmallestEffectiveBottleneckFirst(t *testing.T) {
	const P, Q = 0, 1
	build := func(varys bool) (*network, []*flow) {
		n := newNetwork([]float64{100, 100})
		n.coflows = varys
		a, b := newCoflow(1), newCoflow(2)
		return n, []*flow{addTo(n, a, []int32{P}, 80), addTo(n, a, []int32{Q}, 80), addTo(n, b, []int32{P}, 100)}
	}
	n, fl := build(true)
	n.recompute(0, true)
	wantRates(t, "varys", fl, 100, 100, 0)
	wantEnds(t, "varys", drain(t, n), fl, 0.8, 0.8, 1.8)

	n, fl = build(false)
	n.recompute(0, true)
	wantRates(t, "max-min", fl, 50, 100, 50)
	wantEnds(t, "max-min", drain(t, n), fl, 1.6, 0.8, 1.8)
}

// MADD: coflow C moves 200 bytes through X and 100 through Y (100 B/s
// each): bottleneck 2 s, so 100 and 50 B/s and both end at 2 s. Coflow D,
// two 1000-byte flows through Y (bottleneck 20 s), takes the other 50 of
// Y, 25 each. Max-min gives Y a third each, and C's flow on Y ends at 3 s.
func TestVarysMADDFlowsEndTogether(t *testing.T) {
	const X, Y = 0, 1
	build := func(varys bool) (*network, []*flow) {
		n := newNetwork([]float64{100, 100})
		n.coflows = varys
		c, d := newCoflow(1), newCoflow(2)
		return n, []*flow{addTo(n, c, []int32{X}, 200), addTo(n, c, []int32{Y}, 100),
			addTo(n, d, []int32{Y}, 1000), addTo(n, d, []int32{Y}, 1000)}
	}
	n, fl := build(true)
	n.recompute(0, true)
	wantRates(t, "varys", fl, 100, 50, 25, 25)
	// after 2 s D has 950 + 950 left on Y alone: 50 B/s each, 19 s more
	wantEnds(t, "varys", drain(t, n), fl, 2, 2, 21, 21)

	n, fl = build(false)
	n.recompute(0, true)
	wantRates(t, "max-min", fl, 100, 100.0/3, 100.0/3, 100.0/3)
	wantEnds(t, "max-min", drain(t, n), fl, 2, 3, 21, 21)
}

// Work conservation: coflow C (100 bytes on P, 1 s) fills P, so coflow D
// (200 on P, 50 on Q) waits on P, but its flow on Q still gets Q, which
// no one else wants. Coflow E (200 on X, 100 on Y, 2 s) needs 50 of Y: a
// map's input read of 1000 bytes on Y, a coflow of its own (10 s), takes
// the other 50. Coflow F (300 on Z, 100 on W, 3 s) needs a third of W,
// and as no one else wants W, its flow there takes all of it.
func TestVarysWorkConserving(t *testing.T) {
	const P, Q, X, Y, Z, W = 0, 1, 2, 3, 4, 5
	n := newCoflowNetwork([]float64{100, 100, 100, 100, 100, 100})
	c, d, e, f := newCoflow(1), newCoflow(2), newCoflow(3), newCoflow(4)
	fl := []*flow{addTo(n, c, []int32{P}, 100), addTo(n, d, []int32{P}, 200), addTo(n, d, []int32{Q}, 50),
		addTo(n, e, []int32{X}, 200), addTo(n, e, []int32{Y}, 100), addTo(n, nil, []int32{Y}, 1000),
		addTo(n, f, []int32{Z}, 300), addTo(n, f, []int32{W}, 100)}
	n.recompute(0, true)
	wantRates(t, "varys", fl, 100, 0, 100, 100, 50, 50, 100, 100)
	for r := range n.res {
		if !n.res[r].tight(0) {
			t.Fatalf("resource %d carries %g of %g: not work-conserving", r, n.res[r].load, n.res[r].capacity)
		}
	}
}

// Under oversubscription the rack links are ports: 2 racks of 2 hosts
// with 100 B/s NICs at 5:1 have 40 B/s rack links. Coflow A fetches 100
// bytes from rack 0 to host 2 (its bottleneck: rack 0's uplink, 2.5 s);
// coflow B fetches 40 bytes from rack 0 to host 3 (1 s on the uplink) and
// 150 bytes inside rack 0 to host 1 (1.5 s on host 1's NIC). On NICs
// alone A would be the smaller (1 s against 1.5 s); counting the uplink,
// B is, and goes first: 40/1.5 and 150/1.5 B/s, both ending at 1.5 s, and
// A takes the 40/3 B/s left of the uplink, then the whole uplink: 80
// bytes left at 1.5 s, done at 3.5 s. Max-min would end B at 2 s.
func TestVarysRackLinksArePorts(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 100, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: mib, BlockSize: mib, Replication: 1}}}
	p, err := policy.New("fifo")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Seed: 1, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	s := New(eng, Options{Network: NetworkVarys})
	n := s.net
	if up := n.res[s.uplink[0]].capacity; up != 40 {
		t.Fatalf("uplink %g B/s, want 40", up)
	}
	a, b := newCoflow(1), newCoflow(2)
	fl := []*flow{
		addTo(n, a, []int32{s.uplink[0], s.downlink[1], s.nicIn[2]}, 100),
		addTo(n, b, []int32{s.uplink[0], s.downlink[1], s.nicIn[3]}, 40),
		addTo(n, b, []int32{s.nicIn[1]}, 150),
	}
	n.recompute(0, true)
	wantRates(t, "varys", fl, 40.0/3, 80.0/3, 100)
	wantEnds(t, "varys", drain(t, n), fl, 3.5, 1.5, 1.5)
}

// randomChange ends a random active flow (one time in three) or starts
// one of up to 1,000 bytes on a random path, in one of classes classes;
// a flow that joins one of cfs takes its coflow's class (k % classes:
// a coflow's gamma is its class's).
func randomChange(rng *rand.Rand, n *network, now float64, cfs []*coflow, classes int) {
	if fl := active(n); len(fl) > 0 && rng.IntN(3) == 0 {
		n.remove(now, fl[rng.IntN(len(fl))])
		return
	}
	prio, k := uint8(rng.IntN(classes)), rng.IntN(len(cfs)+1)
	if k < len(cfs) {
		prio = uint8(k % classes)
	}
	f := n.add(now, randomPath(rng, len(n.res)), float64(1+rng.IntN(1000)), prio, nil)
	if k < len(cfs) {
		n.join(f, cfs[k])
	}
}

// Random networks of coflows and other flows, in two classes, as flows
// come and go: no resource over capacity, every flow held by a full
// resource (work conservation), and the first coflow in SEBF order of the
// top class (a flow of no shuffle counting as one) gets its whole MADD
// rate.
func TestVarysRandomNetworks(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := randomNetwork(rng, 3+rng.IntN(12))
		n.coflows = true
		cfs := make([]*coflow, 1+rng.IntN(5))
		for i := range cfs {
			cfs[i] = newCoflow(engine.JobID(i))
		}
		now := 0.0
		for step := 0; step < 100; step++ {
			now += rng.Float64()
			randomChange(rng, n, now, cfs, 2)
			n.recompute(now, false)
			checkFeasible(t, n)
			for _, f := range active(n) {
				held := false
				for _, r := range f.res {
					held = held || n.res[r].tight(0)
				}
				if !held {
					t.Fatalf("seed %d step %d: flow %d at %g crosses no full resource", seed, step, f.id, f.rate)
				}
			}
			// a flow of no shuffle is a coflow of its own
			var first *coflow
			for _, f := range active(n) {
				c := f.coflow
				if c == nil {
					c = f.solo
				}
				if f.prio == 0 && (first == nil || c.gamma < first.gamma ||
					c.gamma == first.gamma && (c.key.job < first.key.job || c.key == first.key && c.solo < first.solo)) {
					first = c
				}
			}
			if first == nil || first.gamma == 0 || math.IsInf(first.gamma, 1) {
				continue
			}
			for _, f := range active(n) {
				if (f.coflow == first || f.solo == first) && f.prio == 0 && f.rate < f.remaining/first.gamma*(1-1e-9) {
					t.Fatalf("seed %d step %d: the first coflow's flow %d at %g, below its MADD rate %g", seed, step, f.id, f.rate, f.remaining/first.gamma)
				}
			}
		}
	}
}

// Whole runs under Varys: every job of random workloads ends, under
// every policy, and the coflows are the fetching stages.
func TestVarysRandomWorkloads(t *testing.T) {
	fetches := 0
	for _, pol := range policy.Deciding() {
		for seed := uint64(1); seed <= 15; seed++ {
			topo, w, ds := randomCase(seed)
			p, err := policy.New(pol)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := engine.New(engine.Config{Seed: seed, Placer: &hdfs.Placer{}}, topo, w, ds, p)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			sink := &coflowSink{checkingSink: checkingSink{t: t}}
			s := New(eng, Options{Sink: sink, MaxSimTime: 1e7, Network: NetworkVarys})
			sink.s = s
			res, err := s.Run()
			if err != nil {
				t.Fatalf("%s seed %d: %v", pol, seed, err)
			}
			if res.Stalled || len(sink.jobs) != len(eng.Jobs()) {
				t.Fatalf("%s seed %d: %d of %d jobs ended (%s)", pol, seed, len(sink.jobs), len(eng.Jobs()), res.StallReason)
			}
			fetches += sink.fetches
			for k := range s.coflows {
				job := eng.Jobs()[k.job]
				if kind := job.Spec.Stages[k.stage].Kind; kind == workload.Map {
					t.Fatalf("%s seed %d: a coflow for map stage %d of job %s", pol, seed, k.stage, job.Spec.ID)
				}
			}
		}
	}
	if fetches == 0 {
		t.Fatal("no fetch flow seen: the test saw no coflow at work")
	}
}

// coflowSink checks, whenever an attempt ends, that the flows running
// then belong to the coflow of their stage if they fetch, else to none.
type coflowSink struct {
	checkingSink
	s       *Sim
	fetches int
}

func (c *coflowSink) Attempt(r *engine.AttemptRecord) error {
	for _, e := range c.s.net.byEnd {
		f, run := e.f, e.f.owner
		want := (*coflow)(nil)
		if run.phase == phaseFetch {
			want = c.s.coflows[coflowKey{job: run.a.Task.Job, stage: run.a.Task.Stage}]
			c.fetches++
		}
		if f.coflow != want || (want != nil && want.key.job != run.a.Task.Job) {
			c.t.Fatalf("flow %d of attempt %d (phase %d) in coflow %v, want %v", f.id, run.a.ID, run.phase, f.coflow, want)
		}
	}
	return c.checkingSink.Attempt(r)
}

func TestNetworkOption(t *testing.T) {
	for _, name := range append(NetworkNames(), "") {
		if err := (Options{Network: name}).Validate(); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
	}
	err := Options{Network: "tcp"}.Validate()
	if err == nil || !strings.Contains(err.Error(), `network "tcp"`) {
		t.Fatalf("network tcp: %v", err)
	}
}
