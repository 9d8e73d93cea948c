package reproduce

import (
	"reflect"
	"slices"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/datagen/recurring"
)

// campaigns/corral.yaml's sensitivity study (spec/corral.md §6 rows 17
// and 18): each sweep's workloads are one W1 generator that differs only
// in the error the sweep varies, set to the sweep's x; rows 17 and 18 are
// checked at the ends of the sweeps.
func TestCorralSensitivity(t *testing.T) {
	c, err := campaign.Load("../../campaigns/corral.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := map[string]*campaign.GeneratorSpec{}
	for _, w := range c.Workloads {
		spec[w.Name] = w.Spec.Generator
	}
	// the error a sweep varies, as the generator has it (nil: its default)
	varied := map[string]func(g *campaign.GeneratorSpec) **float64{
		"size-error":       func(g *campaign.GeneratorSpec) **float64 { return &g.SizeError },
		"start-time-error": func(g *campaign.GeneratorSpec) **float64 { return &g.ArrivalError },
	}
	o := recurring.DefaultOptions()
	defaults := map[string]float64{"size-error": o.SizeError, "start-time-error": o.ArrivalError}
	for name, field := range varied {
		i := slices.IndexFunc(c.Sweeps, func(s report.Sweep) bool { return s.Name == name })
		if i < 0 {
			t.Errorf("no sweep %s", name)
			continue
		}
		sw := c.Sweeps[i]
		if len(sw.Points) < 3 || sw.Baseline != "capacity" || !slices.Equal(sw.Policies, []string{"corral"}) {
			t.Errorf("sweep %s: %+v", name, sw)
		}
		var first campaign.GeneratorSpec
		for k, pt := range sw.Points {
			g := spec[pt.Workload]
			if g == nil || g.Name != "recurring" || g.Set != "w1" {
				t.Fatalf("sweep %s: workload %s is not a W1 generator", name, pt.Workload)
			}
			level := defaults[name]
			if v := *field(g); v != nil {
				level = *v
			}
			if level != pt.X {
				t.Errorf("sweep %s: workload %s has error %g, its point says %g", name, pt.Workload, level, pt.X)
			}
			// all else equal, the arrival shift included when given
			other := *g
			*field(&other) = nil
			other.At = "" // where in the file, not what
			if name == "start-time-error" && other.ArrivalShift != nil && *other.ArrivalShift == o.ArrivalShift {
				other.ArrivalShift = nil
			}
			if k == 0 {
				first = other
			} else if !reflect.DeepEqual(other, first) {
				t.Errorf("sweep %s: workload %s differs from %s in more than the error: %+v vs %+v", name, pt.Workload, sw.Points[0].Workload, other, first)
			}
		}
	}
	tb, err := Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{ // spec row: workload → paper effect
		"17 w1-batch-e0": -0.30, "17 w1-batch-e50": -0.30, "18 w1-online": -0.40, "18 w1-online-f50": -0.25,
		"18 w1-online-loaded": -0.40, "18 w1-online-loaded-f50": -0.25, // run set loaded: the paper's load
	}
	for _, r := range tb.Rows {
		for _, row := range []string{"17", "18"} {
			if r.Spec == "corral.md §6 row "+row {
				key := row + " " + r.In
				if p, ok := want[key]; !ok || p != r.Paper || r.Policy != "corral" || r.Baseline != "capacity" {
					t.Errorf("row %s on %s: paper %g, %s vs %s", row, r.In, r.Paper, r.Policy, r.Baseline)
				}
				delete(want, key)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
}
