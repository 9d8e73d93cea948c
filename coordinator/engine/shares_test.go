package engine

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// TestExplicitSharesSplitTheShuffle checks that a stage's explicit
// partition weights [3, 1] give its two reducers 75% and 25% of the
// upstream output: in the share a policy reads, in the input a launch
// fixes, and in the partition ranges the reducers fetch.
func TestExplicitSharesSplitTheShuffle(t *testing.T) {
	topo := topo2x2(t, 8)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 1000, 0, 1, 2, 3)}}
	j := mapReduce("j", "in", 2)
	j.Stages[1].Shares = []float64{3, 1}
	w := &workload.Workload{Jobs: []workload.Job{j}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	finishAll(t, e, e.Ready())
	wantShare := []float64{0.75, 0.25}
	for i, want := range wantShare {
		if got := e.ctx.PartitionShare(TaskRef{Job: 0, Stage: 1, Index: int32(i)}); math.Abs(got-want) > 1e-12 {
			t.Errorf("reducer %d's share is %g, want %g", i, got, want)
		}
	}
	e.Schedule()
	rd := e.Ready()
	if len(rd.Launches) != 2 {
		t.Fatalf("%d reducers launched, want 2", len(rd.Launches))
	}
	wantBytes := []int64{3000, 1000} // of the maps' 4 × 1000 bytes
	for _, a := range rd.Launches {
		i := a.Task.Index
		if a.InputBytes != wantBytes[i] {
			t.Errorf("reducer %d's input is %d bytes, want %d", i, a.InputBytes, wantBytes[i])
		}
		var fetched int64
		for _, s := range e.ShuffleSources(a, nil) {
			fetched += s.Length
		}
		if fetched != wantBytes[i] {
			t.Errorf("reducer %d fetches %d bytes, want %d", i, fetched, wantBytes[i])
		}
	}
}

// TestWeightsCumulative checks the normalisation of explicit weights.
func TestWeightsCumulative(t *testing.T) {
	c := weightsCumulative([]float64{1, 2, 1})
	want := []float64{0, 0.25, 0.75, 1}
	for i := range want {
		if math.Abs(c[i]-want[i]) > 1e-15 {
			t.Fatalf("cumulative shares %v, want %v", c, want)
		}
	}
}
