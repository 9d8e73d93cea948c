package shadow

import (
	"github.com/racklab/racklab/internal/skew"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
)

// Racks R1..Rn of the spec are indices 0..n-1 here; splits m1..ms keep
// their numbers as split ids.

func TestS1Fig6Duplication(t *testing.T) {
	h := []int{1, 1, 1}
	if got := skew.Counts([]int{4, 1, 1}, h); got != 4 {
		t.Fatalf("initial count Skew = %v, want 4", got)
	}
	up, down := skew.CountLoads([]int{4, 1, 1}, h)
	if !reflect.DeepEqual(up, []float64{8, 2, 2}) || !reflect.DeepEqual(down, []float64{2, 5, 5}) {
		t.Fatalf("loads up %v down %v, want {8,2,2} {2,5,5}", up, down)
	}
	in := DuplicateInput{Racks: 3, Theta: -1, Originals: []Original{
		{Split: 1, Rack: 0, ReplicaRacks: []int{0, 1}},
		{Split: 2, Rack: 0, ReplicaRacks: []int{0, 2}},
		{Split: 3, Rack: 0, ReplicaRacks: []int{0, 1}},
		{Split: 4, Rack: 0, ReplicaRacks: []int{0, 2}},
		{Split: 5, Rack: 1, ReplicaRacks: []int{1, 2}},
		{Split: 6, Rack: 2, ReplicaRacks: []int{2, 0}},
	}}
	plan, cnt, err := Duplicate(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Duplication{{Split: 1, From: 0, To: 1, Local: true}, {Split: 2, From: 0, To: 2, Local: true}}
	if !reflect.DeepEqual(plan, want) {
		t.Fatalf("plan %+v, want %+v", plan, want)
	}
	if !reflect.DeepEqual(cnt, []int{2, 2, 2}) {
		t.Fatalf("final L %v, want {2,2,2}", cnt)
	}
	// The Skew after each step: 3, then 1.
	if got := skew.Counts([]int{3, 2, 1}, h); got != 3 {
		t.Errorf("Skew after step 1 = %v, want 3", got)
	}
	if got := skew.Counts(cnt, h); got != 1 {
		t.Errorf("Skew after step 2 = %v, want 1", got)
	}
	if _, got := mapplace.RoundRobinQuota(cnt, 3); !reflect.DeepEqual(got, []cluster.RackID{0, 1, 2}) {
		t.Errorf("reducer order %v, want R1,R2,R3", got)
	}
	// The duplicate budget needed is D* = 2 (§2.9).
	if len(plan) != 2 {
		t.Errorf("dupNum %d, want 2", len(plan))
	}
}

func TestS1BaselineUplink(t *testing.T) {
	// Delay scheduling keeps {4,1,1}: R1's uplink carries 8 units, 4 under Shadow.
	up, _ := skew.CountLoads([]int{4, 1, 1}, []int{1, 1, 1})
	upS, _ := skew.CountLoads([]int{2, 2, 2}, []int{1, 1, 1})
	if up[0] != 8 || upS[0] != 4 {
		t.Fatalf("R1 uplink %v → %v, want 8 → 4", up[0], upS[0])
	}
}

// s2Model is §8 S2: 3 racks, 100 MB/s links, o = 150 MB, H = {1,1,1};
// sizes in MB, times in s.
func s2Model() Model {
	return Model{Reducers: []int{1, 1, 1}, Uplink: []float64{100, 100, 100}, Downlink: []float64{100, 100, 100}}
}

func s2Originals() []Original {
	o := []Original{}
	for s := 1; s <= 4; s++ {
		o = append(o, Original{Split: s, Rack: 0, ReplicaRacks: []int{0, 1}})
	}
	return append(o, Original{Split: 5, Rack: 1, ReplicaRacks: []int{1, 2}}, Original{Split: 6, Rack: 2, ReplicaRacks: []int{2, 0}})
}

// s2Select runs SELECT-AT-T on S2's state at T: m1' (relocated, done),
// m3, m4 in R1, m5 in R2, m6 in R3, and the pending pair m2 (R1) / m2' (R3).
func s2Select(t *testing.T, T, dupLaunch float64, acceptTies bool) SelectResult {
	t.Helper()
	rates, err := MaxMinBandwidth([]Flow{{Src: 0, Dst: 2}}, []float64{100, 100, 100}, []float64{100, 100, 100})
	if err != nil {
		t.Fatal(err)
	}
	if rates[0] != 100 {
		t.Fatalf("B_31 = %v, want 100", rates[0])
	}
	o := 150.0
	res, err := s2Model().SelectAtT(SelectInput{
		T:       T,
		Settled: []Copy{{Rack: 0, Output: o}, {Rack: 0, Output: o}, {Rack: 1, Output: o}, {Rack: 1, Output: o}, {Rack: 2, Output: o}},
		Pending: []Pending{{Split: 2, Original: Copy{Rack: 0, Output: o},
			Duplicate: Copy{Rack: 2, Output: o, EstFinish: EstFinish(dupLaunch, 200, rates[0], 20)}}},
		AcceptTies: acceptTies,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestS2Duplication(t *testing.T) {
	plan, cnt, err := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: s2Originals()})
	if err != nil {
		t.Fatal(err)
	}
	want := []Duplication{{Split: 1, From: 0, To: 1, Local: true}, {Split: 2, From: 0, To: 2, Local: false}}
	if !reflect.DeepEqual(plan, want) || !reflect.DeepEqual(cnt, []int{2, 2, 2}) {
		t.Fatalf("plan %+v counts %v, want %+v {2,2,2}", plan, cnt, want)
	}
}

func TestS2SelectAccept(t *testing.T) {
	if got := EstFinish(0, 200, 100, 20); got != 22 {
		t.Fatalf("estFinish(m2') = %v, want 22", got)
	}
	res := s2Select(t, 21.5, 0, false)
	if res.Baseline != 24.5 || res.Predicted != 24 || !res.Accept[0] {
		t.Fatalf("T_t(C) %v T_t(C') %v accept %v, want 24.5, 24, accept", res.Baseline, res.Predicted, res.Accept[0])
	}
}

func TestS2Reject(t *testing.T) {
	if got := EstFinish(2.5, 200, 100, 20); got != 24.5 {
		t.Fatalf("estFinish = %v, want 24.5", got)
	}
	res := s2Select(t, 21.5, 2.5, false)
	if res.Accept[0] || res.Predicted != 24.5 {
		t.Fatalf("accept %v predicted %v, want reject at 24.5 (C' would be 26.5)", res.Accept[0], res.Predicted)
	}
	if got := skew.Counts([]int{3, 2, 1}, []int{1, 1, 1}); got != 3 {
		t.Errorf("final count Skew %v, want 3", got)
	}
}

func TestS2Tie(t *testing.T) {
	strict := s2Select(t, 21, 0, false)
	if strict.Accept[0] || strict.Baseline != 24 {
		t.Fatalf("strict: accept %v baseline %v, want reject at 24", strict.Accept[0], strict.Baseline)
	}
	ties := s2Select(t, 21, 0, true)
	if !ties.Accept[0] || ties.Predicted != 24 {
		t.Fatalf("accept_ties: accept %v predicted %v, want accept at 24", ties.Accept[0], ties.Predicted)
	}
}

func TestS2EarlyNothingPending(t *testing.T) {
	// S2-early: m2' was chosen at 21.2 s < T; at T nothing is pending and
	// the model evaluates no candidate: the prediction is the settled set.
	o := 150.0
	res, err := s2Model().SelectAtT(SelectInput{T: 21.5, Settled: []Copy{
		{Rack: 0, Output: o}, {Rack: 0, Output: o}, {Rack: 1, Output: o}, {Rack: 1, Output: o},
		{Rack: 2, Output: o}, {Rack: 2, Output: o}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accept) != 0 || len(res.Order) != 0 || res.Predicted != 23.5 {
		t.Fatalf("result %+v, want no candidates and T_t = 21.5 + 2", res)
	}
}

func TestShuffleUpAndDown(t *testing.T) {
	// {3,2,1} with H {1,1,1}: uplinks {300,200,100}; downlinks
	// (900−rack)/3 = {150,200,250} MB. Up only: 3 s. With R3's downlink
	// at 50 MB/s the downlinks bound it: 250/50 = 5 s.
	m := s2Model()
	m.Downlink = []float64{100, 100, 50}
	cs := []Copy{{Rack: 0, Output: 150}, {Rack: 0, Output: 150}, {Rack: 0, Output: 150}, {Rack: 1, Output: 150}, {Rack: 1, Output: 150}, {Rack: 2, Output: 150}}
	if got := m.ShuffleTime(cs); got != 3 {
		t.Errorf("up: T_s = %v, want 3", got)
	}
	m.Shuffle = ShuffleUpAndDown
	if got := m.ShuffleTime(cs); got != 5 {
		t.Errorf("up_and_down: T_s = %v, want 250/50 = 5", got)
	}
}

func TestSelectOrderByEstFinishThenSplit(t *testing.T) {
	// Two pending duplicates into R3 that only help together is not the
	// point here: check the evaluation order.
	m := s2Model()
	res, err := m.SelectAtT(SelectInput{T: 10, Pending: []Pending{
		{Split: 9, Original: Copy{Rack: 0, Output: 1}, Duplicate: Copy{Rack: 1, Output: 1, EstFinish: 12}},
		{Split: 7, Original: Copy{Rack: 0, Output: 1}, Duplicate: Copy{Rack: 1, Output: 1, EstFinish: 12}},
		{Split: 3, Original: Copy{Rack: 0, Output: 1}, Duplicate: Copy{Rack: 1, Output: 1, EstFinish: 15}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Order, []int{1, 0, 2}) {
		t.Fatalf("order %v, want splits 7, 9, 3", res.Order)
	}
}

// literalAlgorithm1 is the paper's printed pseudo-code: a do-while that
// tests maxTask−1 and minTask+1 of the old extreme racks and allows
// threshold+1 duplicates. It is here only to show we do not do this.
func literalAlgorithm1(cnt []int, threshold int) ([]int, int) {
	c := append([]int(nil), cnt...)
	dup := 0
	for {
		a, b := 0, 0
		for r := range c {
			if c[r] > c[a] {
				a = r
			}
			if c[r] < c[b] {
				b = r
			}
		}
		c[a]--
		c[b]++
		dup++
		maxTask, minTask := c[a], c[b]
		if !(maxTask-minTask > 1 && dup <= threshold) {
			return c, dup
		}
	}
}

func s3Originals() []Original {
	var o []Original
	for s := 1; s <= 4; s++ {
		o = append(o, Original{Split: s, Rack: 0, ReplicaRacks: []int{0, 1}})
	}
	for s := 5; s <= 8; s++ {
		o = append(o, Original{Split: s, Rack: 1, ReplicaRacks: []int{1, 0}})
	}
	return append(o, Original{Split: 9, Rack: 2, ReplicaRacks: []int{2, 0}})
}

func TestS3CorrectedLoop(t *testing.T) {
	h := []int{1, 1, 1}
	if got := skew.Counts([]int{4, 4, 1}, h); got != 4 {
		t.Fatalf("Skew {4,4,1} = %v, want 4", got)
	}
	if got := skew.Counts([]int{3, 4, 2}, h); got != 2 {
		t.Fatalf("Skew {3,4,2} = %v, want 2", got)
	}
	plan, cnt, err := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: s3Originals()})
	if err != nil {
		t.Fatal(err)
	}
	want := []Duplication{{Split: 1, From: 0, To: 2}, {Split: 5, From: 1, To: 2}}
	if !reflect.DeepEqual(plan, want) || !reflect.DeepEqual(cnt, []int{3, 3, 3}) {
		t.Fatalf("plan %+v counts %v, want %+v {3,3,3}", plan, cnt, want)
	}
	if got := skew.Counts(cnt, h); got != 1 {
		t.Errorf("final Skew %v, want 1", got)
	}
	// The literal printed loop stops early at {3,4,2}; we must not.
	lit, _ := literalAlgorithm1([]int{4, 4, 1}, 1<<30)
	if !reflect.DeepEqual(lit, []int{3, 4, 2}) {
		t.Fatalf("literal loop gives %v, the spec says {3,4,2}", lit)
	}
	if reflect.DeepEqual(cnt, lit) {
		t.Errorf("Duplicate behaves like the literal stale max/min loop")
	}
	if lit, _ := literalAlgorithm1([]int{4, 1, 1}, 1<<30); !reflect.DeepEqual(lit, []int{3, 2, 1}) {
		t.Errorf("literal loop on {4,1,1} gives %v, the spec says {3,2,1}", lit)
	}
	if _, dups := literalAlgorithm1([]int{2, 2, 2}, 1<<30); dups != 1 {
		t.Errorf("literal do-while on {2,2,2} makes %d duplicates, the spec says 1 (into its own rack)", dups)
	}
	// The reads: R1→R3 and R2→R3 share R3's downlink, 50 MB/s each, 4 s per 200 MB.
	rates, err := MaxMinBandwidth([]Flow{{Src: 0, Dst: 2}, {Src: 1, Dst: 2}}, []float64{100, 100, 100}, []float64{100, 100, 100})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rates, []float64{50, 50}) || 200/rates[0] != 4 {
		t.Errorf("rates %v, want 50, 50 (4 s per read)", rates)
	}
}

func TestS3Threshold(t *testing.T) {
	plan, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: 1, Originals: s3Originals()})
	if len(plan) != 1 || !reflect.DeepEqual(cnt, []int{3, 4, 2}) {
		t.Errorf("θ=1: %d duplicates, counts %v; want 1, {3,4,2}", len(plan), cnt)
	}
	plan, cnt, _ = Duplicate(DuplicateInput{Racks: 3, Theta: 0, Originals: s3Originals()})
	if len(plan) != 0 || !reflect.DeepEqual(cnt, []int{4, 4, 1}) {
		t.Errorf("θ=0: %d duplicates, counts %v; want none", len(plan), cnt)
	}
}

func TestS3Balanced(t *testing.T) {
	var o []Original
	for s := 0; s < 6; s++ {
		o = append(o, Original{Split: s, Rack: s / 2, ReplicaRacks: []int{s / 2, (s/2 + 1) % 3}})
	}
	plan, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o})
	if len(plan) != 0 || !reflect.DeepEqual(cnt, []int{2, 2, 2}) {
		t.Errorf("balanced {2,2,2}: plan %+v, want no duplicate", plan)
	}
}

