package reproduce

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/report"
)

// allCampaign is a paper of `reproduce all` in a test: two small jobs on
// 2 racks × 2 hosts, fifo and fair simulated and emulated twice each; row
// 1 is a sim row, row 2 a row of both modes.
const allCampaign = `name: NAME
cluster: {racks: 2, hosts_per_rack: 2, slots: 2}
workload:
  file: workload.yaml
  datasets: datasets.yaml
seed: 1
runs:
  - {mode: sim, policies: [fifo, fair], repetitions: 2}
  - {mode: local, policies: [fifo, fair], repetitions: 2, compute: sleep}
headlines:
  title: NAME's table
  note: NAME's note
  rows:
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: "Fig. 1", spec: s, paper: lower, modes: [sim]}
    - {metric: cross_rack_bytes, effect: relative, policy: fair, baseline: fifo, workload: w, figure: "Fig. 2", spec: s, paper: higher}
`

const allWorkload = `jobs:
  - id: sort-a
    arrival_s: 0
    stages:
      - {name: map, kind: map, input: a, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 3, after: [map], selectivity: 1}
  - id: sort-b
    arrival_s: 1
    stages:
      - {name: map, kind: map, input: b, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 3, after: [map], selectivity: 1}
`

const allDatasets = `block_size_bytes: 16777216
replication: 1
datasets:
  - {name: a, size_bytes: 67108864}
  - {name: b, size_bytes: 67108864}
`

