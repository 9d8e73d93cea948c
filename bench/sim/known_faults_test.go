package sim

import (
	"os"
	"testing"
)

// knownFault skips a test that shows a fault of the model found and not
// yet fixed (docs/benchmarks.md, "Known faults of the local update"):
// RACKLAB_SIM_KNOWN_FAULTS=1 runs it, and it fails until the fault is.
func knownFault(t *testing.T) {
	t.Helper()
	if os.Getenv("RACKLAB_SIM_KNOWN_FAULTS") == "" {
		t.Skip("a known fault of the model, not yet fixed: RACKLAB_SIM_KNOWN_FAULTS=1 runs it")
	}
}

// Known fault 1 (recompute's local update, network.go): a flow of
// a higher class that starts on a full link takes only what the update's
// flows held, while a lower-class flow held elsewhere keeps its rate on
// that link. Link 0 (100 B/s) carries L1 (class 1, held at 10 by link 1)
// and L2 (class 1, the other 90). H (class 0) starts on link 0: under
// strict priority H gets the whole link, 100, and both lower flows 0. The
// local update re-shares only H and L2 (L2 is the class's top rate on link
// 0), on the 90 that L1 leaves: H 90, L1 10, until the next full pass.
func TestKnownFaultLocalUpdateStrictPriority(t *testing.T) {
	knownFault(t)
	n := newNetwork([]float64{100, 10})
	l1 := n.add(0, []int32{0, 1}, 1e6, 1, nil)
	l2 := n.add(0, []int32{0}, 1e6, 1, nil)
	n.recompute(0, true)
	wantRates(t, "before", []*flow{l1, l2}, 10, 90)
	h := n.add(1, []int32{0}, 1e6, 0, nil)
	n.recompute(1, false)
	wantRates(t, "after H starts (local update)", []*flow{h, l1, l2}, 100, 0, 0)
}

// Known fault 2 (recompute with full set, network.go): the periodic
// "exact pass" recomputes only the connected component of the resources
// changed since the last recompute, so an inexact local update elsewhere
// is never settled by it. Link 0 (10 B/s) carries A and B, link 1 (4 B/s)
// B and C: A 8, B 2, C 2. C ends; the local update re-shares B on what A
// leaves (second order, documented): B stays at 2 with link 1 half idle.
// At t=20 a flow starts on link 2, which no flow of A, B shares, and the
// full pass runs: A and B stay at 8 and 2 where max-min gives 6 and 4.
func TestKnownFaultFullPassLeavesOtherComponentsInexact(t *testing.T) {
	knownFault(t)
	n := newNetwork([]float64{10, 4, 10})
	a := n.add(0, []int32{0}, 1e6, 0, nil)
	b := n.add(0, []int32{0, 1}, 1e6, 0, nil)
	c := n.add(0, []int32{1}, 1e6, 0, nil)
	n.recompute(0, true)
	n.remove(1, c)
	n.recompute(1, false)
	n.add(20, []int32{2}, 1e6, 0, nil)
	n.recompute(20, true)
	wantRates(t, "after the full pass", []*flow{a, b}, 6, 4)
}
