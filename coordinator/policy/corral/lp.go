package corral

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// MaxSimplexJobs and MaxSimplexVars bound the LP-Batch that
// LPBatchSimplex solves: at most MaxSimplexJobs jobs and
// MaxSimplexVars x-variables (jobs × racks). gonum's simplex is dense:
// the standard form has 2J+1 rows and J·R+J+2 columns, and its time grows
// steeply with the rows. Measured on this testbed's shared 2-core
// machine (penalised W3-like response functions): 50×10 0.10 s,
// 50×20 0.18 s, 50×40 0.34 s, 100×10 1.3 s, 100×20 2.1 s, 120×10 2.3 s,
// 200×10 12 s; 500×100 would need a 1001×50602 matrix (400 MB).
const (
	MaxSimplexJobs = 100
	MaxSimplexVars = 2000
)

func simplexFits(jobs, racks int) bool {
	return jobs <= MaxSimplexJobs && jobs*racks <= MaxSimplexVars
}

// Bound is a lower bound on the planner's objective and how it was
// obtained, to show the heuristic's gap to it (§2.9).
type Bound struct {
	// Value is in the units of the response functions it was computed
	// on: a makespan (batch) or an average completion time (online).
	Value float64
	// Method says which bound: "lp-batch/simplex" (gonum's simplex on
	// LP-Batch), "lp-batch/bisect" (the exact breakpoint bisection on
	// the same LP, used beyond the simplex's size limit) or "online/closed-form"
	// ((1/J) Σ_j min_r L_j(r)).
	Method string
}

// Gap is how far objective is above the bound, relative to the bound
// (0.036 is 3.6%); 0 when the bound is 0, or above the objective by
// rounding only (a plan that meets the bound).
func (b Bound) Gap(objective float64) float64 {
	if b.Value <= 0 {
		return 0
	}
	g := objective/b.Value - 1
	if g < 0 && g > -1e-9 {
		return 0
	}
	return g
}

// LowerBound is the bound the planner reports for its objective:
// LP-Batch (LPBatch) for the batch objective, the closed-form online
// bound (LPOnlineClosedForm) for the online one.
func LowerBound(resp [][]float64, obj Objective) (Bound, error) {
	if err := checkResp(resp, -1); err != nil {
		return Bound{}, err
	}
	if obj == Online {
		return Bound{Value: LPOnlineClosedForm(resp), Method: "online/closed-form"}, nil
	}
	if len(resp) == 0 {
		return Bound{Method: "lp-batch/simplex"}, nil
	}
	R := len(resp[0])
	if simplexFits(len(resp), R) {
		v, err := LPBatchSimplex(resp, R)
		if err == nil {
			return Bound{Value: v, Method: "lp-batch/simplex"}, nil
		}
		// a numerical failure of the simplex: the bisection is exact too
		v, err2 := lpBatchBisect(resp, R)
		return Bound{Value: v, Method: "lp-batch/bisect (simplex: " + err.Error() + ")"}, err2
	}
	v, err := lpBatchBisect(resp, R)
	return Bound{Value: v, Method: "lp-batch/bisect"}, err
}

// LPBatch is T*, the optimum of LP-Batch (§2.9, (1)–(5)) on the response
// functions resp[j][r−1] = L_j(r), r = 1..racks: a lower bound on the
// makespan of any plan that gives whole racks to whole jobs. Up to
// MaxSimplexJobs jobs and MaxSimplexVars variables it is solved by
// gonum's simplex
// (LPBatchSimplex); beyond, by the exact bisection over the breakpoints
// of §2.9's per-job function a_j(T), which gives the same optimum.
func LPBatch(resp [][]float64, racks int) (float64, error) {
	if err := checkResp(resp, racks); err != nil {
		return 0, err
	}
	if simplexFits(len(resp), racks) {
		return LPBatchSimplex(resp, racks)
	}
	return lpBatchBisect(resp, racks)
}

