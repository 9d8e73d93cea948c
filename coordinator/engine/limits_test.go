package engine

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// A map stage with no input bytes and a set output apportions the output
// by task index: out × i must not wrap at the workload's limits.
func TestApportionAtTheLimits(t *testing.T) {
	out, n := workload.MaxBytes, workload.MaxTasksPerStage
	for _, i := range []int{0, 1, n / 3, n - 1, n} {
		want := new(big.Int).Mul(big.NewInt(out), big.NewInt(int64(i)))
		want.Quo(want, big.NewInt(int64(n)))
		if got := apportion(out, 0, 0, n, i); got != want.Int64() {
			t.Errorf("apportion(%d, task %d of %d) = %d, want %d", out, i, n, got, want.Int64())
		}
	}
}

func TestSlowStartNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), -0.5, 1.5} {
		_, err := withDefaults(Config{SlowStart: v})
		if err == nil || !strings.Contains(err.Error(), "slow-start fraction") {
			t.Errorf("slow-start %g: error %v, want one naming the slow-start fraction", v, err)
		}
	}
}
