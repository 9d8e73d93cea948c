package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// namedText is a campaign of two named workloads, ml and tpch, with
// fifo and fair on both in sim, and fair alone on tpch in local; rows
// follow.
const namedText = `name: paper
cluster: {racks: 2, hosts_per_rack: 2}
workloads:
  ml: {file: ml.yaml}
  tpch: {file: tpch.yaml}
runs:
  - mode: sim
    policies: [fifo, fair]
    repetitions: 2
  - mode: local
    policies: [fifo, fair]
    workloads: [ml]
headlines:
  title: a table
  rows:
`

func TestRowInNamesAWorkload(t *testing.T) {
	row := func(extra string) string {
		return namedText + "    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: \"-10%\"" + extra + "}\n"
	}
	tb, err := parseText(t, row(", in: tpch"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows[0].In != "tpch" {
		t.Fatalf("row in %q, want tpch", tb.Rows[0].In)
	}
	cases := map[string]struct{ text, want string }{
		"missing in": {row(""), "c.yaml:16: headlines row 1: the campaign has named workloads (ml, tpch): say which one the row is checked on with in: <workload>"},
		"unknown in": {row(", in: tcph"), `c.yaml:16: headlines row 1: unknown workload "tcph": the campaign's workloads are ml, tpch`},
		"in of one workload": {campaignText + "    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: higher, in: ml}\n",
			"c.yaml:21: headlines row 2: in names one of the campaign's named workloads"},
		"not run there": {row(", in: tpch, modes: [local]"), "c.yaml:16: headlines row 1: no run of the campaign runs fair on workload tpch in mode local"},
	}
	for name, c := range cases {
		_, err := parseText(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

// Each row is checked against the results of its own workload, and the
// text and the report's table say which.
func TestEvaluateReadsTheRowsWorkload(t *testing.T) {
	text := namedText + `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%", in: ml}
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%", in: tpch}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(wl string, rows ...metrics.Summary) {
		d := filepath.Join(dir, "sim", wl)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := metrics.WriteSummaries(filepath.Join(d, "summary.csv"), rows); err != nil {
			t.Fatal(err)
		}
	}
	// ml: fair halves the JCT (reproduced); tpch: fair doubles it
	write("ml", run("fifo", 1, 0, 20), run("fair", 1, 0, 10), run("fifo", 2, 0, 20), run("fair", 2, 0, 10))
	write("tpch", run("fifo", 1, 0, 10), run("fair", 1, 0, 20), run("fifo", 2, 0, 10), run("fair", 2, 0, 20))
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Results) != 2 || ch.Results[0].Outcome != Reproduced || ch.Results[1].Outcome != WrongDirection {
		t.Fatalf("results %+v", ch.Results)
	}
	var b strings.Builder
	if err := ch.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var head, ml, tpch string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "#"):
			head = l
		case strings.HasPrefix(l, "1 "):
			ml = l
		case strings.HasPrefix(l, "2 "):
			tpch = l
		}
	}
	if !strings.HasPrefix(strings.Join(strings.Fields(head), " "), "# in metric") ||
		!strings.HasPrefix(strings.Join(strings.Fields(ml), " "), "1 ml jct_mean_s") ||
		!strings.HasPrefix(strings.Join(strings.Fields(tpch), " "), "2 tpch jct_mean_s") {
		t.Errorf("the table does not name each row's workload:\n%s", b.String())
	}
	h := ch.ForReport()
	if h.Columns[1] != "in" || h.Rows[0][1] != "ml" || h.Rows[1][1] != "tpch" {
		t.Errorf("report table: columns %v, rows %v", h.Columns, h.Rows)
	}
	// the local runs hold ml only, and no results yet
	ch, err = Evaluate(parseCampaign(t, text), tb, dir, "local")
	if err != nil {
		t.Fatal(err)
	}
	if w := ch.Results[0].Why; !strings.Contains(w, "no results of mode local on workload ml") {
		t.Errorf("row 1 in local: %q", w)
	}
	if w := ch.Results[1].Why; w != "mode local does not run workload tpch" {
		t.Errorf("row 2 in local: %q", w)
	}
	// the row on tpch is the simulator's: the local check's closing line
	// counts only the row it can measure
	ch.OwnRows(parseCampaign(t, text))
	if len(ch.Results) != 1 || ch.Results[0].Row.In != "ml" || ch.Summary() != "paper: 0 of 1 headlines reproduced" {
		t.Errorf("local's own rows: %d, %q", len(ch.Results), ch.Summary())
	}
}

// The report's headline tables of a result directory of named workloads:
// a mode with the results of one workload has its table.
func TestForResultDirOfNamedWorkloads(t *testing.T) {
	text := namedText + "    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: \"-50%\", in: tpch}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sim", "tpch"), 0o755); err != nil {
		t.Fatal(err)
	}
	rows := []metrics.Summary{run("fifo", 1, 0, 20), run("fair", 1, 0, 10), run("fifo", 2, 0, 20), run("fair", 2, 0, 10)}
	if err := metrics.WriteSummaries(filepath.Join(dir, "sim", "tpch", "summary.csv"), rows); err != nil {
		t.Fatal(err)
	}
	hs, err := ForResultDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Rows[0][1] != "tpch" || !strings.HasSuffix(hs[0].Rows[0][len(hs[0].Rows[0])-1], "reproduced") {
		t.Fatalf("headlines %+v, want sim's table, its row reproduced on tpch", hs)
	}
}
