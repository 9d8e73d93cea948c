package campaign

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recurringCampaign is a campaign of one small W1 recurring workload whose
// generator has the given extra options.
func recurringCampaign(opts string) string {
	return "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01" + opts + "}\nruns: [{mode: sim, policies: [fifo]}]\n"
}

// TestPredictionErrorOptions: size_error 0 gives exact sizes (not the
// generator's 13% default), size_error 0.5 errors up to ±50%, and
// arrival_error/arrival_shift move that fraction of the arrivals by at
// most the shift, while the predictions keep the planned arrivals.
func TestPredictionErrorOptions(t *testing.T) {
	type outcome struct {
		maxSizeErr, maxShift float64
		moved                int
	}
	measure := func(opts string) outcome {
		t.Helper()
		w, ds, p := generated(t, recurringCampaign(opts))
		size := map[string]int64{}
		for _, d := range ds.Datasets {
			size[d.Name] = d.Size
		}
		arrival := map[string]float64{}
		for _, j := range w.Jobs {
			arrival[j.ID] = j.Arrival
		}
		var o outcome
		for _, j := range p.Jobs {
			o.maxSizeErr = math.Max(o.maxSizeErr, math.Abs(float64(size["in-"+j.ID])/float64(j.InputBytes)-1))
			if d := math.Abs(arrival[j.ID] - j.Arrival); d > 0 {
				o.moved++
				o.maxShift = math.Max(o.maxShift, d)
			}
		}
		return o
	}
	// the rounding of a dataset's size to whole bytes
	const rounding = 1e-6
	if o := measure(""); o.maxSizeErr < 0.05 || o.maxSizeErr > 0.13+rounding || o.moved != 0 {
		t.Errorf("defaults: largest size error %g (want the generator's 13%%), %d arrivals moved (want 0)", o.maxSizeErr, o.moved)
	}
	if o := measure(", size_error: 0"); o.maxSizeErr > rounding {
		t.Errorf("size_error 0: largest size error %g, want none", o.maxSizeErr)
	}
	if o := measure(", size_error: 0.5"); o.maxSizeErr < 0.3 || o.maxSizeErr > 0.5+rounding {
		t.Errorf("size_error 0.5: largest size error %g, want near 0.5", o.maxSizeErr)
	}
	o := measure(", arrival_error: 0.5, arrival_shift: 60")
	if o.moved < 45 || o.moved > 50 || o.maxShift > 60 || o.maxShift < 30 {
		t.Errorf("arrival_error 0.5, shift 60 s: %d of 100 arrivals moved (want 50), the largest by %g s (want up to 60)", o.moved, o.maxShift)
	}
	if o := measure(", arrival_error: 0.5"); o.maxShift <= 60 || o.maxShift > 240 {
		t.Errorf("arrival_error 0.5: the largest shift %g s, want the generator's 240 s bound", o.maxShift)
	}
}

func TestPredictionErrorOptionsOutOfRange(t *testing.T) {
	cases := map[string]struct{ opts, want string }{
		"negative size error": {", size_error: -0.1", "c.yaml:4: workload generator: size_error is the largest relative error of the actual sizes (0.5: up to ±50%), in [0, 1): got -0.1"},
		"size error of 1":     {", size_error: 1", "c.yaml:4: workload generator: size_error is the largest relative error"},
		"fraction above 1":    {", arrival_error: 1.5", "c.yaml:4: workload generator: arrival_error is the fraction of the jobs that arrive away from their predicted time, in [0, 1]: got 1.5"},
		"negative shift":      {", arrival_shift: -240", "c.yaml:4: workload generator: arrival_shift is the largest shift of an arrival, in seconds"},
		"not a number":        {", size_error: lots", "c.yaml:4"},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, recurringCampaign(tc.opts)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	_, err := Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: tpch, arrival_error: 0.5}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if want := "c.yaml:4: workload generator: arrival_error is an option of the recurring generator, not of tpch"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("arrival_error on tpch: error %v, want %q", err, want)
	}
}

