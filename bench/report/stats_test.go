package report

import (
	"math"
	"testing"
)

func TestWelchInterval(t *testing.T) {
	// two samples of 3: means 10 and 7, variances 1 and 4; Welch's dof
	// = (1/3+4/3)² / ((1/3)²/2 + (4/3)²/2) = 2.94, t(0.975, 2.94) ≈ 3.218
	// (between 3.182 at 3 and 4.303 at 2)
	lo, hi := WelchInterval(Summarise([]float64{9, 10, 11}), Summarise([]float64{5, 7, 9}))
	hw := 3.218 * math.Sqrt(5.0/3)
	if math.Abs(lo-(3-hw)) > 0.01 || math.Abs(hi-(3+hw)) > 0.01 {
		t.Errorf("interval [%.3f, %.3f], want 3 ± %.3f", lo, hi, hw)
	}
	if lo, hi := WelchInterval(Summarise([]float64{2, 2}), Summarise([]float64{1, 1})); lo != 1 || hi != 1 {
		t.Errorf("no spread: [%g, %g], want the difference, 1", lo, hi)
	}
	if lo, _ := WelchInterval(Summarise([]float64{2}), Summarise([]float64{1, 3})); !math.IsNaN(lo) {
		t.Errorf("one value: %g, want NaN", lo)
	}
}