// LPBatchSimplex solves LP-Batch with gonum's simplex, in standard form:
// variables x_{jr} (J·R), T, one slack s_j per constraint (3) and one
// slack u for (4), all ≥ 0:
//
//	(2)  Σ_r x_{jr}                      = 1   for every j
//	(3)  Σ_r L_j(r)·x_{jr} − T + s_j     = 0   for every j
//	(4)  Σ_{j,r} r·L_j(r)·x_{jr} − R·T + u = 0
//
// (5)'s x ≤ 1 follows from (2) and x ≥ 0. It refuses instances of more
// than MaxSimplexJobs jobs or MaxSimplexVars x-variables.
func LPBatchSimplex(resp [][]float64, racks int) (float64, error) {
	if err := checkResp(resp, racks); err != nil {
		return 0, err
	}
	J, R := len(resp), racks
	if J == 0 {
		return 0, nil
	}
	if !simplexFits(J, R) {
		return 0, fmt.Errorf("corral: LP-Batch of %d jobs × %d racks is beyond the dense simplex's limit of %d jobs and %d variables (LPBatch solves it by bisection)", J, R, MaxSimplexJobs, MaxSimplexVars)
	}
	// Scale the run times to at most 1 so that the simplex's tolerances
	// mean the same thing whatever the units.
	scale := 0.0
	for _, row := range resp {
		for _, v := range row {
			scale = math.Max(scale, v)
		}
	}
	if scale == 0 {
		return 0, nil
	}
	tCol := J * R
	cols := J*R + J + 2
	a := mat.NewDense(2*J+1, cols, nil)
	b := make([]float64, 2*J+1)
	for j, row := range resp {
		for r, v := range row {
			l := v / scale
			a.Set(j, j*R+r, 1)
			a.Set(J+j, j*R+r, l)
			a.Set(2*J, j*R+r, float64(r+1)*l)
		}
		b[j] = 1
		a.Set(J+j, tCol, -1)
		a.Set(J+j, tCol+1+j, 1)
	}
	a.Set(2*J, tCol, -float64(R))
	a.Set(2*J, cols-1, 1)
	c := make([]float64, cols)
	c[tCol] = 1
	t, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return 0, fmt.Errorf("corral: LP-Batch of %d jobs × %d racks: %w", J, R, err)
	}
	return t * scale, nil
}

// LPOnlineClosedForm is the weaker online bound of §2.9,
// (1/J) Σ_j min_r L_j(r): no job can finish sooner after its arrival than
// its shortest run time.
func LPOnlineClosedForm(resp [][]float64) float64 {
	if len(resp) == 0 {
		return 0
	}
	var sum float64
	for _, row := range resp {
		sum += slices.Min(row)
	}
	return sum / float64(len(resp))
}

// checkResp checks that every row has racks values (racks < 0: as many
// as row 0), each finite and ≥ 0.
func checkResp(resp [][]float64, racks int) error {
	if len(resp) == 0 {
		if racks == 0 {
			return errors.New("corral: LP bound on 0 racks")
		}
		return nil
	}
	if racks < 0 {
		racks = len(resp[0])
	}
	if racks < 1 {
		return fmt.Errorf("corral: LP bound on %d racks", racks)
	}
	for j, row := range resp {
		if len(row) != racks {
			return fmt.Errorf("corral: LP bound: job %d has %d response values for %d racks", j, len(row), racks)
		}
		for r, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("corral: LP bound: job %d on %d racks: run time %g is not a finite value ≥ 0", j, r+1, v)
			}
		}
	}
	return nil
}

// capacityChain is one job's a_j(T) of §2.9: the least rack-time
// Σ_r x_r·r·L_j(r) of a mix of widths whose run time Σ_r x_r·L_j(r) is at
// most T. It is the lower convex hull of the points (L_j(r), r·L_j(r))
// from the shortest run time to the least rack-time: convex,
// non-increasing, linear between the hull's vertices and constant after
// the last. This is the spec's "at most two widths" formula evaluated
// without trying every pair.
type capacityChain struct {
	l, c []float64 // the vertices: run time ascending, rack-time descending
}