func TestThetaArg(t *testing.T) {
	for _, c := range []struct {
		f    float64
		s    int
		want int
	}{{0.15, 6, 1}, {0.15, 20, 3}, {0.15, 480, 72}, {0.15, 100, 15}, {0, 10, -1}, {1, 9, 9}} {
		if got := Theta(c.f, c.s); got != c.want {
			t.Errorf("Theta(%v, %d) = %d, want %d", c.f, c.s, got, c.want)
		}
	}
}

func TestDuplicateSlotsAndEmptyRacks(t *testing.T) {
	// {3,3,0}: the empty rack R3 is the lightest and a valid target (A12).
	o := []Original{
		{Split: 0, Rack: 0, ReplicaRacks: []int{0}}, {Split: 1, Rack: 0, ReplicaRacks: []int{0}}, {Split: 2, Rack: 0, ReplicaRacks: []int{0}},
		{Split: 3, Rack: 1, ReplicaRacks: []int{1}}, {Split: 4, Rack: 1, ReplicaRacks: []int{1}}, {Split: 5, Rack: 1, ReplicaRacks: []int{1}},
	}
	_, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o})
	if !reflect.DeepEqual(cnt, []int{2, 2, 2}) {
		t.Errorf("empty rack target: counts %v, want {2,2,2}", cnt)
	}
	// R3 has one free slot: the second duplicate has no target but R1/R2
	// themselves ({2,3,1} → R1 min among those with slots? R1 is not a).
	plan, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o, FreeSlots: []int{0, 0, 1}})
	if len(plan) != 1 || !reflect.DeepEqual(cnt, []int{2, 3, 1}) {
		t.Errorf("one free slot: plan %+v counts %v, want one duplicate {2,3,1}", plan, cnt)
	}
	// No free slot anywhere: nothing.
	plan, _, _ = Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o, FreeSlots: []int{0, 0, 0}})
	if len(plan) != 0 {
		t.Errorf("no free slot: plan %+v, want none", plan)
	}
	if _, _, err := Duplicate(DuplicateInput{Racks: 2, Originals: []Original{{Split: 0, Rack: 5}}}); err == nil {
		t.Errorf("a map in rack 5 of 2 racks: no error")
	}
}

