package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Faults of the local update found by a mutation audit (2026-11-29) and
// by the property tests of network_props_test.go (2026-11-30), fixed
// since: each fails if its fix is removed.

// A flow of a higher class that starts on a full link takes it from every
// lower-class flow there, also one held elsewhere. Link 0 (100 B/s)
// carries L1 (class 1, held at 10 by link 1) and L2 (class 1, the other
// 90). H (class 0) starts on link 0: under strict priority H gets the whole
// link, 100, and both lower flows 0. Re-sharing only the flows at their
// class's top rate (H and L2) would leave L1 its 10 and H 90 until the next
// full pass: the update must take every flow of a class below H's.
func TestLocalUpdateHigherClassTakesFromFlowsHeldElsewhere(t *testing.T) {
	n := newNetwork([]float64{100, 10})
	l1 := n.add(0, []int32{0, 1}, 1e6, 1, nil)
	l2 := n.add(0, []int32{0}, 1e6, 1, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{l1, l2}, 10, 90)
	h := n.add(1, []int32{0}, 1e6, 0, nil)
	n.recompute(1, false)
	wantRates(t, "after H starts (local update)", []*flow{h, l1, l2}, 100, 0, 0)
}

// The same through a re-mark. Link 0 (100 B/s) carries X, Y and Z, all
// class 1; link 1 (10 B/s) holds Y at 10, so X and Z have 45 each. X is
// re-marked to class 0: it takes the whole link, 100, from Z (at its
// class's top rate) and from Y (held elsewhere) alike.
func TestLocalUpdateReMarkTakesFromFlowsHeldElsewhere(t *testing.T) {
	n := newNetwork([]float64{100, 10})
	x := n.add(0, []int32{0}, 1e6, 1, nil)
	y := n.add(0, []int32{0, 1}, 1e6, 1, nil)
	z := n.add(0, []int32{0}, 1e6, 1, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{x, y, z}, 45, 10, 45)
	n.setPriority(x, 0)
	n.recompute(1, false)
	wantRates(t, "after the re-mark (local update)", []*flow{x, y, z}, 100, 0, 0)
}

// The periodic full pass re-shares every component a local update left
// possibly inexact, not only the one changed at the pass. Link 0 (10 B/s)
// carries A and B, link 1 (4 B/s) B and C: A 8, B 2, C 2. C ends; the
// local update re-shares B on what A leaves (a second-order effect it
// leaves out by design): B stays at 2 with link 1 half idle. At t=20 a
// flow starts on link 2, which neither A nor B uses, and the full pass
// runs: it must settle A and B at max-min's 6 and 4 (link 1 holds B at
// 4, A takes the rest of link 0).
func TestFullPassSettlesEarlierLocalUpdates(t *testing.T) {
	n := newNetwork([]float64{10, 4, 10})
	a := n.add(0, []int32{0}, 1e6, 0, nil)
	b := n.add(0, []int32{0, 1}, 1e6, 0, nil)
	c := n.add(0, []int32{1}, 1e6, 0, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{a, b, c}, 8, 2, 2)
	n.remove(1, c)
	n.recompute(1, false)
	n.add(20, []int32{2}, 1e6, 0, nil)
	n.recompute(20, true)
	wantRates(t, "after the full pass", []*flow{a, b}, 6, 4)
}

// Random networks in three classes as flows come, go and are re-marked,
// with local updates between full passes: after each full pass every
// flow's rate is what an exact pass over the whole network gives.
func TestFullPassIsExactAfterLocalUpdates(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 4))
		n := randomNetwork(rng, 3+rng.IntN(12))
		now := 0.0
		for step := 1; step <= 140; step++ {
			now += rng.Float64()
			if fl := active(n); len(fl) > 0 && rng.IntN(4) == 0 {
				n.setPriority(fl[rng.IntN(len(fl))], uint8(rng.IntN(3)))
			} else {
				randomChange(rng, n, now, nil, 3)
			}
			full := step%7 == 0
			changed := len(n.dirty) > 0 // else recompute has nothing to do
			n.recompute(now, full)
			checkFeasible(t, n)
			if !full || !changed {
				continue
			}
			fl := active(n)
			got := make([]float64, len(fl))
			for i, f := range fl {
				got[i] = f.rate
			}
			for r := range n.res {
				n.markDirty(int32(r))
			}
			n.recompute(now, true)
			for i, f := range fl {
				if math.Abs(f.rate-got[i]) > 1e-6*math.Max(1, f.rate) {
					t.Fatalf("seed %d step %d: flow %d (class %d) at %g after the full pass, %g exactly", seed, step, f.id, f.prio, got[i], f.rate)
				}
			}
		}
	}
}

// A new flow that makes a link a bottleneck re-shares the link's flows
// (recompute's doc: "the flows of every changed resource that is a
// bottleneck (saturated before the change, or made so by a new flow)").
// Link 0 (100 B/s) carries A, held at 70 by link 1 (70 B/s). N starts on
// link 0 and on link 2 (100 B/s), where nine flows run at 1 B/s each
// (held by link 3, 9 B/s). Max-min: A and N rise together until link 0
// fills at 50 each (link 1 would let A reach 70, link 2 N 91). The
// update guessed N's share as link 2's 100/10 = 10 (capacity over flows),
// so link 0 (70 + 10) did not look tight: only N was re-shared, on the 30
// A leaves, and the update gave A 70 and N 30 until the next full pass.
// The guess is now the level N fills each link to (network.level): 50 on
// link 0, 91 on link 2.
func TestLocalUpdateNewFlowMakesALinkTheBottleneck(t *testing.T) {
	n := newNetwork([]float64{100, 70, 100, 9})
	a := n.add(0, []int32{0, 1}, 1e6, 0, nil)
	var held []*flow
	for i := 0; i < 9; i++ {
		held = append(held, n.add(0, []int32{2, 3}, 1e6, 0, nil))
	}
	n.recompute(0, true)
	wantRates(t, "before", []*flow{a, held[0]}, 70, 1)
	nf := n.add(1, []int32{0, 2}, 1e6, 0, nil)
	n.recompute(1, false)
	checkFeasible(t, n)
	wantRates(t, "after N starts (local update)", []*flow{a, nf, held[0]}, 50, 50, 1)
}

// The same where the new flow's other link is full: no simple guess of
// its share (capacity over flows, or the link's slack) tells that it
// fills link 0. Link 0 (100 B/s) carries A, held at 60 by link 1; link 2
// (100 B/s) carries B (held at 90 by link 3) and C (held at 10 by link
// 4). N starts on links 0 and 2: max-min rises N and B together until
// link 2 fills at 45 each (C keeps 10), and A takes the 55 N leaves of
// link 0. Re-sharing only link 2's top flow and N gave N 40 (what A left
// of link 0) and B 50.
func TestLocalUpdateNewFlowFillsALinkThroughAnother(t *testing.T) {
	n := newNetwork([]float64{100, 60, 100, 90, 10})
	a := n.add(0, []int32{0, 1}, 1e6, 0, nil)
	b := n.add(0, []int32{2, 3}, 1e6, 0, nil)
	c := n.add(0, []int32{2, 4}, 1e6, 0, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{a, b, c}, 60, 90, 10)
	nf := n.add(1, []int32{0, 2}, 1e6, 0, nil)
	n.recompute(1, false)
	checkFeasible(t, n)
	wantRates(t, "after N starts (local update)", []*flow{a, nf, b, c}, 55, 45, 45, 10)
}
