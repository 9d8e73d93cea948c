package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// A flow started on a full link takes its share at the next local update:
// A has link 0 (10 B/s) alone, then B starts on it at t=1 and they split
// it, 5 and 5. A moved 10 bytes in its first second.
func TestAuditLocalUpdateSharesWithANewFlow(t *testing.T) {
	n := newNetwork([]float64{10})
	a := n.add(0, []int32{0}, 100, 0, nil)
	n.recompute(0, false)
	wantRates(t, "A alone", []*flow{a}, 10)
	b := n.add(1, []int32{0}, 100, 0, nil)
	n.recompute(1, false)
	wantRates(t, "A and B", []*flow{a, b}, 5, 5)
	if a.remaining != 90 {
		t.Fatalf("A has %g bytes left at t=1, want 90", a.remaining)
	}
	checkFeasible(t, n)
}

// A local update re-shares the flows of a link that was a bottleneck
// before the change, though the change leaves it with slack. Link 1
// (4 B/s) carries B and C, link 2 (9 B/s) carries B and K: max-min gives
// B = C = 2 (link 1) and K = 7. At t=1 C ends and N starts on link 2, in
// one update: B is no longer held by link 1, so B, K and N split link 2,
// 3 each. Re-sharing only link 2's flows would leave B at 2 and give K and
// N 3.5 each, B crossing no link where it has the largest rate.
func TestAuditLocalUpdateResharesAFormerBottleneck(t *testing.T) {
	n := newNetwork([]float64{100, 4, 9})
	b := n.add(0, []int32{1, 2}, 1e6, 0, nil)
	c := n.add(0, []int32{1}, 1e6, 0, nil)
	k := n.add(0, []int32{2}, 1e6, 0, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{b, c, k}, 2, 2, 7)
	n.remove(1, c)
	nf := n.add(1, []int32{2}, 1e6, 0, nil)
	n.recompute(1, false)
	wantRates(t, "after C ends and N starts", []*flow{b, k, nf}, 3, 3, 3)
	checkFeasible(t, n)
	checkMaxMin(t, n)
}

// A local update re-shares, on a changed link, the flows at the highest
// rate of each priority class, not only those at the link's highest rate.
// Link 0 (10 B/s) carries H (class 0, held at 8 by link 1) and L (class 1,
// the 2 left). L2 (class 1) starts on link 0: L and L2 split the 2 that H
// leaves, 1 each. Taking L's class to be H's would leave L out of the
// update, at 2, and L2 at 0.
func TestAuditLocalUpdateTopRatePerClass(t *testing.T) {
	n := newNetwork([]float64{10, 8})
	h := n.add(0, []int32{0, 1}, 1e6, 0, nil)
	l := n.add(0, []int32{0}, 1e6, 1, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{h, l}, 8, 2)
	l2 := n.add(1, []int32{0}, 1e6, 1, nil)
	n.recompute(1, false)
	wantRates(t, "after L2 starts", []*flow{h, l, l2}, 8, 1, 1)
	checkFeasible(t, n)
}

// A link counts the bytes its flows moved: a flow cancelled half-way adds
// what it carried, not its size. 100 bytes at 10 B/s, cancelled at t=4:
// 40 bytes, for the link's exact count and its integrated one alike.
func TestAuditCancelledFlowCountsWhatItMoved(t *testing.T) {
	n := newNetwork([]float64{10})
	f := n.add(0, []int32{0}, 100, 0, nil)
	n.recompute(0, true)
	n.remove(4, f)
	n.recompute(4, true)
	rs := &n.res[0]
	n.settleRes(10, rs)
	if !near(rs.moved, 40) || !near(rs.bytes, 40) {
		t.Fatalf("the link counted %g bytes moved (%g integrated), want 40", rs.moved, rs.bytes)
	}
}

// A counter (a host's cross-rack receive bytes) stops counting when its
// flow ends: 10 B/s for 2 s is 20 bytes, still 20 at t=5.
func TestAuditCounterStopsWhenItsFlowEnds(t *testing.T) {
	n := newNetwork([]float64{10})
	n.counters = make([]counter, 1)
	f := n.add(0, []int32{0}, 100, 0, nil)
	f.counter = 0
	n.recompute(0, true)
	n.remove(2, f)
	n.recompute(2, true)
	if got := n.counted(5, 0); !near(got, 20) {
		t.Fatalf("counted %g bytes by t=5, want 20", got)
	}
}