func TestDuplicateRandomPickPrefersLocal(t *testing.T) {
	// Seeded picks stay inside Eloc when it is not empty.
	for seed := uint64(0); seed < 20; seed++ {
		plan, _, err := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: s2Originals(), Rand: rand.New(rand.NewPCG(seed, 1))})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan) != 2 || !plan[0].Local || plan[0].To != 1 || plan[1].Local || plan[1].To != 2 || plan[0].Split == plan[1].Split {
			t.Fatalf("seed %d: plan %+v", seed, plan)
		}
	}
}

func TestDoneOriginalsCountButAreNotEligible(t *testing.T) {
	// Multi-wave: R1's finished maps count, only its running one may move.
	o := []Original{
		{Split: 0, Rack: 0, Done: true}, {Split: 1, Rack: 0, Done: true}, {Split: 2, Rack: 0, Done: true},
		{Split: 3, Rack: 0}, {Split: 4, Rack: 1},
	}
	plan, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o})
	want := []Duplication{{Split: 3, From: 0, To: 2}}
	if !reflect.DeepEqual(plan, want) || !reflect.DeepEqual(cnt, []int{3, 1, 1}) {
		t.Errorf("plan %+v counts %v, want %+v {3,1,1}", plan, cnt, want)
	}
}

func TestS4RoundRobin(t *testing.T) {
	// The quota is mapplace's, which the policy's reducers use.
	h3, _ := mapplace.RoundRobinQuota([]int{2, 2, 2}, 3)
	if !reflect.DeepEqual(h3, []int{1, 1, 1}) || skew.Counts([]int{2, 2, 2}, h3) != 1 {
		t.Errorf("t=3: H %v, want {1,1,1} and Skew 1", h3)
	}
	h4, _ := mapplace.RoundRobinQuota([]int{2, 2, 2}, 4)
	if !reflect.DeepEqual(h4, []int{2, 1, 1}) {
		t.Fatalf("t=4: H %v, want {2,1,1}", h4)
	}
	up, down := skew.CountLoads([]int{2, 2, 2}, h4)
	if !reflect.DeepEqual(up, []float64{4, 6, 6}) || !reflect.DeepEqual(down, []float64{8, 4, 4}) || skew.Counts([]int{2, 2, 2}, h4) != 2 {
		t.Errorf("t=4: up %v down %v, want {4,6,6} {8,4,4}, Skew 2", up, down)
	}
	pre, _ := mapplace.RoundRobinQuota([]int{4, 1, 1}, 4)
	if !reflect.DeepEqual(pre, []int{2, 1, 1}) || skew.Counts([]int{4, 1, 1}, pre) != 8.0/3 {
		t.Errorf("pre-duplication: H %v Skew %v, want {2,1,1}, 8/3", pre, skew.Counts([]int{4, 1, 1}, pre))
	}
	// Descending counts, ties by index, racks without maps get none.
	if _, got := mapplace.RoundRobinQuota([]int{1, 3, 0, 3}, 3); !reflect.DeepEqual(got, []cluster.RackID{1, 3, 0}) {
		t.Errorf("order %v, want R2,R4,R1", got)
	}
}

