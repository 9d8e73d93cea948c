package kmn

import (
	"fmt"
	"github.com/racklab/racklab/internal/skew"
	"math"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
	"github.com/racklab/racklab/coordinator/workload"
)

// Selection rules (arg selection).
const (
	Greedy     = "greedy"
	Exhaustive = "exhaustive"
)

// MaxExhaustive is the most copies of a job the exhaustive selection
// enumerates the subsets of (§4.4: "for ≤ 20 extra copies"); beyond, the
// greedy is used.
const MaxExhaustive = 20

// Config is the policy's args.
type Config struct {
	// Ratio is the extra copies per job as a share of its maps (§4.4:
	// 15%, after KMN's setup).
	Ratio float64 `yaml:"ratio"`
	// Selection is greedy (§4.4 step 5) or exhaustive.
	Selection string `yaml:"selection"`
	// RackLocalityDelay is the base delay scheduler's wait in seconds.
	RackLocalityDelay float64 `yaml:"rack_locality_delay"`
	// ReducePlacement is round_robin, random or hadoop (§2.3).
	ReducePlacement string `yaml:"reduce_placement"`
	// SlowStart is the reduce slow-start asked of the run unless it sets
	// one (§5.1: 0.8); 0 leaves the engine's default.
	SlowStart float64 `yaml:"slow_start"`
}

// DefaultConfig is §4.4's KMN with Appendix A's values.
func DefaultConfig() Config {
	return Config{
		Ratio: 0.15, Selection: Greedy,
		RackLocalityDelay: mapplace.DefaultRackLocalityDelay,
		ReducePlacement:   string(mapplace.RoundRobin),
		SlowStart:         0.8,
	}
}

// Validate checks the args' values.
func (c Config) Validate() error {
	if !(c.Ratio >= 0 && c.Ratio <= 1) {
		return fmt.Errorf("kmn: ratio %g is outside [0,1]", c.Ratio)
	}
	if c.Selection != Greedy && c.Selection != Exhaustive {
		return fmt.Errorf("kmn: selection %q is not %s or %s", c.Selection, Greedy, Exhaustive)
	}
	if !(c.RackLocalityDelay >= 0) {
		return fmt.Errorf("kmn: rack_locality_delay %g s is negative", c.RackLocalityDelay)
	}
	if err := mapplace.ValidateReducePlacement(mapplace.ReducePlacement(c.ReducePlacement)); err != nil {
		return fmt.Errorf("kmn: %w", err)
	}
	if !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return fmt.Errorf("kmn: slow_start %g is outside [0,1]", c.SlowStart)
	}
	return nil
}

// ReasonCopy is the decision note of a copy's launch.
const ReasonCopy = "kmn-copy"

// Policy is KMN for general jobs.
type Policy struct {
	cfg      Config
	maps     *mapplace.Placer
	reducers *mapplace.Reducers
	jobs     map[engine.JobID]*jobState
	order    []engine.JobID // jobs with state, in submission order
}

// pair is one split with an extra copy.
type pair struct {
	task     engine.TaskRef
	origHost cluster.HostID
	origRack cluster.RackID
	target   cluster.RackID // the copy's rack
	copyID   engine.AttemptID
	launched bool // the copy was launched
	dropped  bool // the copy never ran, or was lost undecided
	decided  bool
	useCopy  bool // the decision, once decided
	// origLost: the original was lost, and the copy is the split's
	// output: the reducers follow it to the copy's rack
	origLost bool
}

type jobState struct {
	l     []int // the originals' racks per rack (L)
	h     []int // the reducer counts of the last selection
	pairs []*pair
	// chosen is the selection (nil: to compute), by pair index.
	chosen []bool
}

// New returns KMN with the given args.
func New(cfg Config) *Policy {
	return &Policy{
		cfg:      cfg,
		maps:     mapplace.NewPlacer(mapplace.Config{Mode: mapplace.Delay, RackLocalityDelay: cfg.RackLocalityDelay}),
		reducers: mapplace.NewReducers(mapplace.ReducePlacement(cfg.ReducePlacement)),
		jobs:     make(map[engine.JobID]*jobState),
	}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "kmn" }

// Configure asks for the paper's slow-start unless the run sets one.
func (p *Policy) Configure(cfg *engine.Config) {
	if p.cfg.SlowStart > 0 {
		cfg.SlowStart = p.cfg.SlowStart
	}
}

// OfferHost implements engine.HostScheduler: reducers, then original
// maps by delay scheduling, then the copies of jobs whose originals are
// all launched.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.reducers.OfferReducers(ctx, h)
	p.maps.OfferMaps(ctx, h)
	if ctx.Offering() == engine.ReduceSlot {
		return
	}
	for _, j := range ctx.Running() {
		s := p.jobs[j.ID]
		if s == nil {
			if !p.maps.AllOriginalMapsAssigned(ctx, j.ID) {
				continue
			}
			s = p.plan(ctx, j.ID)
		}
		p.launchCopies(ctx, s)
	}
}