// Varys: when a flow of a coflow ends early (here cancelled), its
// coflow's other flows are re-shared, though they share no link with it.
// Coflow C moves 200 bytes on X and 100 on Y (Γ 2 s: 100 and 50 B/s),
// coflow D 1000 bytes on Y (the other 50). At t=0.5 C's flow on X is
// cancelled: C has 75 bytes left on Y (Γ 0.75 s), D 975 (9.75 s), so C's
// flow takes all of Y and D's waits.
func TestAuditVarysReSharesACoflowWhoseFlowLeft(t *testing.T) {
	const X, Y = 0, 1
	n := newCoflowNetwork([]float64{100, 100})
	c, d := newCoflow(1), newCoflow(2)
	a := addTo(n, c, []int32{X}, 200)
	b := addTo(n, c, []int32{Y}, 100)
	fd := addTo(n, d, []int32{Y}, 1000)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{a, b, fd}, 100, 50, 50)
	n.remove(0.5, a)
	n.recompute(0.5, true)
	wantRates(t, "after C's flow on X left", []*flow{b, fd}, 100, 0)
	checkFeasible(t, n)
}

// Varys orders coflows by their remaining bytes, not their sizes: A (150
// bytes on P, 100 B/s) has run alone for 1 s when B (80 bytes on P)
// starts. A's Γ is 50/100 = 0.5 s, B's 0.8 s: A keeps P and ends at 1.5 s,
// then B ends at 2.3 s. By size, A (1.5 s) would wait for B.
func TestAuditVarysOrdersByRemainingBytes(t *testing.T) {
	n := newCoflowNetwork([]float64{100})
	ca, cb := newCoflow(1), newCoflow(2)
	a := addTo(n, ca, []int32{0}, 150)
	n.recompute(0, true)
	b := n.add(1, []int32{0}, 80, 0, nil)
	n.join(b, cb)
	n.recompute(1, true)
	wantRates(t, "at t=1", []*flow{a, b}, 100, 0)
	if end, f := n.nextFinish(); f != a || !near(end, 1.5) {
		t.Fatalf("first end at %g, want A's at 1.5", end)
	}
}

// checkStrictMaxMin: within each priority class, on what the higher
// classes leave, every flow has a resource the classes up to its own fill
// on which no flow of its class is faster (max-min per class, strict
// priority between classes).
func checkStrictMaxMin(t *testing.T, n *network, what string) {
	t.Helper()
	for p := 0; p < 3; p++ {
		use := make([]float64, len(n.res))
		top := make([]float64, len(n.res))
		for _, f := range active(n) {
			if int(f.prio) > p {
				continue
			}
			for _, r := range f.res {
				use[r] += f.rate
				if int(f.prio) == p {
					top[r] = math.Max(top[r], f.rate)
				}
			}
		}
		for _, f := range active(n) {
			if int(f.prio) != p {
				continue
			}
			ok := false
			for _, r := range f.res {
				ok = ok || use[r] >= n.res[r].capacity*(1-1e-9) && f.rate >= top[r]*(1-1e-9)
			}
			if !ok {
				t.Fatalf("%s: flow %d of class %d at %g has no bottleneck", what, f.id, p, f.rate)
			}
		}
	}
}

// Random networks of three classes, rates recomputed exactly: strict
// priority, and max-min within each class.
func TestAuditExactMaxMinWithClasses(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := randomNetwork(rng, 3+rng.IntN(10))
		now := 0.0
		for step := 0; step < 30; step++ {
			now += rng.Float64()
			randomChange(rng, n, now, nil, 3)
			n.recompute(now, true)
			checkFeasible(t, n)
			checkStrictMaxMin(t, n, fmt.Sprintf("seed %d step %d", seed, step))
		}
	}
}

