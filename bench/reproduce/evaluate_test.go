package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// writeRuns writes dir/sim/summary.csv: one run per summary.
func writeRuns(t *testing.T, dir string, rows ...metrics.Summary) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "sim"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := metrics.WriteSummaries(filepath.Join(dir, "sim", "summary.csv"), rows); err != nil {
		t.Fatal(err)
	}
}

func run(policy string, seed uint64, nodeLocal, jct float64) metrics.Summary {
	return metrics.Summary{Policy: policy, Seed: seed, Jobs: 10, NodeLocalFrac: nodeLocal, JCTMeanS: jct}
}

// The campaign of campaignText (fifo and fair, seeds 1 and 2) with three
// rows: +12pp node locality, -10% mean JCT, and a higher JCT.
const threeRows = campaignText + `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-10%"}
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: higher}
`

func evaluate(t *testing.T, dir string) *Check {
	t.Helper()
	tb, err := parseText(t, threeRows)
	if err != nil {
		t.Fatal(err)
	}
	c := parseCampaign(t, threeRows)
	ch, err := Evaluate(c, tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Results) != 3 {
		t.Fatalf("%d results", len(ch.Results))
	}
	return ch
}

func TestEvaluate(t *testing.T) {
	dir := t.TempDir()
	// fair: node-local 0.7 and 0.8 (mean 0.75), JCT 9 and 11 (mean 10);
	// fifo: 0.6 and 0.6, JCT 20 and 20
	writeRuns(t, dir, run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), run("fair", 2, 0.8, 11))
	ch := evaluate(t, dir)
	want := []struct {
		measured float64
		outcome  Outcome
		verdict  string
	}{
		{15, Reproduced, "reproduced"},
		{-0.5, TooLarge, "not reproduced: too large"},
		{-0.5, WrongDirection, "not reproduced: wrong direction"},
	}
	for i, w := range want {
		r := ch.Results[i]
		if math.Abs(r.Measured-w.measured) > 1e-9 || r.Outcome != w.outcome || r.VerdictText() != w.verdict {
			t.Errorf("row %d: measured %g %v %q, want %g %v %q", i+1, r.Measured, r.Outcome, r.VerdictText(), w.measured, w.outcome, w.verdict)
		}
	}
	r := ch.Results[0]
	if r.Policy.N != 2 || math.Abs(r.Policy.Mean-0.75) > 1e-9 || !r.Policy.HasCI() || r.Baseline.Mean != 0.6 {
		t.Errorf("row 1 stats: %+v, %+v", r.Policy, r.Baseline)
	}
	// the report's text: with two repetitions, the values, not the
	// t-interval 0.75 ± 0.6353 that would reach past 1
	if r.PolicyText != "0.7500 (values 0.7000, 0.8000; no CI)" || r.MeasuredText() != "+15.0 pp" {
		t.Errorf("row 1 texts: %q, %q", r.PolicyText, r.MeasuredText())
	}
	if ch.Results[1].PolicyText != "10.00 s (values 9.00, 11.00; no CI)" {
		t.Errorf("row 2 text: %q", ch.Results[1].PolicyText)
	}
	if got := ch.Summary(); got != "paper: 1 of 3 headlines reproduced" {
		t.Errorf("summary %q", got)
	}
	var b strings.Builder
	if err := ch.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if lines[len(lines)-1] != "paper: 1 of 3 headlines reproduced" {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
	for _, s := range []string{"fair vs fifo", "+12.0 pp", "-10.0%", "higher (no number)", "not reproduced: too large", "x.md §6.1 row 1"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the text lacks %q:\n%s", s, b.String())
		}
	}
	h := ch.ForReport()
	if len(h.Rows) != 3 || len(h.Rows[0]) != len(h.Columns) || h.Summary != ch.Summary() {
		t.Errorf("report table: %+v", h)
	}
}