// writeAllCampaigns writes a campaigns directory: alpha and beta (the same
// campaign), broken (not a campaign) and no file for missing.
func writeAllCampaigns(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"alpha.yaml":    strings.ReplaceAll(allCampaign, "NAME", "alpha"),
		"beta.yaml":     strings.ReplaceAll(allCampaign, "NAME", "beta"),
		"broken.yaml":   "name: broken\nrunz: []\n",
		"workload.yaml": allWorkload,
		"datasets.yaml": allDatasets,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeEmulated writes a paper's emulated results from its simulated
// twin's: the same runs, each policy's mean JCT × its factor (the twin's
// JCT over it is the ratio the fidelity table shows).
func fakeEmulated(t *testing.T, campaigns, out, paper string, jctFactor map[string]float64) {
	t.Helper()
	c, err := campaign.Load(filepath.Join(campaigns, paper+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	twin, err := Twin(c)
	if err != nil {
		t.Fatal(err)
	}
	twinDir := filepath.Join(out, paper, TwinDir)
	_, rows := twin.Summaries(twinDir)
	sums := rows["sim"]
	if len(sums) != 4 {
		t.Fatalf("%d twin runs of %s, want 4", len(sums), paper)
	}
	local := filepath.Join(out, paper, "local")
	for i := range sums {
		run := fmt.Sprintf("%s-seed%d", sums[i].Policy, sums[i].Seed)
		copyDir(t, filepath.Join(twinDir, "sim", run), filepath.Join(local, run))
		sums[i].JCTMeanS *= jctFactor[sums[i].Policy]
	}
	if err := metrics.WriteSummaries(filepath.Join(local, "summary.csv"), sums); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func section(t *testing.T, page *report.Reproduction, name string) report.ReproducedPaper {
	t.Helper()
	for _, p := range page.Papers {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no section %s", name)
	return report.ReproducedPaper{}
}

// `reproduce all` on a fake campaigns directory: the papers that run
// have their results, twins and sections; the ones that fail show why
// and do not stop the others; a rerun resumes; with emulated results
// beside (faked from the twins), the page has both modes' columns and
// the fidelity table's pass and fail.
func TestRunAllAndPage(t *testing.T) {
	campaigns := writeAllCampaigns(t)
	out := filepath.Join(t.TempDir(), "all")
	defer func(old map[string][]string) { KeyFigures = old }(KeyFigures)
	KeyFigures = map[string][]string{"alpha": {"sim-jct-cdf"}}
	opt := AllOptions{Campaigns: campaigns, Papers: []string{"alpha", "broken", "missing", "beta"}, Out: out, Mode: campaign.ModeSim}
	runs, err := RunAll(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d papers run", len(runs))
	}
	for _, r := range runs {
		failed := r.Paper == "broken" || r.Paper == "missing"
		if (r.Err != nil) != failed || (r.Check == nil) != failed {
			t.Errorf("%s: check %v, error %v", r.Paper, r.Check != nil, r.Err)
		}
		if _, err := os.Stat(failedFile(filepath.Join(out, r.Paper), "sim")); (err == nil) != failed {
			t.Errorf("%s: failure record: %v", r.Paper, err)
		}
	}
	for _, paper := range []string{"alpha", "beta"} {
		for _, set := range []string{"sim", filepath.Join(TwinDir, "sim")} {
			done, _ := filepath.Glob(filepath.Join(out, paper, set, "*", "done.json"))
			if len(done) != 4 {
				t.Errorf("%s/%s: %d runs done, want 4", paper, set, len(done))
			}
		}
		if _, err := os.Stat(filepath.Join(out, paper, "local")); !os.IsNotExist(err) {
			t.Errorf("%s: the emulated runs ran in mode sim (%v)", paper, err)
		}
	}
	marker := filepath.Join(out, "alpha", "sim", "fifo-seed1", "done.json")
	before, err := os.Stat(marker)
	if err != nil {
		t.Fatal(err)
	}

	// the simulated page: emulation not run, fidelity not run
	page := Page(opt)
	a := section(t, page, "alpha")
	if len(a.Failures) != 0 || a.Title != "alpha's table" || len(a.Headlines.Rows) != 2 {
		t.Fatalf("alpha: failures %q, title %q, %d rows", a.Failures, a.Title, len(a.Headlines.Rows))
	}
	emuVerdict := slices.Index(a.Headlines.Columns, "emulation verdict")
	if emuVerdict < 0 || a.Headlines.Rows[1][emuVerdict] != "not run" || a.Headlines.Rows[0][emuVerdict] != "not a row of emulation" {
		t.Errorf("alpha's emulation verdicts before any emulated run: columns %q, rows %q", a.Headlines.Columns, a.Headlines.Rows)
	}
	if !strings.Contains(a.Headlines.Summary, "of 2 headlines reproduced in simulation") || !strings.Contains(a.Headlines.Summary, "emulation not run (1 rows)") {
		t.Errorf("alpha's summary %q", a.Headlines.Summary)
	}
	if a.Figure == nil || a.Figure.ID != "sim-jct-cdf" || a.FigureNote != "" || a.Report != "alpha/report/report.html" {
		t.Errorf("alpha's key figure %+v, note %q, report %q", a.Figure, a.FigureNote, a.Report)
	}
	if b := section(t, page, "beta"); b.Figure == nil || !strings.Contains(b.FigureNote, "no key figure chosen for beta") {
		t.Errorf("beta's key figure: %q", b.FigureNote)
	}
	for _, row := range a.Fidelity.Rows {
		if row[a.PassColumn] != "not run (no emulated results)" {
			t.Errorf("alpha's fidelity before any emulated run: %q", row)
		}
	}
	if a.Fidelity.Summary != "fidelity: emulation not run (2 emulated policies to compare)" {
		t.Errorf("alpha's fidelity summary before any emulated run: %q", a.Fidelity.Summary)
	}
	for _, name := range []string{"broken", "missing"} {
		s := section(t, page, name)
		if len(s.Failures) != 1 || !strings.Contains(s.Failures[0], name) || !strings.Contains(s.Headlines.Summary, "no results") {
			t.Errorf("%s: failures %q, summary %q", name, s.Failures, s.Headlines.Summary)
		}
	}
	want := "Reproduced: alpha "
	if !strings.HasPrefix(page.Summary, want) || !strings.Contains(page.Summary, "(simulation), emulation not run; broken: no results; missing: no results; beta ") {
		t.Errorf("last line %q", page.Summary)
	}

	// a rerun resumes: nothing is run again
	if _, err := RunAll(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(marker); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the rerun redid %s (%v)", marker, err)
	}

	// emulated results: fifo's JCT 10% above its twin's (within 15%),
	// fair's 50% above (not)
	fakeEmulated(t, campaigns, out, "alpha", map[string]float64{"fifo": 1.1, "fair": 1.5})
	page = Page(opt)
	a = section(t, page, "alpha")
	if len(a.Failures) != 0 {
		t.Fatalf("alpha's failures: %q", a.Failures)
	}
	emu := slices.Index(a.Headlines.Columns, "emulation")
	if got := a.Headlines.Rows[1][emuVerdict]; got == "not run" || strings.HasPrefix(got, "not measured") || a.Headlines.Rows[1][emu] == "–" {
		t.Errorf("alpha's row of both modes, emulated: %q", a.Headlines.Rows[1])
	}
	if a.Headlines.Rows[0][emu] != "–" {
		t.Errorf("alpha's sim row has an emulated value: %q", a.Headlines.Rows[0])
	}
	if !strings.Contains(a.Headlines.Summary, "of 1 headlines reproduced in emulation") {
		t.Errorf("alpha's summary %q", a.Headlines.Summary)
	}
	if len(a.Fidelity.Rows) != 2 || a.Fidelity.Columns[a.PassColumn] != "within 15%" {
		t.Fatalf("alpha's fidelity: %q %q", a.Fidelity.Columns, a.Fidelity.Rows)
	}
	for _, row := range a.Fidelity.Rows {
		verdict := row[a.PassColumn]
		switch row[2] {
		case "fifo":
			if verdict != "pass" || row[6] != "0.91×" || row[9] != "1.00×" || row[3] != "1, 2" {
				t.Errorf("fifo's fidelity row %q", row)
			}
		case "fair":
			if verdict != "fail: JCT 0.67×" || row[6] != "0.67×" {
				t.Errorf("fair's fidelity row %q", row)
			}
		default:
			t.Errorf("fidelity row %q", row)
		}
	}
	if a.Fidelity.Summary != "fidelity: 1 of 2 emulated policies within 15% of their simulated twins" ||
		!strings.Contains(page.FidelitySummary, "alpha 1 of 2 policies; broken no results; missing no results; beta not run") {
		t.Errorf("fidelity summaries %q, %q", a.Fidelity.Summary, page.FidelitySummary)
	}
	if !strings.Contains(page.Summary, "alpha ") || !strings.Contains(page.Summary, "of 1 (emulation)") {
		t.Errorf("last line %q", page.Summary)
	}

	// the page's files
	htmlPath, mdPath, err := page.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(htmlPath)
	md, _ := os.ReadFile(mdPath)
	for _, s := range []string{`id="paper-alpha"`, `id="paper-broken"`, "Failed:", `class="pass">pass`, `class="fail">fail: JCT 0.67×`,
		"data:image/svg+xml;base64,", `href="alpha/report/report.html"`, page.Summary} {
		if !strings.Contains(string(html), s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if lines := strings.Split(strings.TrimSpace(string(md)), "\n"); lines[len(lines)-1] != "**"+page.Summary+"**" {
		t.Errorf("the Markdown's last line %q", lines[len(lines)-1])
	}
	if !strings.Contains(string(md), "](alpha/report/sim-jct-cdf.png)") {
		t.Errorf("the Markdown does not link alpha's key figure")
	}
}

// A failed paper's record goes once it runs.
func TestRunAllClearsFailure(t *testing.T) {
	campaigns := writeAllCampaigns(t)
	out := filepath.Join(t.TempDir(), "all")
	opt := AllOptions{Campaigns: campaigns, Papers: []string{"broken"}, Out: out, Mode: campaign.ModeSim}
	if runs, err := RunAll(context.Background(), opt); err != nil || runs[0].Err == nil {
		t.Fatalf("broken ran: %v", err)
	}
	record := failedFile(filepath.Join(out, "broken"), "sim")
	if _, err := os.Stat(record); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(campaigns, "broken.yaml"), []byte(strings.ReplaceAll(allCampaign, "NAME", "broken")), 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, err := RunAll(context.Background(), opt); err != nil || runs[0].Err != nil {
		t.Fatalf("fixed broken: %v, %v", err, runs[0].Err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("the failure record stays: %v", err)
	}
}

func TestFidelityCompare(t *testing.T) {
	set := func(rows ...report.Run) *report.ResultSet { return &report.ResultSet{Runs: rows} }
	run := func(policy string, seed uint64, jct, bytes, failed float64) report.Run {
		return report.Run{Policy: policy, Seed: seed, Values: map[string]float64{"jct_mean_s": jct, "cross_rack_bytes": bytes, "failed_jobs": failed}}
	}
	for _, tc := range []struct {
		name     string
		emu, sim *report.ResultSet
		verdict  string
		jctRatio float64
	}{
		{"agree", set(run("p", 1, 10, 100, 0), run("p", 2, 20, 100, 0)), set(run("p", 1, 11, 110, 0), run("p", 2, 22, 110, 0)), "pass", 1.1},
		{"the bound itself", set(run("p", 1, 10, 100, 0)), set(run("p", 1, 11.5, 85, 0)), "pass", 1.15},
		{"JCT off", set(run("p", 1, 10, 100, 0)), set(run("p", 1, 12, 100, 0)), "fail: JCT 1.20×", 1.2},
		{"bytes off", set(run("p", 1, 10, 100, 0)), set(run("p", 1, 10, 50, 0)), "fail: cross-rack bytes 0.50×", 1},
		{"no cross-rack bytes in both", set(run("p", 1, 10, 0, 0)), set(run("p", 1, 10, 0, 0)), "pass", 1},
		{"cross-rack bytes in one only", set(run("p", 1, 10, 0, 0)), set(run("p", 1, 10, 5, 0)), "fail: cross-rack bytes n/a", 1},
		{"seeds of both only", set(run("p", 1, 10, 1, 0), run("p", 2, 99, 1, 0)), set(run("p", 1, 10, 1, 0)), "pass", 1},
		{"not emulated", nil, set(run("p", 1, 10, 1, 0)), "not run (no emulated results)", math.NaN()},
		{"no twin", set(run("p", 1, 10, 1, 0)), nil, "no simulated twin (run bench reproduce all)", math.NaN()},
		{"failed jobs, no records", set(run("p", 1, 10, 1, 2)), set(run("p", 1, 10, 1, 0)),
			"not compared: seed 1: 2 jobs failed or unfinished emulated, 0 simulated, and no job finished in both to compare (open jobs.csv: no such file or directory)", math.NaN()},
		{"another policy's runs", set(run("q", 1, 10, 1, 0)), set(run("p", 1, 10, 1, 0)), "not run (no emulated results)", math.NaN()},
	} {
		row := FidelityRow{Policy: "p", JCTRatio: math.NaN(), BytesRatio: math.NaN()}
		compare(&row, tc.emu, tc.sim, []uint64{1, 2})
		if got := row.Verdict(); got != tc.verdict {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.verdict)
		}
		if math.IsNaN(tc.jctRatio) != math.IsNaN(row.JCTRatio) || math.Abs(row.JCTRatio-tc.jctRatio) > 1e-9 {
			t.Errorf("%s: JCT ratio %g, want %g", tc.name, row.JCTRatio, tc.jctRatio)
		}
	}
}

// A run cut at its window (Dawn's emulated runs) is compared over the
// jobs that finished in both: emulated, a finished in 10 s and b not;
// simulated, both finished, a in 11 s. The JCT ratio is a's, 1.1, and the
// cross-rack bytes are a's attempts' (100 and 110), not b's.
func TestFidelityCompareOverJobsFinishedInBoth(t *testing.T) {
	write := func(jobs, attempts string) string {
		dir := t.TempDir()
		for name, text := range map[string]string{"jobs.csv": "job,state,jct_s\n" + jobs, "attempts.csv": "job,cross_bytes\n" + attempts} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	emu := report.Run{Policy: "p", Seed: 1, Dir: write("a,succeeded,10\nb,unfinished,\n", "a,100\nb,5000\n"),
		Values: map[string]float64{"jct_mean_s": 10, "cross_rack_bytes": 5100, "unfinished_jobs": 1}}
	sim := report.Run{Policy: "p", Seed: 1, Dir: write("a,succeeded,11\nb,succeeded,50\n", "a,110\nb,9000\n"),
		Values: map[string]float64{"jct_mean_s": 30.5, "cross_rack_bytes": 9110}}
	row := FidelityRow{Policy: "p", JCTRatio: math.NaN(), BytesRatio: math.NaN()}
	compare(&row, &report.ResultSet{Runs: []report.Run{emu}}, &report.ResultSet{Runs: []report.Run{sim}}, []uint64{1})
	if got := row.Verdict(); got != "pass (jobs finished in both)" {
		t.Fatalf("verdict %q (%+v)", got, row)
	}
	if math.Abs(row.JCTRatio-1.1) > 1e-9 || math.Abs(row.BytesRatio-1.1) > 1e-9 {
		t.Errorf("ratios %g %g, want 1.1 1.1", row.JCTRatio, row.BytesRatio)
	}
	if len(row.Common) != 1 || row.Common[0] != "seed 1: 1 jobs finished in both (emulated 1 of 2, simulated 2 of 2)" {
		t.Errorf("common %q", row.Common)
	}
}

// The page leaves out of a mode the rows on a workload that none of the
// mode's run sets runs: tpch is simulated only.
func TestPageLeavesOutAnotherModesWorkloads(t *testing.T) {
	text := namedText + `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-10%", in: ml}
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-10%", in: tpch}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, counts := paperSection(dir, "paper", filepath.Dir(dir))
	emu := slices.Index(p.Headlines.Columns, "emulation verdict")
	if len(p.Headlines.Rows) != 2 || emu < 0 || p.Headlines.Rows[0][emu] != "not run" || p.Headlines.Rows[1][emu] != "not a row of emulation" {
		t.Fatalf("rows %q", p.Headlines.Rows)
	}
	if len(counts.modes) != 2 || counts.modes[0].m != 2 || counts.modes[1].m != 1 {
		t.Errorf("rows per mode %+v, want 2 simulated and 1 emulated", counts.modes)
	}
}
