package metrics

import (
	"math"
	"testing"
)

func TestPercentileNearestRank(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{50: 5, 95: 10, 99: 10, 10: 1, 11: 2} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("p%g = %g, want %g", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 || Mean(nil) != 0 {
		t.Fatal("empty input")
	}
}

func TestSkew(t *testing.T) {
	if s := Skew([]float64{2, 4, 8}); s != 4 {
		t.Fatalf("skew %g", s)
	}
	if s := Skew([]float64{0, 4}); !math.IsInf(s, 1) {
		t.Fatalf("skew with an idle link %g", s)
	}
	if s := Skew([]float64{0, 0}); s != 1 {
		t.Fatalf("skew of idle links %g", s)
	}
}
