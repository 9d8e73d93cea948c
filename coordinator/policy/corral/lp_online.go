package corral

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// MaxTimeIndexedVars and MaxTimeIndexedRows bound the time-indexed
// LP-Online that LPOnlineTimeIndexed solves with gonum's dense simplex
// (variables J·R·(slots+1), rows J + about two slots' worth of capacity
// rows). Measured on the shared 2-core machine: 8 jobs × 3 racks × 40
// slots (984 variables, 96 rows) ≈ 0.2 s.
const (
	MaxTimeIndexedVars = 3000
	MaxTimeIndexedRows = 200
)

// LPOnlineTimeIndexed is the time-indexed LP-Online of §2.9, a lower
// bound on the average completion time (finish − arrival) of any plan
// that gives whole racks to whole jobs, on small instances only.
//
// Time is cut into slots of Δ = H/slots, where H = max_j A_j +
// Σ_j max_r L_j(r): a plan that never leaves the cluster idle after the
// last arrival while a job waits (any plan can be shifted so, without
// losing) starts every job by H. y_{j,r,k} ≥ 0 is the share of job j
// that starts in slot k on r racks, Σ_{r,k} y_{j,r,k} = 1 over the slots
// k ≥ ⌊A_j/Δ⌋. A job that starts anywhere in slot k covers at least the
// part min(Δ, max(0, L − qΔ)) of slot k+q for q ≥ 1 (none of slot k
// itself), so every slot τ gets
//
//	Σ_{j,r,k} r · cover_{j,r}(τ−k)/Δ · y_{j,r,k} ≤ R
//
// and the objective (1/J) Σ y_{j,r,k}·(max(0, kΔ − A_j) + L_j(r)) is at
// most the plan's. [INTERPRETATION] This differs from the spec's sketch,
// which gives a job ⌊L⌋_Δ whole slots from its start slot: a start
// inside a slot does not fill that slot, so the sketch can cut off
// feasible plans; counting only what a start anywhere in the slot is
// sure to cover keeps the LP a relaxation. A finer grid gives a tighter
// bound; every grid gives a valid one.
func LPOnlineTimeIndexed(resp [][]float64, arrivals []float64, slots int) (float64, error) {
	if err := checkResp(resp, -1); err != nil {
		return 0, err
	}
	J := len(resp)
	if J == 0 {
		return 0, nil
	}
	if arrivals != nil && len(arrivals) != J {
		return 0, fmt.Errorf("corral: LP-Online: %d arrivals for %d jobs", len(arrivals), J)
	}
	if slots < 1 {
		return 0, fmt.Errorf("corral: LP-Online: %d time slots, want at least 1", slots)
	}
	R := len(resp[0])
	arr := make([]float64, J)
	var horizon float64
	for j := range resp {
		if arrivals != nil {
			a := arrivals[j]
			if !(a >= 0) || math.IsInf(a, 0) {
				return 0, fmt.Errorf("corral: LP-Online: job %d: arrival %g is not a finite value ≥ 0", j, a)
			}
			arr[j] = a
		}
		horizon += slices.Max(resp[j])
	}
	horizon += slices.Max(arr)
	if horizon == 0 {
		return 0, nil
	}
	delta := horizon / float64(slots)
	firstSlot := make([]int, J)
	vars := 0
	maxCover := 0 // the last slot, after its start slot, any job may cover
	for j, row := range resp {
		firstSlot[j] = min(slots, int(arr[j]/delta))
		vars += R * (slots - firstSlot[j] + 1)
		maxCover = max(maxCover, int(math.Ceil(slices.Max(row)/delta)))
	}
	capRows := slots + maxCover
	if vars > MaxTimeIndexedVars || J+capRows > MaxTimeIndexedRows {
		return 0, fmt.Errorf("corral: time-indexed LP-Online of %d jobs × %d racks × %d slots has %d variables and %d rows, beyond the dense simplex's limit of %d and %d (use fewer slots, or LPOnlineClosedForm)",
			J, R, slots, vars, J+capRows, MaxTimeIndexedVars, MaxTimeIndexedRows)
	}
	// columns: the y's, then one slack per capacity row; rows: one per
	// job, then one per slot τ = 1..capRows. Costs are in units of the
	// horizon and capacity rows in units of R, for the simplex's
	// tolerances.
	a := mat.NewDense(J+capRows, vars+capRows, nil)
	b := make([]float64, J+capRows)
	c := make([]float64, vars+capRows)
	col := 0
	for j, row := range resp {
		b[j] = 1
		for r, l := range row {
			for k := firstSlot[j]; k <= slots; k++ {
				a.Set(j, col, 1)
				c[col] = (math.Max(0, float64(k)*delta-arr[j]) + l) / horizon / float64(J)
				for q := 1; k+q <= capRows; q++ {
					cover := math.Min(delta, l-float64(q)*delta)
					if cover <= 0 {
						break
					}
					a.Set(J+k+q-1, col, float64(r+1)*cover/delta/float64(R))
				}
				col++
			}
		}
	}
	for i := 0; i < capRows; i++ {
		b[J+i] = 1
		a.Set(J+i, vars+i, 1)
	}
	v, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return 0, fmt.Errorf("corral: time-indexed LP-Online of %d jobs × %d racks × %d slots: %w", J, R, slots, err)
	}
	return v * horizon, nil
}
