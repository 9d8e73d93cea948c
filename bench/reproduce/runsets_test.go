package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/report"
)

// netsText is a campaign that runs fifo and fair twice in simulation, in
// its unnamed run set (max-min) and in one named varys, and fifo in
// local; rows follow (the first at line 16).
const netsText = `name: paper
cluster: {racks: 2, hosts_per_rack: 2}
workload:
  file: w.yaml
runs:
  - {mode: sim, policies: [fifo, fair], repetitions: 2}
  - {mode: sim, name: varys, network: varys, policies: [fifo, fair], repetitions: 2}
  - {mode: local, policies: [fifo]}
headlines:
  title: a table
  rows:
`

func netsRow(policy, baseline, paper string) string {
	return "    - {metric: jct_mean_s, effect: relative, policy: " + policy + ", baseline: " + baseline + ", workload: w, figure: f, spec: s, paper: \"" + paper + "\"}\n"
}

func TestRowsNameRunSets(t *testing.T) {
	tb, err := parseText(t, netsText+netsRow("fifo@varys", "fifo", "-50%"))
	if err != nil {
		t.Fatal(err)
	}
	if r := tb.Rows[0]; r.Policy != "fifo" || r.PolicySet != "varys" || r.Baseline != "fifo" || r.BaselineSet != "" || r.PolicyRef() != "fifo@varys" {
		t.Fatalf("row %+v", r)
	}
	cases := map[string]struct{ text, want string }{
		"unknown run set":  {netsRow("fifo@tcp", "fifo", "-50%"), "c.yaml:12: headlines row 1: no run of the campaign runs fifo in run set tcp: add it to runs"},
		"not in that mode": {strings.TrimSuffix(netsRow("fifo@varys", "fifo", "-50%"), "}\n") + ", modes: [local]}\n", "c.yaml:12: headlines row 1: no run of the campaign runs fifo in run set varys in mode local"},
		"no name after @":  {netsRow("fifo@", "fifo", "-50%"), `c.yaml:12: headlines row 1: "fifo@" names no run set after '@'`},
		"no label":         {netsRow("fair", `"@varys"`, "-50%"), `c.yaml:12: headlines row 1: "@varys" names no policy before '@'`},
		"itself":           {netsRow("fifo@varys", "fifo@varys", "-50%"), "c.yaml:12: headlines row 1: the baseline is the policy itself (fifo@varys)"},
	}
	for name, tc := range cases {
		_, err := parseText(t, netsText+tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
}

// A row compares a policy in one run set with a policy in another: each
// side is read from its own run set's results.
func TestEvaluateAcrossRunSets(t *testing.T) {
	text := netsText + netsRow("fifo@varys", "fifo", "-50%") + // varys halves fifo's JCT
		netsRow("fair", "fifo@varys", "-50%") + // fair on max-min against fifo on varys
		netsRow("fair@varys", "fifo@varys", "-50%") + // both in varys
		netsRow("fair", "fifo", "-50%") // both unnamed, as before
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	c := parseCampaign(t, text)
	dir := t.TempDir()
	write := func(set string, rows ...metrics.Summary) {
		d := campaign.SetDir(dir, set, "")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := metrics.WriteSummaries(filepath.Join(d, "summary.csv"), rows); err != nil {
			t.Fatal(err)
		}
	}
	write("sim", run("fifo", 1, 0, 40), run("fair", 1, 0, 10), run("fifo", 2, 0, 40), run("fair", 2, 0, 10))
	write("sim-varys", run("fifo", 1, 0, 20), run("fair", 1, 0, 16), run("fifo", 2, 0, 20), run("fair", 2, 0, 16))
	ch, err := Evaluate(c, tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		measured     float64
		policy, base string
	}{{-0.5, "20.00 s", "40.00 s"}, {-0.5, "10.00 s", "20.00 s"}, {-0.2, "16.00 s", "20.00 s"}, {-0.75, "10.00 s", "40.00 s"}}
	if len(ch.Results) != len(want) {
		t.Fatalf("%d results", len(ch.Results))
	}
	for i, w := range want {
		r := ch.Results[i]
		if r.Why != "" || abs(r.Measured-w.measured) > 1e-9 || !strings.HasPrefix(r.PolicyText, w.policy) || !strings.HasPrefix(r.BaselineText, w.base) {
			t.Errorf("row %d: measured %g (%s vs %s) %q, want %g (%s vs %s)", i+1, r.Measured, r.PolicyText, r.BaselineText, r.Why, w.measured, w.policy, w.base)
		}
	}
	var b strings.Builder
	if err := ch.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "fair vs fifo@varys") {
		t.Errorf("the table does not name the run sets:\n%s", b.String())
	}
	// a run missing from the named run set is named with it
	write("sim-varys", run("fifo", 1, 0, 20), run("fair", 1, 0, 16), run("fair", 2, 0, 16))
	if ch, err = Evaluate(c, tb, dir, "sim"); err != nil {
		t.Fatal(err)
	}
	if w := ch.Results[1].Why; w != "missing run fifo@varys-seed2" {
		t.Errorf("row 2 with a missing run: %q", w)
	}
	// local has no run set varys: its rows are sim's alone; the unnamed
	// row is checked (and not measured: no results yet)
	if ch, err = Evaluate(c, tb, dir, "local"); err != nil {
		t.Fatal(err)
	}
	if len(ch.Results) != 1 || !strings.Contains(ch.Results[0].Why, "no results of mode local") {
		t.Errorf("local: %+v", ch.Results)
	}
	// the report's tables: one per mode, not one per run set
	hs, err := forDir(t, dir, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || len(hs[0].Rows) != 4 {
		t.Errorf("report tables %+v", hs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// forDir writes the campaign into a result directory and checks its
// headlines as the report does.
func forDir(t *testing.T, dir, text string) ([]report.Headlines, error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return ForResultDir(dir)
}
