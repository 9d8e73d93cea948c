package corral

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Objective is the planner's goal (§1.3).
type Objective uint8

const (
	// Batch minimises the makespan: every job is submitted at 0.
	Batch Objective = iota
	// Online minimises the average completion time, finish − arrival,
	// with arrivals known ahead of time.
	Online
)

func (o Objective) String() string {
	if o == Online {
		return "online"
	}
	return "batch"
}

// Options are the planner's switches beyond the response functions.
type Options struct {
	Objective Objective
	// EarlyStop is §2.3.1's optional variant: stop widening once the
	// jobs wider than one rack hold R racks between them (Belkhale &
	// Banerjee's rule). Off by default: Corral widens until every job
	// has every rack.
	EarlyStop bool
	// Trace keeps every candidate's objective in Plan.Trace.
	Trace bool
	// LowerBound computes Plan.Bound, the LP bound of §2.9 on the same
	// response functions (LowerBound), to report the heuristic's gap,
	// as part of planning. Without it Plan.ComputeBound does it later,
	// outside the planner's time.
	LowerBound bool
}

// Assignment is one job's part of the plan.
type Assignment struct {
	Racks    []int   // R_j, ascending rack ids
	Start    float64 // T_j, the planned start
	Duration float64 // the planner's L'_j(r_j)
	// Priority is p_j: 0 is the highest (§2.3.3).
	Priority int
}

// Finish is the planned completion time T_j + L'_j(r_j).
func (a Assignment) Finish() float64 { return a.Start + a.Duration }

// Plan is the planner's output: per job, in input order, its racks, start
// and priority, and the objective of the plan.
type Plan struct {
	Jobs []Assignment
	// Objective is the makespan (batch) or the average completion time
	// (online) of the plan, in the units of the response functions the
	// planner used (L' when the penalty is on).
	Objective float64
	// Unpenalised is the same plan's objective with the unpenalised L,
	// when Plan computed the response functions (§2.3.1: log both).
	Unpenalised float64
	// Candidates is how many allocations Algorithm P evaluated, Best the
	// index of the one kept (0: every job on one rack).
	Candidates, Best int
	// Trace is each candidate's objective, when Options.Trace is set.
	Trace []float64
	// Bound is a lower bound on Objective (LP-Batch or the closed-form
	// online bound), when Options.LowerBound is set or ComputeBound has
	// run.
	Bound Bound

	resp [][]float64 // the response functions planned with
	obj  Objective   // and the objective
}

// ComputeBound fills Plan.Bound, unless it is there already, and returns
// it.
func (p *Plan) ComputeBound() (Bound, error) {
	if p.Bound.Method != "" {
		return p.Bound, nil
	}
	b, err := LowerBound(p.resp, p.obj)
	if err != nil {
		return Bound{}, err
	}
	p.Bound = b
	return b, nil
}

// Order lists the job indices by priority, highest first.
func (p *Plan) Order() []int {
	idx := make([]int, len(p.Jobs))
	for j := range p.Jobs {
		idx[p.Jobs[j].Priority] = j
	}
	return idx
}

// PlanJobs plans jobs on a cluster: it computes each job's penalised response
// function L'_j(r) for r = 1..R (§2.4–2.5) and runs PlanTable on them.
func PlanJobs(jobs []Job, c Cluster, m Model, opts Options) (*Plan, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if !(m.Alpha >= 0) || math.IsInf(m.Alpha, 0) {
		return nil, fmt.Errorf("corral: alpha %g must be ≥ 0", m.Alpha)
	}
	R := c.Racks
	pen := make([][]float64, len(jobs))
	raw := make([][]float64, len(jobs))
	arrivals := make([]float64, len(jobs))
	flat := make([]float64, 2*len(jobs)*R)
	for i, j := range jobs {
		if err := j.Check(); err != nil {
			return nil, err
		}
		pen[i], flat = flat[:R:R], flat[R:]
		raw[i], flat = flat[:R:R], flat[R:]
		for r := 1; r <= R; r++ {
			raw[i][r-1] = m.Latency(j, c, r)
			pen[i][r-1] = raw[i][r-1] + m.Alpha*j.InputBytes/float64(r)
		}
		arrivals[i] = j.Arrival
	}
	p, err := PlanTable(pen, arrivals, opts)
	if err != nil {
		return nil, err
	}
	p.Unpenalised = unpenalised(p, raw, arrivals, opts.Objective)
	return p, nil
}