// sweepCampaign is a campaign of three named workloads, a-c, run with
// fifo and fair in sim and fair alone on c in local, and the sweeps
// section given.
func sweepCampaign(sweeps string) string {
	return "name: s\ncluster: {racks: 2, hosts_per_rack: 3}\nworkloads:\n" +
		"  a: {generator: {name: recurring, set: w1, scale: 0.01, size_error: 0}}\n" +
		"  b: {generator: {name: recurring, set: w1, scale: 0.01, size_error: 0.5}}\n" +
		"  c: {generator: {name: recurring, set: w1, scale: 0.01, size_error: 0.3}}\n" +
		"runs:\n  - {mode: sim, policies: [fifo, fair], workloads: [a, b]}\n  - {mode: local, policies: [fair], workloads: [c]}\n" +
		"sweeps:\n" + sweeps
}

func TestSweepsParse(t *testing.T) {
	c, err := Load(writeCampaign(t, sweepCampaign("  - {name: err, x: size error, metric: makespan_s, policies: [fair], baseline: fifo, points: {b: 0.5, a: 0}}\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sweeps) != 1 {
		t.Fatalf("sweeps %+v", c.Sweeps)
	}
	sw := c.Sweeps[0]
	if sw.Name != "err" || sw.XLabel != "size error" || sw.Metric != "makespan_s" || sw.Baseline != "fifo" ||
		len(sw.Policies) != 1 || sw.Policies[0] != "fair" || len(sw.Points) != 2 ||
		sw.Points[0].Workload != "b" || sw.Points[0].X != 0.5 || sw.Points[1].Workload != "a" || sw.Points[1].X != 0 {
		t.Fatalf("sweep %+v", sw)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), c.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ResultDirSweeps(dir); err != nil || len(got) != 1 || got[0].Name != "err" {
		t.Fatalf("ResultDirSweeps: %+v, %v", got, err)
	}
}

func TestSweepErrorsNameTheirLine(t *testing.T) {
	const ok = "name: err, x: e, metric: makespan_s, policies: [fair], baseline: fifo"
	cases := map[string]struct{ sweeps, want string }{
		"unknown field":    {"  - {" + ok + ", points: {a: 0, b: 1}, colour: red}\n", `c.yaml:11: sweeps[0]: unknown field "colour"`},
		"no points":        {"  - {" + ok + "}\n", `c.yaml:11: sweeps[0]: missing field "points"`},
		"one point":        {"  - {" + ok + ", points: {a: 0}}\n", "c.yaml:11: sweeps[0]: a sweep needs at least two points (workload: x), got 1"},
		"unknown workload": {"  - {" + ok + ", points: {a: 0, z: 1}}\n", `c.yaml:11: sweeps[0] points: unknown workload "z": the campaign's workloads are a, b, c`},
		"x not a number":   {"  - {" + ok + ", points: {a: 0, b: high}}\n", "c.yaml:11: sweeps[0] points: b:"},
		"policy not run":   {"  - {" + ok + ", points: {a: 0, c: 1}}\n", "c.yaml:11: sweeps[0] points: no run set runs fifo on workload c: add it to runs"},
		"unknown metric":   {"  - {name: err, x: e, metric: speed, policies: [fair], baseline: fifo, points: {a: 0, b: 1}}\n", `c.yaml:11: sweeps[0]: unknown metric "speed"`},
		"baseline among policies": {"  - {name: err, x: e, metric: makespan_s, policies: [fair, fifo], baseline: fifo, points: {a: 0, b: 1}}\n",
			"c.yaml:11: sweeps[0]: the baseline fifo is among the policies"},
		"slash in name": {"  - {name: a/b, x: e, metric: makespan_s, policies: [fair], baseline: fifo, points: {a: 0, b: 1}}\n", `c.yaml:11: sweeps[0]: the sweep name "a/b" names a file`},
		"name twice": {"  - {" + ok + ", points: {a: 0, b: 1}}\n  - {" + ok + ", points: {a: 0, b: 1}}\n",
			`c.yaml:12: sweeps[1]: sweep name "err" is used twice`},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, sweepCampaign(tc.sweeps)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	one := "name: s\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload: {generator: {name: recurring, set: w1}}\nruns: [{mode: sim, policies: [fifo, fair]}]\n" +
		"sweeps: [{" + ok + ", points: {a: 0, b: 1}}]\n"
	if _, err := Load(writeCampaign(t, one)); err == nil || !strings.Contains(err.Error(), "c.yaml:5: sweeps[0]: a sweep's points are named workloads") {
		t.Errorf("sweeps in a campaign of one workload: error %v", err)
	}
}