// Bytes are conserved under max-min's local updates and full passes and
// under Varys, in two classes, as flows start, end and are cancelled: a flow ends when it has
// moved its bytes (no earlier), and every resource's integrated bytes
// equal the bytes its flows moved.
func TestAuditBytesConserved(t *testing.T) {
	for seed := uint64(0); seed < 120; seed++ {
		rng := rand.New(rand.NewPCG(seed, 12))
		n := randomNetwork(rng, 3+rng.IntN(10))
		n.coflows = seed%2 == 1 // Varys, with three coflows
		cfs := []*coflow{newCoflow(1), newCoflow(2), newCoflow(3)}
		now := 0.0
		for step := 0; step < 300; step++ {
			end, f := n.nextFinish()
			next := now + rng.Float64()*0.1 // the next start or cancel
			switch {
			case f != nil && (step >= 150 || end <= next):
				if math.IsInf(end, 1) {
					t.Fatalf("seed %d step %d: %d flows with no end", seed, step, len(n.byEnd))
				}
				now = math.Max(now, end)
				n.remove(now, f)
				if f.remaining > 1e-6*f.size {
					t.Fatalf("seed %d step %d: flow %d ended with %g of %g bytes left", seed, step, f.id, f.remaining, f.size)
				}
			case step < 150:
				now = next
				if fl := active(n); len(fl) > 0 && rng.IntN(8) == 0 {
					n.remove(now, fl[rng.IntN(len(fl))]) // cancelled
				} else {
					f := n.add(now, randomPath(rng, len(n.res)), float64(1+rng.IntN(100)), uint8(rng.IntN(2)), nil)
					if k := rng.IntN(4); n.coflows && k < 3 {
						n.join(f, cfs[k])
					}
				}
			default:
				continue
			}
			n.recompute(now, step%13 == 0)
			checkFeasible(t, n)
		}
		if len(n.byEnd) > 0 {
			t.Fatalf("seed %d: %d flows left", seed, len(n.byEnd))
		}
		for r := range n.res {
			rs := &n.res[r]
			n.settleRes(now, rs)
			if math.Abs(rs.bytes-rs.moved) > 1e-6*math.Max(1, rs.moved) {
				t.Fatalf("seed %d: resource %d integrated %g bytes, its flows moved %g", seed, r, rs.bytes, rs.moved)
			}
		}
	}
}

// A flow re-marked into a class whose flows fill a link takes its share
// there at the next local update, though it was at rate 0 and the link is
// full. Link 0 (10 B/s) is H's (class 0); L (class 1, also on the idle
// link 1) gets 0. L is re-marked to class 0: H and L split link 0, 5 each.
func TestAuditLocalUpdateRemarkedStarvedFlowJoinsTheClass(t *testing.T) {
	n := newNetwork([]float64{10, 100})
	h := n.add(0, []int32{0}, 1e6, 0, nil)
	l := n.add(0, []int32{0, 1}, 1e6, 1, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{h, l}, 10, 0)
	n.setPriority(l, 0)
	n.recompute(1, false)
	wantRates(t, "after re-marking L", []*flow{h, l}, 5, 5)
	checkFeasible(t, n)
}

// Varys serves the classes strictly: a higher class's coflows take their
// MADD rates and then what is left (backfilling) before a lower class's
// coflows are served. Coflow B (class 0) moves 100 bytes on P and 1000 on
// Q (100 B/s each): Γ 10 s, so 10 and 100 B/s, and its flow on P
// backfills P to 100. Coflow A (class 1, 100 bytes on P) gets nothing.
// Serving A's MADD rate (90 of P's leftover) before B's backfilling, or
// class 1 first, would slow B's flow on P.
func TestAuditVarysStrictPriority(t *testing.T) {
	const P, Q = 0, 1
	n := newCoflowNetwork([]float64{100, 100})
	ca, cb := newCoflow(1), newCoflow(2)
	a := n.add(0, []int32{P}, 100, 1, nil)
	n.join(a, ca)
	b1 := n.add(0, []int32{P}, 100, 0, nil)
	n.join(b1, cb)
	b2 := n.add(0, []int32{Q}, 1000, 0, nil)
	n.join(b2, cb)
	n.recompute(0, true)
	wantRates(t, "varys, two classes", []*flow{b1, b2, a}, 100, 100, 0)
}

// Random networks under Varys, in three classes, as flows come and go:
// every flow crosses a resource that the flows of its class and the
// higher ones fill (backfilling within the class, strict priority between
// classes), and no resource is over capacity.
func TestAuditVarysClassesWorkConserving(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		n := randomNetwork(rng, 3+rng.IntN(10))
		n.coflows = true
		cfs := []*coflow{newCoflow(1), newCoflow(2), newCoflow(3), newCoflow(4)}
		now := 0.0
		for step := 0; step < 60; step++ {
			now += rng.Float64()
			randomChange(rng, n, now, cfs, 3)
			n.recompute(now, false)
			checkFeasible(t, n)
			for _, f := range active(n) {
				held := false
				for _, r := range f.res {
					use := 0.0
					for _, g := range n.res[r].flows {
						if g.prio <= f.prio {
							use += g.rate
						}
					}
					held = held || use >= n.res[r].capacity*(1-1e-9)
				}
				if !held {
					t.Fatalf("seed %d step %d: flow %d of class %d at %g crosses no resource its class and the higher fill", seed, step, f.id, f.prio, f.rate)
				}
			}
		}
	}
}
