package report

import (
	"github.com/racklab/racklab/bench/metrics"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// addColumn appends a column to a result set's summary.csv, its value per
// run from the run's policy and seed.
func addColumn(t *testing.T, dir, name string, value func(policy string, seed uint64) string) {
	t.Helper()
	path := filepath.Join(dir, "summary.csv")
	lines := strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	lines[0] += "," + name
	for i := 1; i < len(lines); i++ {
		cells := strings.SplitN(lines[i], ",", 3)
		seed, err := strconv.ParseUint(cells[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		lines[i] += "," + value(cells[0], seed)
	}
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
}

// dropColumns removes columns from a result set's summary.csv.
func dropColumns(t *testing.T, dir string, names map[string]float64) {
	t.Helper()
	path := filepath.Join(dir, "summary.csv")
	lines := strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	var keep []int
	for i, name := range strings.Split(lines[0], ",") {
		if _, drop := names[name]; !drop {
			keep = append(keep, i)
		}
	}
	for l, line := range lines {
		cells := strings.Split(line, ",")
		var out []string
		for _, i := range keep {
			out = append(out, cells[i])
		}
		lines[l] = strings.Join(out, ",")
	}
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
}

// twoWorkloadRuns are fifo and fair, three repetitions each.
func twoWorkloadRuns(wct float64) []fakeRun {
	var out []fakeRun
	for seed := uint64(1); seed <= 3; seed++ {
		for i, p := range []string{"fifo", "fair"} {
			out = append(out, fakeRun{policy: p, seed: seed, values: map[string]float64{
				"wct_mean_s": wct * float64(i+1), "cross_dependent_bytes": 3e9, "cross_input_bytes": 1e9, "cross_shuffle_bytes": 2e9}})
		}
	}
	return out
}

// findFigure finds a figure by its ID.
func findFigure(t *testing.T, r *Report, id string) *Figure {
	t.Helper()
	for _, f := range r.Figures() {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no figure %s", id)
	return nil
}

// A campaign of named workloads has a section per workload, and ahead
// of them the paper's Fig. 11 and Fig. 12 across the workloads, from the
// per-workload columns when summary.csv has them.
func TestReportOfTwoWorkloads(t *testing.T) {
	dir := t.TempDir()
	for _, wl := range []string{"ml", "tpch"} {
		set := filepath.Join(dir, "sim", wl)
		runs := twoWorkloadRuns(map[string]float64{"ml": 50, "tpch": 7}[wl])
		for i := range runs {
			runs[i].values["workloads_finished"] = float64(10 + 2*runs[i].seed)
			runs[i].values["cross_rack_bytes_per_workload"] = 6e6
			runs[i].values["cross_input_per_workload"] = 1e6
			runs[i].values["cross_dependent_per_workload"] = 3e6
			runs[i].values["cross_shuffle_per_workload"] = 2e6
		}
		writeSet(t, set, runs)
		// a column of a newer racklab that holds no number
		addColumn(t, set, "comment", func(string, uint64) string { return "not a number" })
	}
	r, err := Generate(dir, Options{Workloads: []string{"tpch", "ml"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Modes) != 2 || r.Modes[0].Workload != "tpch" || r.Modes[1].Workload != "ml" || r.Modes[1].Title() != "Mode: sim, workload: ml" {
		t.Fatalf("sections %+v, want tpch then ml, the campaign's order", r.Modes)
	}
	if len(r.Comparisons) != 1 || strings.Join(r.Comparisons[0].Workloads, ",") != "tpch,ml" || len(r.Comparisons[0].Figures) != 2 {
		t.Fatalf("comparisons %+v", r.Comparisons)
	}
	if v := r.Modes[0].Set.Runs[0].Values["workloads_finished"]; v != 12 || !r.Modes[0].Set.Has("workloads_finished") || r.Modes[0].Set.Has("comment") {
		t.Errorf("extra columns: workloads_finished %g", v)
	}
	fig11 := findFigure(t, r, "sim-fig11-workloads")
	// workloads_finished 12, 14, 16: mean 14
	for _, s := range []string{"workloads finished in the run's window", "ml fifo 14.00 ±", "cross-rack bytes per finished workload in MB",
		"tpch fair 6.00", "mean workload completion time in s: tpch fifo 7.00", "ml fair 100.00"} {
		if !strings.Contains(fig11.Alt, s) {
			t.Errorf("Fig. 11 alt lacks %q: %s", s, fig11.Alt)
		}
	}
	if fig11.NoData != "" || fig11.Number != 1 || !strings.Contains(fig11.Title, "sim: ") {
		t.Errorf("Fig. 11: number %d, title %q, no data %q", fig11.Number, fig11.Title, fig11.NoData)
	}
	fig12 := findFigure(t, r, "sim-fig12-cross-rack-categories")
	if !strings.Contains(fig12.Alt, "ml, in MB: fifo: input (first-level reads) 1.000, dependent input 3.000, intermediate shuffle 2.000") ||
		strings.Contains(fig12.Caption, "no per-workload columns") {
		t.Errorf("Fig. 12 does not show the per-workload columns: %s / %s", fig12.Alt, fig12.Caption)
	}
	for _, name := range []string{"sim-fig11-workloads.svg", "sim-fig12-cross-rack-categories.png", "sim-ml-throughput.svg", "sim-tpch-jct-cdf.png"} {
		if _, err := os.Stat(filepath.Join(dir, "report", name)); err != nil {
			t.Error(err)
		}
	}
	html := readFile(t, r.HTMLPath)
	for _, s := range []string{`<h2>Mode: sim, workloads side by side</h2>`, `<h2>Mode: sim, workload: ml</h2>`, `<section id="mode-sim-tpch">`,
		`<a href="#mode-sim-ml">ml</a>`, `<figure id="sim-fig11-workloads">`} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	md := readFile(t, r.MarkdownPath)
	if i, j := strings.Index(md, "## Mode: sim, workloads side by side"), strings.Index(md, "## Mode: sim, workload: tpch"); i < 0 || j < i {
		t.Errorf("report.md: the comparison at %d, tpch's section at %d", i, j)
	}
}

// Without the per-workload columns, Fig. 11 shows throughput and the
// whole run's cross-rack bytes, and Fig. 12 the categories' bytes, and
// say so.
func TestWorkloadFiguresFallBackToRunColumns(t *testing.T) {
	dir := t.TempDir()
	for _, wl := range []string{"b", "a"} {
		set := filepath.Join(dir, "local", wl)
		writeSet(t, set, twoWorkloadRuns(5))
		// as an older racklab wrote it, before the per-workload columns
		dropColumns(t, set, metrics.SummaryAdded)
	}
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Modes) != 2 || r.Modes[0].Workload != "a" {
		t.Fatalf("sections %+v, want a then b (by name, with no campaign order)", r.Modes)
	}
	fig11 := findFigure(t, r, "local-fig11-workloads")
	for _, s := range []string{"no workloads_finished column", "a fifo 100.00", "no cross_rack_bytes_per_workload column", "in GB: a fifo 2.00"} {
		if !strings.Contains(fig11.Alt, s) {
			t.Errorf("Fig. 11 alt lacks %q: %s", s, fig11.Alt)
		}
	}
	fig12 := findFigure(t, r, "local-fig12-cross-rack-categories")
	if !strings.Contains(fig12.Caption, "no per-workload columns") || !strings.Contains(fig12.Alt, "a, in GB: fifo: input (first-level reads) 1.000, dependent input 3.000, intermediate shuffle 2.000") {
		t.Errorf("Fig. 12: %s / %s", fig12.Caption, fig12.Alt)
	}
}
