package reproduce

import (
	"github.com/racklab/racklab/bench/metrics"
	"math"
	"strings"
	"testing"
)

// A value row may give a plain number in the column's unit, a
// percentage of a ratio column, and either as a bound; the rest is
// refused with a message naming the row's paper key.
func TestParseValueRows(t *testing.T) {
	tb, err := parseText(t, campaignText+`    - {metric: plan_gap, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "≤ 3%"}
    - {metric: input_rack_cov, effect: value, policy: fifo, workload: w, figure: f, spec: s, paper: "<= 0.004"}
    - {metric: plan_wall_s, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "55"}
    - {metric: node_local_frac, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: ">= 50%"}
`)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		paper   float64
		bound   int
		percent bool
		text    string
	}{{0.03, -1, true, "≤ 3.0%"}, {0.004, -1, false, "≤ 0.004"}, {55, 0, false, "55"}, {0.5, 1, true, "≥ 50.0%"}} {
		r := tb.Rows[i+1]
		if math.Abs(r.Paper-want.paper) > 1e-12 || r.Bound != want.bound || r.Percent != want.percent || r.PaperText() != want.text {
			t.Errorf("row %d: paper %g bound %d percent %v text %q; want %+v", i+2, r.Paper, r.Bound, r.Percent, r.PaperText(), want)
		}
	}
	for _, c := range []struct{ paper, metric, want string }{
		{"3%", "plan_wall_s", "not a ratio"},
		{"0.5", "node_local_frac", "is a share"},
		{"≤ 120%", "node_local_frac", "between 0% and 100%"},
		{"-1", "plan_wall_s", "above 0"},
		{"≤ fast", "plan_wall_s", "give a number"},
		{"lower", "plan_gap", "give a number"},
	} {
		row := `    - {metric: ` + c.metric + `, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "` + c.paper + `"}` + "\n"
		if _, err := parseText(t, campaignText+row); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "paper") {
			t.Errorf("%s on %s: error %v, want one saying %q", c.paper, c.metric, err, c.want)
		}
	}
	// a bound is a value row's: a relative row refuses it
	row := `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "≤ -3%"}` + "\n"
	if _, err := parseText(t, campaignText+row); err == nil {
		t.Error("a relative row took a bound")
	}
}

func TestJudgeBound(t *testing.T) {
	for _, c := range []struct {
		paper    float64
		bound    int
		measured float64
		want     Outcome
	}{
		{0.03, -1, 0.01, Reproduced}, {0.03, -1, 0.03, Reproduced}, {0.03, -1, 0, Reproduced}, {0.03, -1, 0.0301, OutOfBound},
		{0.5, 1, 0.6, Reproduced}, {0.5, 1, 0.5, Reproduced}, {0.5, 1, 0.49, OutOfBound}, {0.03, -1, math.NaN(), NotMeasured},
	} {
		if got := JudgeBound(c.paper, c.bound, c.measured); got != c.want {
			t.Errorf("JudgeBound(%g, %d, %g) = %v, want %v", c.paper, c.bound, c.measured, got, c.want)
		}
	}
}

// A bound row is reproduced when the policy's mean keeps the bound, and
// otherwise says by how much it misses it.
func TestEvaluateBoundRows(t *testing.T) {
	text := campaignText + `    - {metric: plan_gap, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "≤ 3%"}
    - {metric: plan_gap, effect: value, policy: fifo, workload: w, figure: f, spec: s, paper: "≤ 3%"}
    - {metric: input_rack_cov, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "≤ 0.004"}
    - {metric: plan_wall_s, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "≤ 55"}
    - {metric: plan_wall_s, effect: value, policy: fifo, workload: w, figure: f, spec: s, paper: "≤ 55"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rows := []metrics.Summary{run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), run("fair", 2, 0.8, 11)}
	for i := range rows {
		rows[i].PlanWallS = math.NaN()
		if rows[i].Policy == "fair" {
			rows[i].PolicyFigures = map[string]float64{"plan_gap": 0.01}
			rows[i].InputRackCoV = 0.004 + 0.002*float64(rows[i].Seed) // mean 0.007
			rows[i].PlanWallS = 0.5
		} else {
			rows[i].PolicyFigures = map[string]float64{"plan_gap": 0.05}
		}
	}
	writeRuns(t, dir, rows...)
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	got := ch.Results[1:]
	for i, want := range []struct {
		outcome           Outcome
		measured, verdict string
	}{
		{Reproduced, "1.0%", "reproduced (within the paper's bound)"},
		{OutOfBound, "5.0%", "not reproduced: 2.0 pp above ≤ 3.0%"},
		{OutOfBound, "0.007", "not reproduced: 0.003 (1.8× the bound) above ≤ 0.004"},
		{Reproduced, "0.5", "reproduced (within the paper's bound)"},
		{NotMeasured, "–", ""},
	} {
		r := got[i]
		if r.Outcome != want.outcome || r.MeasuredText() != want.measured || (want.verdict != "" && r.VerdictText() != want.verdict) {
			t.Errorf("row %d: %v, measured %s, verdict %q; want %v, %s, %q", i+2, r.Outcome, r.MeasuredText(), r.VerdictText(), want.outcome, want.measured, want.verdict)
		}
	}
	for x, want := range map[float64]string{0.000008: "0.0008%", 0.0021: "0.21%", 0.118: "11.8%", 0: "0.0%"} {
		if s := got[0].Row.FormatValue(x); s != want {
			t.Errorf("gap %g written %q, want %q", x, s, want)
		}
	}
	if got[0].PolicyText != "1.000 % (values 1.000, 1.000; no CI)" {
		t.Errorf("gap row: policy %q, want it in percent", got[0].PolicyText)
	}
	if got[2].PolicyText != "0.00700 (values 0.00600, 0.00800; no CI)" || got[2].label() != "fair (own value)" {
		t.Errorf("CoV row: policy %q, label %q", got[2].PolicyText, got[2].label())
	}
}