// plan draws the job's copies (§4.4 lines 2–3) once its originals are
// all launched.
func (p *Policy) plan(ctx *engine.Context, j engine.JobID) *jobState {
	s := &jobState{l: p.maps.RackCounts(j)}
	if s.l == nil {
		s.l = mapplace.MapCounts(ctx, j)
	}
	p.jobs[j] = s
	p.order = append(p.order, j)
	// H is dealt on the originals' counts, which copies do not change
	p.reducers.SetMapCounts(j, s.l)
	var cands, all []engine.TaskRef
	for _, st := range ctx.Job(j).Stages {
		if st.Spec.Kind != workload.Map {
			continue
		}
		for i := range st.Tasks {
			t := engine.TaskRef{Job: j, Stage: int16(st.Index), Index: int32(i)}
			all = append(all, t)
			if st.Tasks[i].State == engine.TaskRunning {
				cands = append(cands, t)
			}
		}
	}
	e := int(math.Ceil(p.cfg.Ratio*float64(len(all)) - 1e-9))
	rng := ctx.Rand()
	perm := rng.Perm(len(cands))
	if e > len(cands) {
		e = len(cands)
	}
	picked := make([]engine.TaskRef, 0, e)
	for _, k := range perm[:e] {
		picked = append(picked, cands[k])
	}
	sort.Slice(picked, func(a, b int) bool { return taskLess(picked[a], picked[b]) })
	topo := ctx.Topology()
	for _, t := range picked {
		host, ok := p.maps.OriginalHost(t)
		if !ok {
			host = originalHost(ctx, t)
		}
		pr := &pair{task: t, origHost: host, target: cluster.RackID(rng.IntN(len(topo.Racks)))}
		if host >= 0 {
			pr.origRack = topo.RackOf(host)
		}
		s.pairs = append(s.pairs, pr)
	}
	return s
}

func taskLess(a, b engine.TaskRef) bool {
	if a.Stage != b.Stage {
		return a.Stage < b.Stage
	}
	return a.Index < b.Index
}

// originalHost is the host of a task's running original attempt, for a
// map this policy's Placer did not launch.
func originalHost(ctx *engine.Context, t engine.TaskRef) cluster.HostID {
	for _, id := range ctx.Task(t).Running() {
		if a := ctx.Attempt(id); a != nil && !a.Duplicate {
			return a.Host
		}
	}
	return -1
}

// launchCopies launches the copies not launched yet where their rack has
// a free map slot, and drops those whose original has finished.
func (p *Policy) launchCopies(ctx *engine.Context, s *jobState) {
	for _, pr := range s.pairs {
		if pr.launched || pr.dropped || pr.decided {
			continue
		}
		if task := ctx.Task(pr.task); task.State != engine.TaskRunning {
			p.drop(s, pr)
			continue
		} else if len(task.Running()) == 0 {
			continue // its original just ended: it runs again first
		}
		h, ok := p.copyHost(ctx, pr)
		if !ok {
			continue
		}
		id, err := ctx.LaunchDuplicate(pr.task, h, engine.LaunchOptions{Source: mapplace.Source(ctx, pr.task, h), Note: engine.DecisionNote{Reason: ReasonCopy}})
		if err != nil {
			continue
		}
		pr.copyID, pr.launched = id, true
	}
}

// copyHost picks the host of a copy in its target rack: a live host with
// a free map slot other than the original's, holding a replica of the
// split if one does, else the lowest-id one.
func (p *Policy) copyHost(ctx *engine.Context, pr *pair) (cluster.HostID, bool) {
	best, local := cluster.HostID(-1), false
	reps := ctx.Replicas(pr.task)
	for _, h := range ctx.Topology().Racks[pr.target].Hosts {
		if h == pr.origHost || !ctx.Alive(h) || ctx.FreeMapSlots(h) == 0 {
			continue
		}
		holds := false
		for _, r := range reps {
			holds = holds || r.Host == h
		}
		if best < 0 || (holds && !local) {
			best, local = h, holds
		}
	}
	return best, best >= 0
}

// drop gives up a copy that will not be decided on (it never ran, or was
// lost first): the selection is made again without it.
func (p *Policy) drop(s *jobState, pr *pair) {
	if !pr.dropped {
		pr.dropped = true
		s.chosen = nil
	}
}