// PlanTable is Algorithm P (§2.3.1) on given response functions:
// resp[j][r−1] is job j's run time on r racks (the penalty included, if
// any), every row of the same length R. arrivals is A_j for the online
// objective (nil: all 0); the batch objective ignores it.
func PlanTable(resp [][]float64, arrivals []float64, opts Options) (*Plan, error) {
	J := len(resp)
	if J == 0 {
		return &Plan{Candidates: 0}, nil
	}
	R := len(resp[0])
	if R == 0 {
		return nil, fmt.Errorf("corral: job 0 has no response for any rack count")
	}
	for j, row := range resp {
		if len(row) != R {
			return nil, fmt.Errorf("corral: job %d has %d response values, job 0 has %d", j, len(row), R)
		}
		for r, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("corral: job %d on %d racks: run time %g is not a finite value ≥ 0", j, r+1, v)
			}
		}
	}
	arr := make([]float64, J)
	if opts.Objective == Online && arrivals != nil {
		if len(arrivals) != J {
			return nil, fmt.Errorf("corral: %d arrivals for %d jobs", len(arrivals), J)
		}
		for j, a := range arrivals {
			if !(a >= 0) || math.IsInf(a, 0) {
				return nil, fmt.Errorf("corral: job %d: arrival %g is not a finite value ≥ 0", j, a)
			}
		}
		copy(arr, arrivals)
	}

	q := newPrioritizer(resp, arr, opts.Objective)
	width := q.width
	p := &Plan{resp: resp, obj: opts.Objective}
	best := math.Inf(1)
	var bestWidth []int
	for {
		obj := q.objective() // P4
		if opts.Trace {
			p.Trace = append(p.Trace, obj)
		}
		if obj < best { // P5: strict, so a tie keeps the narrower candidate
			best = obj
			bestWidth = append(bestWidth[:0], width...)
			p.Best = p.Candidates
		}
		p.Candidates++
		if opts.EarlyStop && q.wideRacks() >= R {
			break
		}
		// P7–P9: the longest job that can still widen; ties to the lower index
		widest := -1
		longest := -1.0
		for j := 0; j < J; j++ {
			if width[j] < R && resp[j][width[j]-1] > longest {
				widest, longest = j, resp[j][width[j]-1]
			}
		}
		if widest < 0 {
			break // P8: every job has every rack
		}
		q.widen(widest) // P10
	}
	if bestWidth == nil {
		// every candidate's objective overflowed: finite response times
		// whose sums are not (schedule would index an empty plan)
		return nil, fmt.Errorf("corral: every plan of the %d jobs has an objective past the largest float (their run times add up beyond %g s)", J, math.MaxFloat64)
	}
	p.Objective = best
	p.Jobs = schedule(resp, arr, bestWidth, opts.Objective)
	if opts.LowerBound {
		if _, err := p.ComputeBound(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// prioritizer evaluates Algorithm Q's objective for the current widths
// quickly: the list O is kept sorted as one job's key changes, and racks
// are kept as groups of equal finish time F, since the objective does
// not depend on which of equally free racks a job gets. schedule gives
// the rack ids of the plan that is kept.
type prioritizer struct {
	resp   [][]float64
	arr    []float64
	obj    Objective
	width  []int
	order  []int // O
	groups []group
}

// group is n racks that all finish their planned jobs at f.
type group struct {
	f float64
	n int
}

func newPrioritizer(resp [][]float64, arr []float64, obj Objective) *prioritizer {
	J := len(resp)
	q := &prioritizer{resp: resp, arr: arr, obj: obj, width: make([]int, J), order: make([]int, J)}
	for j := range q.width {
		q.width[j] = 1 // P1
		q.order[j] = j
	}
	sort.SliceStable(q.order, func(a, b int) bool { return q.less(q.order[a], q.order[b]) })
	return q
}

// less is Q1's sort key: (A_j online,) widest first, then longest first
// (LPT), then job index [INTERPRETATION].
func (q *prioritizer) less(a, b int) bool {
	if q.obj == Online && q.arr[a] != q.arr[b] {
		return q.arr[a] < q.arr[b]
	}
	if q.width[a] != q.width[b] {
		return q.width[a] > q.width[b]
	}
	la, lb := q.resp[a][q.width[a]-1], q.resp[b][q.width[b]-1]
	if la != lb {
		return la > lb
	}
	return a < b
}

// widen gives job j one more rack and moves it to its place in O.
func (q *prioritizer) widen(j int) {
	i := slices.Index(q.order, j)
	q.order = slices.Delete(q.order, i, i+1)
	q.width[j]++
	at := sort.Search(len(q.order), func(k int) bool { return q.less(j, q.order[k]) })
	q.order = slices.Insert(q.order, at, j)
}

// wideRacks is Σ r_j over the jobs wider than one rack.
func (q *prioritizer) wideRacks() int {
	n := 0
	for _, w := range q.width {
		if w > 1 {
			n += w
		}
	}
	return n
}

// objective runs Q2–Q8 on the groups of racks: each job takes the r_j
// racks that are free first and holds them all until it ends.
func (q *prioritizer) objective() float64 {
	R := len(q.resp[0])
	q.groups = append(q.groups[:0], group{f: 0, n: R})
	var total, makespan float64
	for _, j := range q.order {
		need := q.width[j]
		var start float64
		for need > 0 {
			g := &q.groups[0]
			start = g.f // groups leave in ascending f: the last one is the max (Q5)
			if g.n > need {
				g.n -= need
				need = 0
			} else {
				need -= g.n
				q.pop()
			}
		}
		start = math.Max(start, q.arr[j])
		finish := start + q.resp[j][q.width[j]-1]
		q.push(group{f: finish, n: q.width[j]})
		total += finish - q.arr[j]
		makespan = math.Max(makespan, finish)
	}
	if q.obj == Online {
		return total / float64(len(q.order))
	}
	return makespan
}

// push and pop keep groups a min-heap on f. Written out rather than
// through container/heap: this is the planner's inner loop.
func (q *prioritizer) push(g group) {
	h := append(q.groups, g)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].f <= h[i].f {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	q.groups = h
}

func (q *prioritizer) pop() {
	h := q.groups
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l, small := 2*i+1, i
		if l < len(h) && h[l].f < h[small].f {
			small = l
		}
		if r := l + 1; r < len(h) && h[r].f < h[small].f {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	q.groups = h
}

// schedule is Algorithm Q with rack ids (Q4's ties to the lower rack id)
// and the priorities of §2.3.3: rank by (T_j, position in O).
func schedule(resp [][]float64, arr []float64, width []int, obj Objective) []Assignment {
	J, R := len(resp), len(resp[0])
	q := &prioritizer{resp: resp, arr: arr, obj: obj, width: width, order: make([]int, J)}
	for j := range q.order {
		q.order[j] = j
	}
	sort.SliceStable(q.order, func(a, b int) bool { return q.less(q.order[a], q.order[b]) })
	free := make([]float64, R) // F_i
	racks := make([]int, R)
	out := make([]Assignment, J)
	for _, j := range q.order {
		for i := range racks {
			racks[i] = i
		}
		sort.SliceStable(racks, func(a, b int) bool { return free[racks[a]] < free[racks[b]] })
		chosen := slices.Clone(racks[:width[j]])
		start := arr[j]
		for _, i := range chosen {
			start = math.Max(start, free[i])
		}
		d := resp[j][width[j]-1]
		for _, i := range chosen {
			free[i] = start + d
		}
		slices.Sort(chosen)
		out[j] = Assignment{Racks: chosen, Start: start, Duration: d}
	}
	rank := slices.Clone(q.order)
	sort.SliceStable(rank, func(a, b int) bool { return out[rank[a]].Start < out[rank[b]].Start })
	for p, j := range rank {
		out[j].Priority = p
	}
	return out
}

// unpenalised is the objective of plan p's order and racks with the run
// times raw instead of those it was planned with.
func unpenalised(p *Plan, raw [][]float64, arr []float64, obj Objective) float64 {
	if len(p.Jobs) == 0 {
		return 0
	}
	free := make([]float64, len(raw[0]))
	var total, makespan float64
	// replay in priority order: a job starts when its racks are free
	order := p.Order()
	for _, j := range order {
		a := p.Jobs[j]
		start := 0.0
		if obj == Online {
			start = arr[j]
		}
		for _, i := range a.Racks {
			start = math.Max(start, free[i])
		}
		finish := start + raw[j][len(a.Racks)-1]
		for _, i := range a.Racks {
			free[i] = finish
		}
		if obj == Online {
			total += finish - arr[j]
		}
		makespan = math.Max(makespan, finish)
	}
	if obj == Online {
		return total / float64(len(order))
	}
	return makespan
}
