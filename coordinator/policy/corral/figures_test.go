package corral

import (
	"fmt"
	"slices"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/workload"
)

// Corral's figures for the run's records are its plan's objective, the
// LP bound and the gap between them, under the summary.csv columns kept
// for policy figures; nothing planned, no figures.
func TestFigures(t *testing.T) {
	blocks := []int{24, 6, 6, 3, 3}
	pred := &workload.Predicted{}
	for i := range blocks {
		pred.Jobs = append(pred.Jobs, workload.Prediction{ID: fmt.Sprintf("j%d", i), InputBytes: int64(blocks[i]) << 28,
			ShuffleBytes: int64(blocks[i]) << 28, OutputBytes: int64(blocks[i]) << 27, MapTasks: blocks[i], ReduceTasks: 2})
	}
	for _, obj := range []string{"batch", "online"} {
		cfg := DefaultConfig()
		cfg.Objective = obj
		e, p, _ := runEngine(t, cfg, blocks, make([]float64, len(blocks)), pred)
		figs := p.Figures()
		for name := range figs {
			if !slices.Contains(metrics.PolicyFigureColumns, name) {
				t.Errorf("%s: figure %s has no summary.csv column", obj, name)
			}
		}
		o, b, err := p.PlanBound()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"plan_objective_s": o, "plan_lower_bound_s": b.Value, "plan_gap": b.Gap(o)}
		if len(figs) != len(want) {
			t.Errorf("%s: figures %v, want %v", obj, figs, want)
		}
		for name, x := range want {
			if figs[name] != x {
				t.Errorf("%s: %s = %g, want %g", obj, name, figs[name], x)
			}
		}
		if o <= 0 || b.Value <= 0 || b.Value > o*(1+1e-9) {
			t.Errorf("%s: objective %g, bound %g: want 0 < bound ≤ objective", obj, o, b.Value)
		}
		// the engine's count of the input per rack, from which every
		// policy's CoV is recorded (internal/stats.CoV, as Corral's
		// Inspect), is Corral's own (§2.8)
		all, first := p.RackInputBytes()
		if !slices.Equal(e.Stats.InputRackBytes, all) || !slices.Equal(e.Stats.InputRackFirstBytes, first) {
			t.Errorf("%s: engine counts %v / %v per rack, Corral %v / %v", obj, e.Stats.InputRackBytes, e.Stats.InputRackFirstBytes, all, first)
		}
	}
	if figs := New(DefaultConfig()).Figures(); figs != nil {
		t.Errorf("no plan, figures %v", figs)
	}
}