func TestS5MaxMin(t *testing.T) {
	one := []float64{1, 1, 1, 1}
	flows := []Flow{{1, 0}, {1, 0}, {1, 2}, {3, 2}, {3, 2}, {0, 2}}
	rates, err := MaxMinBandwidth(flows, one, one)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{3.0 / 8, 3.0 / 8, 1.0 / 4, 1.0 / 4, 1.0 / 4, 1.0 / 4}
	if !reflect.DeepEqual(rates, want) {
		t.Fatalf("rates %v, want %v", rates, want)
	}
	if _, err := MaxMinBandwidth([]Flow{{1, 1}}, one, one); err == nil {
		t.Errorf("a flow inside one rack: no error")
	}
}

func TestS6Fig5(t *testing.T) {
	h := []int{0, 1, 1}
	if got := skew.Counts([]int{3, 1, 1}, h); got != 6 {
		t.Fatalf("Skew {3,1,1} = %v, want 6", got)
	}
	o := []Original{{Split: 1, Rack: 0}, {Split: 2, Rack: 0}, {Split: 3, Rack: 0}, {Split: 4, Rack: 1}, {Split: 5, Rack: 2}}
	plan, cnt, _ := Duplicate(DuplicateInput{Racks: 3, Theta: -1, Originals: o})
	if len(plan) != 1 || !reflect.DeepEqual(cnt, []int{2, 2, 1}) {
		t.Fatalf("plan %+v counts %v, want one duplicate, {2,2,1}", plan, cnt)
	}
	if got := skew.Counts(cnt, h); got != 4 {
		t.Errorf("Skew after = %v, want 4", got)
	}
	// 4-rack variant: {3,0,1,1}, H {0,0,1,1} → {2,1,1,1}, 6 → 4; R2's uplink gains 2.
	h4 := []int{0, 0, 1, 1}
	o4 := []Original{{Split: 1, Rack: 0}, {Split: 2, Rack: 0}, {Split: 3, Rack: 0}, {Split: 4, Rack: 2}, {Split: 5, Rack: 3}}
	_, cnt4, _ := Duplicate(DuplicateInput{Racks: 4, Theta: -1, Originals: o4})
	up, _ := skew.CountLoads(cnt4, h4)
	if !reflect.DeepEqual(cnt4, []int{2, 1, 1, 1}) || skew.Counts([]int{3, 0, 1, 1}, h4) != 6 || skew.Counts(cnt4, h4) != 4 || up[1] != 2 {
		t.Errorf("4 racks: counts %v, Skew %v → %v, R2 up %v", cnt4, skew.Counts([]int{3, 0, 1, 1}, h4), skew.Counts(cnt4, h4), up[1])
	}
}

func TestLinkSkew(t *testing.T) {
	if got := skew.Links([]float64{0, 0}, []float64{0, 0}); got != 1 {
		t.Errorf("no load: %v, want 1", got)
	}
	if got := skew.Links([]float64{300, 0}, []float64{0, 100}); got != 3 {
		t.Errorf("zero links ignored: %v, want 3", got)
	}
}

func TestDuplicatePrefersReplicaInLightRack(t *testing.T) {
	// {3,1,0}: only m2 of R1 has a replica in R3, so it is taken before m0.
	o := []Original{
		{Split: 0, Rack: 0, ReplicaRacks: []int{0, 1}}, {Split: 1, Rack: 0, ReplicaRacks: []int{0, 1}},
		{Split: 2, Rack: 0, ReplicaRacks: []int{0, 2}}, {Split: 3, Rack: 1, ReplicaRacks: []int{1, 0}},
	}
	plan, _, _ := Duplicate(DuplicateInput{Racks: 3, Theta: 1, Originals: o})
	want := []Duplication{{Split: 2, From: 0, To: 2, Local: true}}
	if !reflect.DeepEqual(plan, want) {
		t.Errorf("plan %+v, want %+v", plan, want)
	}
}
