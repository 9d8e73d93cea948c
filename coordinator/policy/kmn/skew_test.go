package kmn

import "testing"

func TestCountSkewOfTheSpecScenarios(t *testing.T) {
	for _, c := range []struct {
		name string
		l, h []int
		want float64
	}{
		{"S1 {4,1,1}", []int{4, 1, 1}, []int{1, 1, 1}, 4},
		{"S1 step 1 {3,2,1}", []int{3, 2, 1}, []int{1, 1, 1}, 3},
		{"S1 balanced", []int{2, 2, 2}, []int{1, 1, 1}, 1},
		{"S1 KMN m5→R3 {4,0,2}", []int{4, 0, 2}, []int{1, 1, 1}, 4},
		{"S3 {4,4,1}", []int{4, 4, 1}, []int{1, 1, 1}, 4},
		{"S3 {3,4,2}", []int{3, 4, 2}, []int{1, 1, 1}, 2},
		{"S4 t=4", []int{2, 2, 2}, []int{2, 1, 1}, 2},
		{"S4 pre-duplication", []int{4, 1, 1}, []int{2, 1, 1}, 8.0 / 3},
		{"S6 {3,1,1}", []int{3, 1, 1}, []int{0, 1, 1}, 6},
		{"S6 {2,2,1}", []int{2, 2, 1}, []int{0, 1, 1}, 4},
		{"no load", []int{3, 0}, []int{0, 0}, 1},
	} {
		if got := CountSkew(c.l, c.h); got != c.want {
			t.Errorf("%s: CountSkew(%v, %v) = %g, want %g", c.name, c.l, c.h, got, c.want)
		}
	}
}
