package stats

import (
	"math"
	"testing"
)

func TestCoV(t *testing.T) {
	for _, c := range []struct {
		bytes []int64
		want  float64
	}{{nil, 0}, {[]int64{0, 0}, 0}, {[]int64{3, 3, 3}, 0}, {[]int64{0, 2}, 1}, {[]int64{16, 12, 10}, math.Sqrt(56.0/9) / (38.0 / 3)}} {
		if got := CoV(c.bytes); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("CoV(%v) = %g, want %g", c.bytes, got, c.want)
		}
	}
}
