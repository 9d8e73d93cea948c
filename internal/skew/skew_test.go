package skew

import (
	"math"
	"testing"
)

// Each rack's uplink and downlink count apart and idle links are left
// out: 1 when no link carried anything.
func TestLinks(t *testing.T) {
	for _, c := range []struct {
		name     string
		up, down []float64
		want     float64
	}{
		{"no links", nil, nil, 1},
		{"all idle", []float64{0, 0}, []float64{0, 0}, 1},
		{"idle links left out", []float64{200, 25, 0}, []float64{0, 150, 75}, 8},
		{"directions apart", []float64{4, 1}, []float64{1, 4}, 4},
		{"one link", []float64{0, 7}, []float64{0, 0}, 1},
		{"not positive is idle", []float64{-3, 6}, []float64{math.NaN(), 2}, 3},
	} {
		if got := Links(c.up, c.down); got != c.want {
			t.Errorf("%s: up %v down %v: skew %g, want %g", c.name, c.up, c.down, got, c.want)
		}
	}
}

// The count Skew of the spec's hand-computed scenarios (§8), as a float
// and as an exact fraction.
func TestCountsOfTheSpecScenarios(t *testing.T) {
	for _, c := range []struct {
		name     string
		l, h     []int
		num, den int64
	}{
		{"S1 {4,1,1}", []int{4, 1, 1}, []int{1, 1, 1}, 8, 2},
		{"S1 step 1 {3,2,1}", []int{3, 2, 1}, []int{1, 1, 1}, 6, 2},
		{"S1 balanced", []int{2, 2, 2}, []int{1, 1, 1}, 4, 4},
		{"S1 KMN m5→R3 {4,0,2}", []int{4, 0, 2}, []int{1, 1, 1}, 8, 2},
		{"S3 {4,4,1}", []int{4, 4, 1}, []int{1, 1, 1}, 8, 2},
		{"S3 {3,4,2}", []int{3, 4, 2}, []int{1, 1, 1}, 8, 4},
		{"S4 t=4", []int{2, 2, 2}, []int{2, 1, 1}, 8, 4},
		{"S4 pre-duplication", []int{4, 1, 1}, []int{2, 1, 1}, 8, 3},
		{"S6 {3,1,1}", []int{3, 1, 1}, []int{0, 1, 1}, 6, 1},
		{"S6 {2,2,1}", []int{2, 2, 1}, []int{0, 1, 1}, 4, 1},
		{"no load", []int{3, 0}, []int{0, 0}, 1, 1},
		{"h shorter than l", []int{3, 1}, []int{1}, 1, 1}, // rack 0: up 0, down 1; rack 1: up 1, down 0
	} {
		if n, d := CountRatio(c.l, c.h); n != c.num || d != c.den {
			t.Errorf("%s: CountRatio(%v, %v) = %d/%d, want %d/%d", c.name, c.l, c.h, n, d, c.num, c.den)
		}
		if got, want := Counts(c.l, c.h), float64(c.num)/float64(c.den); got != want {
			t.Errorf("%s: Counts(%v, %v) = %g, want %g", c.name, c.l, c.h, got, want)
		}
	}
	up, down := CountLoads([]int{4, 1, 1}, []int{1, 1, 1})
	if want := []float64{8, 2, 2}; up[0] != want[0] || up[1] != want[1] || up[2] != want[2] {
		t.Errorf("S1 uplinks %v, want %v", up, want)
	}
	if want := []float64{2, 5, 5}; down[0] != want[0] || down[1] != want[1] || down[2] != want[2] {
		t.Errorf("S1 downlinks %v, want %v", down, want)
	}
}