func TestEvaluateNotMeasured(t *testing.T) {
	failed := run("fair", 2, 0.8, 11)
	failed.FailedJobs = 1
	cases := []struct {
		name string
		runs []metrics.Summary
		why  string
	}{
		{"missing run", []metrics.Summary{run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20)}, "missing run fair-seed2"},
		{"failed jobs", []metrics.Summary{run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), failed}, "failed jobs in the runs of fair: 1"},
		{"zero baseline", []metrics.Summary{run("fifo", 1, 0, 0), run("fair", 1, 0, 9), run("fifo", 2, 0, 0), run("fair", 2, 0, 11)}, "the effect is undefined"},
		{"no results", nil, "no results of mode sim"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if c.runs != nil {
			writeRuns(t, dir, c.runs...)
		}
		ch := evaluate(t, dir)
		for i, r := range ch.Results {
			if c.name == "zero baseline" && i == 0 {
				// points of fractions are defined at 0: 0 - 0 is no change
				if r.Outcome != WrongDirection {
					t.Errorf("%s: row 1 %v", c.name, r.Outcome)
				}
				continue
			}
			if r.Outcome != NotMeasured || !math.IsNaN(r.Measured) || !strings.Contains(r.VerdictText(), c.why) || r.MeasuredText() != "–" {
				t.Errorf("%s: row %d: %v %q (measured %g), want not measured: %s", c.name, i+1, r.Outcome, r.VerdictText(), r.Measured, c.why)
			}
		}
		if got := ch.Summary(); !strings.HasPrefix(got, "paper: 0 of 3") {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}

// A value row checks the policy's own share against the paper's (Dawn's
// §6.3 statistics): no baseline; a policy without the column's value is
// not measured.
func TestEvaluateValueRows(t *testing.T) {
	text := campaignText + `    - {metric: node_local_frac, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "79%"}
    - {metric: node_local_frac, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "20%"}
    - {metric: traffic_tasks_unsaturated_frac, effect: value, policy: fifo, workload: w, figure: f, spec: s, paper: "89%"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	nan := math.NaN()
	rows := []metrics.Summary{run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), run("fair", 2, 0.8, 11)}
	for i := range rows {
		rows[i].TrafficTasksUnsaturatedFrac, rows[i].ZeroTrafficTasksSaturatedFrac = nan, nan
		rows[i].InputTasksCrossFrac, rows[i].DepInterTasksCrossFrac = nan, nan
	}
	writeRuns(t, dir, rows...)
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	got := ch.Results[len(ch.Results)-3:]
	if got[0].Outcome != Reproduced || math.Abs(got[0].Measured-0.75) > 1e-9 || got[0].MeasuredText() != "75.0%" || got[0].Row.PaperText() != "79.0%" {
		t.Errorf("0.75 against 79%%: %v, measured %s, paper %s", got[0].Outcome, got[0].MeasuredText(), got[0].Row.PaperText())
	}
	if got[0].label() != "fair (own share)" {
		t.Errorf("a share's label %q", got[0].label())
	}
	if got[1].Outcome != TooLarge {
		t.Errorf("0.75 against 20%%: %v, want too large", got[1].Outcome)
	}
	if got[2].Outcome != NotMeasured || !strings.Contains(got[2].Why, "decision notes") {
		t.Errorf("a share fifo has no value of: %v (%s)", got[2].Outcome, got[2].Why)
	}
	for _, bad := range []string{
		`    - {metric: jct_mean_s, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "79%"}` + "\n",
		`    - {metric: node_local_frac, effect: value, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "79%"}` + "\n",
		`    - {metric: node_local_frac, effect: value, policy: fair, workload: w, figure: f, spec: s, paper: "179%"}` + "\n",
		`    - {metric: node_local_frac, effect: points, policy: fair, workload: w, figure: f, spec: s, paper: "+5pp"}` + "\n",
	} {
		if _, err := parseText(t, campaignText+bad); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// A difference the repetitions cannot tell from 0 says so in its
// verdict; a clear one does not.
func TestEvaluateSaysWhenWithinNoise(t *testing.T) {
	for _, tc := range []struct {
		fair  [3]float64
		noise bool
	}{
		{[3]float64{17.8, 18, 18.2}, false}, // -2 s ± 0.5 s
		{[3]float64{8, 18, 28}, true},       // -2 s ± 24.8 s
	} {
		dir := t.TempDir()
		var rows []metrics.Summary
		for i, jct := range tc.fair {
			rows = append(rows, run("fifo", uint64(i+1), 0.6, 20), run("fair", uint64(i+1), 0.6, jct))
		}
		writeRuns(t, dir, rows...)
		r := evaluate(t, dir).Results[1]
		if r.Outcome != Reproduced || r.Noise != tc.noise || strings.Contains(r.VerdictText(), "within noise") != tc.noise {
			t.Errorf("fair %v: %v, noise %v, %q; want reproduced, noise %v", tc.fair, r.Outcome, r.Noise, r.VerdictText(), tc.noise)
		}
	}
}