func newCapacityChain(row []float64) capacityChain {
	type pt struct{ l, c float64 }
	pts := make([]pt, len(row))
	for r, v := range row {
		pts[r] = pt{v, float64(r+1) * v}
	}
	sort.Slice(pts, func(a, b int) bool {
		if pts[a].l != pts[b].l {
			return pts[a].l < pts[b].l
		}
		return pts[a].c < pts[b].c
	})
	var hull []pt
	for _, p := range pts {
		if len(hull) > 0 && p.c >= hull[len(hull)-1].c {
			continue // not lower than a shorter width: never on the decreasing chain
		}
		// pop while the last vertex is on or above the segment to p
		for len(hull) >= 2 {
			o, q := hull[len(hull)-2], hull[len(hull)-1]
			if (q.l-o.l)*(p.c-o.c)-(q.c-o.c)*(p.l-o.l) > 0 {
				break
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	ch := capacityChain{l: make([]float64, len(hull)), c: make([]float64, len(hull))}
	for i, p := range hull {
		ch.l[i], ch.c[i] = p.l, p.c
	}
	return ch
}

// at is a_j(T), for T at least the shortest run time.
func (ch capacityChain) at(T float64) float64 {
	i := sort.SearchFloat64s(ch.l, T) // first vertex with l ≥ T
	switch {
	case i == len(ch.l):
		return ch.c[len(ch.c)-1]
	case ch.l[i] == T || i == 0:
		return ch.c[i]
	}
	l0, l1 := ch.l[i-1], ch.l[i]
	lambda := (l1 - T) / (l1 - l0) // share of the shorter width
	return lambda*ch.c[i-1] + (1-lambda)*ch.c[i]
}

// lpBatchBisect is LP-Batch's optimum by §2.9's exact solver: T is
// feasible iff T ≥ T_lo = max_j min_r L_j(r) and Σ_j a_j(T) ≤ R·T. The
// excess F(T) = Σ_j a_j(T) − R·T is strictly decreasing and linear
// between the chains' vertices, so bisecting over the vertices finds the
// segment where F crosses 0 and the segment's line gives T* exactly (up
// to rounding) rather than to a bisection tolerance.
func lpBatchBisect(resp [][]float64, racks int) (float64, error) {
	if err := checkResp(resp, racks); err != nil {
		return 0, err
	}
	if len(resp) == 0 {
		return 0, nil
	}
	chains := make([]capacityChain, len(resp))
	lo := 0.0
	for j, row := range resp {
		chains[j] = newCapacityChain(row)
		lo = math.Max(lo, chains[j].l[0])
	}
	R := float64(racks)
	excess := func(T float64) float64 {
		var sum float64
		for _, ch := range chains {
			sum += ch.at(T)
		}
		return sum - R*T
	}
	fLo := excess(lo)
	if fLo <= 0 {
		return lo, nil
	}
	var breaks []float64
	for _, ch := range chains {
		for _, l := range ch.l {
			if l > lo {
				breaks = append(breaks, l)
			}
		}
	}
	slices.Sort(breaks)
	breaks = slices.Compact(breaks)
	// first breakpoint where the excess is ≤ 0; F is monotone
	k := sort.Search(len(breaks), func(i int) bool { return excess(breaks[i]) <= 0 })
	if k == len(breaks) {
		// past every vertex every a_j is constant: F falls at slope R
		last, fLast := lo, fLo
		if len(breaks) > 0 {
			last = breaks[len(breaks)-1]
			fLast = excess(last)
		}
		return last + fLast/R, nil
	}
	t0, f0 := lo, fLo
	if k > 0 {
		t0 = breaks[k-1]
		f0 = excess(t0)
	}
	t1, f1 := breaks[k], excess(breaks[k])
	if f0 == f1 {
		return t1, nil
	}
	return t0 + f0*(t1-t0)/(f0-f1), nil
}