// hOf is the reducer counts per rack the selection uses (see the package
// documentation).
func (p *Policy) hOf(ctx *engine.Context, j engine.JobID) []int {
	job := ctx.Job(j)
	n := len(ctx.Topology().Racks)
	for _, st := range job.Stages {
		if st.Spec.Kind == workload.Map {
			continue
		}
		if q := p.reducers.Quota(ctx, j, st.Index); q != nil {
			return q
		}
		placed := mapplace.Placed(ctx, j, st.Index)
		sum := 0
		for _, x := range placed {
			sum += x
		}
		if sum == len(st.Tasks) {
			return placed
		}
		ones := make([]int, n)
		for i := range ones {
			ones[i] = 1
		}
		h, _ := mapplace.RoundRobinQuota(ones, len(st.Tasks))
		return h
	}
	return make([]int, n) // a map-only job: no shuffle
}

// selection is the job's chosen copies (§4.4 step 5), computed if stale.
func (p *Policy) selection(ctx *engine.Context, j engine.JobID, s *jobState) []bool {
	if s.chosen != nil {
		return s.chosen
	}
	l := append([]int(nil), s.l...)
	var cands []int
	for i, pr := range s.pairs {
		switch {
		case pr.decided && pr.useCopy:
			l[pr.origRack]--
			l[pr.target]++
		case !pr.decided && !pr.dropped:
			cands = append(cands, i)
		}
	}
	h := p.hOf(ctx, j)
	s.h = h
	s.chosen = make([]bool, len(s.pairs))
	var picked []int
	if p.cfg.Selection == Exhaustive && len(cands) <= MaxExhaustive {
		picked = exhaustive(l, h, s.pairs, cands)
	} else {
		picked = greedy(l, h, s.pairs, cands)
	}
	for _, i := range picked {
		s.chosen[i] = true
	}
	return s.chosen
}

func swap(l []int, pr *pair, sign int) {
	l[pr.origRack] -= sign
	l[pr.target] += sign
}

// greedy: from l, swap in the candidate of lowest Skew while it is
// strictly lower than the current one; ties go to the lowest split
// (candidates are in split order).
func greedy(l, h []int, pairs []*pair, cands []int) []int {
	l = append([]int(nil), l...)
	cn, cd := skew.CountRatio(l, h)
	used := make([]bool, len(cands))
	var picked []int
	for {
		best := -1
		var bn, bd int64
		for k, i := range cands {
			if used[k] {
				continue
			}
			swap(l, pairs[i], 1)
			n, d := skew.CountRatio(l, h)
			swap(l, pairs[i], -1)
			if best < 0 || lessSkew(n, d, bn, bd) {
				best, bn, bd = k, n, d
			}
		}
		if best < 0 || !lessSkew(bn, bd, cn, cd) {
			return picked
		}
		used[best] = true
		swap(l, pairs[cands[best]], 1)
		cn, cd = bn, bd
		picked = append(picked, cands[best])
	}
}

// exhaustive: the subset of candidates of lowest Skew; on ties, fewer
// copies, then the lowest splits (the subsets in binary order).
func exhaustive(l, h []int, pairs []*pair, cands []int) []int {
	l = append([]int(nil), l...)
	bn, bd := skew.CountRatio(l, h)
	bestMask, bestSize := uint32(0), 0
	for mask := uint32(1); mask < 1<<len(cands); mask++ {
		size := 0
		for k, i := range cands {
			if mask&(1<<k) != 0 {
				swap(l, pairs[i], 1)
				size++
			}
		}
		n, d := skew.CountRatio(l, h)
		for k, i := range cands {
			if mask&(1<<k) != 0 {
				swap(l, pairs[i], -1)
			}
		}
		if lessSkew(n, d, bn, bd) || (!lessSkew(bn, bd, n, d) && size < bestSize) {
			bestMask, bestSize, bn, bd = mask, size, n, d
		}
	}
	var picked []int
	for k, i := range cands {
		if bestMask&(1<<k) != 0 {
			picked = append(picked, i)
		}
	}
	return picked
}

func (s *jobState) pairOf(t engine.TaskRef) (int, *pair) {
	for i, pr := range s.pairs {
		if pr.task == t {
			return i, pr
		}
	}
	return -1, nil
}

