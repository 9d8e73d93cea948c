package report

import (
	"math"
	"path/filepath"
	"testing"
	"time"
)

// An axis whose span is a few ulps of values far from zero (a sweep at
// 0.3 and 0.30000000000000004) gets ticks, and the report is written:
// before, niceTicks counted its ticks in a float64 that k++ no longer
// moved, and the report hung, its memory growing without end.
func TestTicksOfANarrowSpanFarFromZero(t *testing.T) {
	for _, r := range [][2]float64{{1, math.Nextafter(1, 2)}, {1e17, 1e17 + 16}, {-1e17 - 16, -1e17}} {
		done := make(chan []float64, 1)
		go func() {
			var vs []float64
			for _, tk := range (niceTicks{}).Ticks(r[0], r[1]) {
				vs = append(vs, tk.Value)
			}
			done <- vs
		}()
		select {
		case vs := <-done:
			if len(vs) == 0 || len(vs) > 100 {
				t.Errorf("ticks of [%v, %v]: %v", r[0], r[1], vs)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("ticks of [%v, %v] do not end", r[0], r[1])
		}
	}

	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "sim", "a"), sweepRuns([3]float64{-0.5, 0, 0}))
	writeSet(t, filepath.Join(dir, "sim", "b"), sweepRuns([3]float64{-0.1, -0.1, -0.1}))
	sweeps := []Sweep{{Name: "x", XLabel: "x", Metric: "makespan_s", Policies: []string{"fair"}, Baseline: "fifo",
		Points: []SweepPoint{{Workload: "a", X: 0.3}, {Workload: "b", X: math.Nextafter(0.3, 1)}}}}
	done := make(chan error, 1)
	go func() {
		_, err := Generate(dir, Options{Sweeps: sweeps})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the report of a sweep at 0.3 and 0.30000000000000004 does not end")
	}
}