// ChooseOutput implements engine.OutputChooser (see the package
// documentation): a split's chosen attempt's output is used when it
// succeeds; the other's is held while the chosen one runs.
func (p *Policy) ChooseOutput(ctx *engine.Context, a *engine.Attempt) engine.OutputDecision {
	s := p.jobs[a.Task.Job]
	if s == nil {
		return engine.UseOutput
	}
	i, pr := s.pairOf(a.Task)
	if pr == nil {
		return engine.UseOutput
	}
	isCopy := pr.launched && a.ID == pr.copyID
	otherRuns := len(ctx.Task(a.Task).Running()) > 1
	if !pr.decided {
		if !pr.launched {
			// the original finished before its copy could launch
			p.drop(s, pr)
			pr.decided = true
			return engine.UseOutput
		}
		want := p.selection(ctx, a.Task.Job, s)[i]
		pr.decided, pr.useCopy = true, want
	}
	if pr.useCopy == isCopy || !otherRuns {
		if pr.useCopy != isCopy {
			// the chosen attempt is gone: this one is all there is
			pr.useCopy = isCopy
			s.chosen = nil
		}
		return engine.UseOutput
	}
	return engine.HoldOutput
}

// AttemptEnded implements engine.AttemptEndedHook: a copy lost before its
// split is decided leaves the selection; a chosen attempt lost after
// leaves its split to the other attempt (the engine uses its held output
// or its running attempt). The slot the attempt frees may take a copy
// waiting for one: the engine offers hosts only while some task is
// pending, so a copy cannot wait for a heartbeat once every map runs.
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	p.lost(ctx, a)
	for _, j := range p.order {
		if ctx.Job(j).State == engine.JobRunning {
			p.launchCopies(ctx, p.jobs[j])
		}
	}
}

func (p *Policy) lost(ctx *engine.Context, a *engine.Attempt) {
	if a.Outcome != engine.AttemptFailed && a.Outcome != engine.AttemptKilled {
		return
	}
	s := p.jobs[a.Task.Job]
	if s == nil {
		return
	}
	_, pr := s.pairOf(a.Task)
	if pr == nil || !pr.launched {
		return
	}
	isCopy := a.ID == pr.copyID
	switch {
	case !pr.decided && isCopy:
		p.drop(s, pr)
	case !pr.decided:
		// the original is lost: the copy is all the split has
		pr.decided, pr.useCopy = true, true
		s.chosen = nil
		p.originalLost(a.Task.Job, s, pr)
	case pr.useCopy == isCopy && ctx.Task(a.Task).State != engine.TaskDone:
		pr.useCopy = !isCopy
		s.chosen = nil
		if !isCopy {
			p.originalLost(a.Task.Job, s, pr)
		}
	}
}

// originalLost moves the reducers' count of a split whose original was
// lost (not killed because its copy won) to its copy's rack.
func (p *Policy) originalLost(j engine.JobID, s *jobState, pr *pair) {
	if !pr.origLost {
		pr.origLost = true
		p.reducers.SetMapCounts(j, reducerCounts(s))
	}
}

// reducerCounts is the per-rack count H is dealt on: the originals'
// (copies do not change it), but a split whose original was lost is
// where its copy is, so that no reducer is dealt to a rack that holds
// none of the job's map output (§2.3).
func reducerCounts(s *jobState) []int {
	l := append([]int(nil), s.l...)
	for _, pr := range s.pairs {
		if pr.origLost && pr.origHost >= 0 && int(pr.origRack) < len(l) && int(pr.target) < len(l) {
			l[pr.origRack]--
			l[pr.target]++
		}
	}
	return l
}

// JobFinished implements engine.JobFinishedHook.
func (p *Policy) JobFinished(_ *engine.Context, j engine.JobID) {
	p.maps.JobFinished(j)
	p.reducers.JobFinished(j)
	delete(p.jobs, j)
	for i, x := range p.order {
		if x == j {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}

// Inspect shows, per job with copies, the originals' counts L, each copy
// (split, original rack → target rack, and its state), and once a
// selection is made its H and the count Skew of the splits decided so far
// (the undecided ones at their originals).
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range p.order {
		s := p.jobs[j]
		job := jobs[j]
		fmt.Fprintf(&b, "%s L=%s copies=%d\n", job.Spec.ID, mapplace.Braces(s.l), len(s.pairs))
		for _, pr := range s.pairs {
			state := "running"
			switch {
			case pr.dropped:
				state = "dropped"
			case pr.decided && pr.useCopy:
				state = "copy chosen"
			case pr.decided:
				state = "original chosen"
			case !pr.launched:
				state = "waiting for a slot"
			}
			fmt.Fprintf(&b, "  %s/%d/%d r%d→r%d %s\n", job.Spec.ID, pr.task.Stage, pr.task.Index, pr.origRack, pr.target, state)
		}
		if s.h != nil {
			l := append([]int(nil), s.l...)
			for _, pr := range s.pairs {
				if pr.decided && pr.useCopy {
					swap(l, pr, 1)
				}
			}
			fmt.Fprintf(&b, "  H=%s L now=%s count Skew %.4g\n", mapplace.Braces(s.h), mapplace.Braces(l), skew.Counts(l, s.h))
		}
	}
	return b.String()
}
