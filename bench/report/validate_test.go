package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// NaN and infinities in the report's inputs are refused with the file,
// the line and the column; +Inf link skew (an idle link) is a value.
func TestNonFiniteInputsAreRefused(t *testing.T) {
	replaceLine := func(t *testing.T, path string, line int, from, to string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if !strings.Contains(lines[line-1], from) {
			t.Fatalf("%s:%d: no %q in %q", path, line, from, lines[line-1])
		}
		lines[line-1] = strings.Replace(lines[line-1], from, to, 1)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summaryWith := func(col string, x float64) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			runs := knownRuns()
			runs[2].values[col] = x
			writeSet(t, dir, runs)
		}
	}
	cases := []struct {
		name, file string
		line       int
		breakIt    func(t *testing.T, dir string)
		want       string
	}{
		{"summary NaN", "summary.csv", 4, summaryWith("jct_mean_s", math.NaN()), "column 7 (jct_mean_s): NaN is not a finite number"},
		{"summary +Inf", "summary.csv", 4, summaryWith("makespan_s", math.Inf(1)), "column 5 (makespan_s): +Inf is not a finite number"},
		{"summary -Inf skew", "summary.csv", 4, summaryWith("link_skew", math.Inf(-1)), "column 25 (link_skew): -Inf"},
		{"summary NaN skew", "summary.csv", 4, summaryWith("link_skew", math.NaN()), "column 25 (link_skew): NaN"},
		{"jobs NaN", "fifo-seed1/jobs.csv", 3, func(t *testing.T, dir string) {
			writeSet(t, dir, knownRuns())
			replaceLine(t, filepath.Join(dir, "fifo-seed1", "jobs.csv"), 3, ",2.000000,2,2,", ",NaN,2,2,")
		}, "column 8 (jct_s): NaN is not a finite number"},
		{"links Inf utilisation", "fifo-seed1/links.csv", 2, func(t *testing.T, dir string) {
			writeSet(t, dir, knownRuns())
			replaceLine(t, filepath.Join(dir, "fifo-seed1", "links.csv"), 2, ",up,0,0.200000", ",up,0,inf")
		}, "column 4 (utilisation): +Inf is not a finite number"},
		{"links NaN time", "fifo-seed1/links.csv", 6, func(t *testing.T, dir string) {
			writeSet(t, dir, knownRuns())
			replaceLine(t, filepath.Join(dir, "fifo-seed1", "links.csv"), 6, "20.000000,", "nan,")
		}, "column 1 (time_s): NaN is not a finite number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.breakIt(t, dir)
			_, err := Generate(dir, Options{})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError", err)
			}
			want := filepath.Join(dir, c.file) + ":" + strconv.Itoa(c.line) + ": " + c.want
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
	// +Inf link skew is what an idle rack link gives: it stays a value
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	if _, err := Generate(dir, Options{}); err != nil {
		t.Fatalf("+Inf link skew: %v", err)
	}
}

// A report of a campaign with fewer runs than it plans says so in its
// header, in HTML and Markdown; a complete one does not.
func TestPartialCampaignHeader(t *testing.T) {
	dir := t.TempDir()
	writeCampaign(t, dir) // 7 simulated runs, 4 local
	for planned, want := range map[int]string{15: "partial: 11 of 15 runs done", 11: "", 0: ""} {
		r, err := Generate(dir, Options{PlannedRuns: planned})
		if err != nil {
			t.Fatal(err)
		}
		html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
		header := html[:strings.Index(html, "</header>")]
		mdHeader := md[:strings.Index(md, "## ")]
		if want == "" {
			if strings.Contains(html, "partial") || strings.Contains(md, "partial") {
				t.Errorf("planned %d: the report says it is partial", planned)
			}
			continue
		}
		if !strings.Contains(header, "<strong>"+want+"</strong>") {
			t.Errorf("planned %d: the HTML header lacks %q", planned, want)
		}
		if !strings.Contains(mdHeader, "**"+want+"**") {
			t.Errorf("planned %d: the Markdown header lacks %q:\n%s", planned, want, mdHeader)
		}
	}
}

// A report of runs that lost a host names them in its header, in HTML
// and Markdown, so that their figures are not read as clean repetitions;
// without such a run it says nothing of it.
func TestLostHostsHeader(t *testing.T) {
	dir := t.TempDir()
	runs := knownRuns()[:4]
	writeSet(t, filepath.Join(dir, "sim"), runs)
	runs[1].values["hosts_lost"] = 2
	runs[3].values["hosts_lost"] = 1
	writeSet(t, filepath.Join(dir, "local"), runs)
	want := "runs that lost hosts (their figures include the reruns; events.jsonl says which and when): local/fair-seed1 (2 hosts), local/fifo-seed2 (1 host)"
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	if header := html[:strings.Index(html, "</header>")]; !strings.Contains(header, "<strong>"+want+"</strong>") {
		t.Errorf("the HTML header lacks %q", want)
	}
	if mdHeader := md[:strings.Index(md, "## ")]; !strings.Contains(mdHeader, "**"+want+"**") {
		t.Errorf("the Markdown header lacks %q:\n%s", want, mdHeader)
	}

	clean := t.TempDir()
	writeSet(t, clean, knownRuns())
	r, err = Generate(clean, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath); strings.Contains(html, "lost hosts") || strings.Contains(md, "lost hosts") {
		t.Error("a report of clean runs speaks of lost hosts")
	}
}

// What bench report's check found not as the runs left it heads the
// report, HTML and Markdown, both escaped.
func TestProblemsHeader(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "sim"), knownRuns()[:4])
	problems := []string{"sim/summary.csv:3: run sim/fair-seed1 has not finished (no done.json)", "run sim/fifo-seed2: jobs.csv is 10 bytes, done.json says 9<0>"}
	r, err := Generate(dir, Options{Problems: problems})
	if err != nil {
		t.Fatal(err)
	}
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	header := html[:strings.Index(html, "</header>")]
	for _, want := range []string{"<li>" + problems[0] + "</li>", "<li>run sim/fifo-seed2: jobs.csv is 10 bytes, done.json says 9&lt;0&gt;</li>", "Not as the runs left them"} {
		if !strings.Contains(header, want) {
			t.Errorf("the HTML header lacks %q", want)
		}
	}
	// Markdown passes raw HTML through: markup from the files is escaped
	// there too, as text
	mdHeader := md[:strings.Index(md, "## ")]
	for _, want := range []string{"- " + problems[0] + "\n", "- run sim/fifo-seed2: jobs.csv is 10 bytes, done.json says 9&lt;0&gt;\n"} {
		if !strings.Contains(mdHeader, want) {
			t.Errorf("the Markdown header lacks %q:\n%s", want, mdHeader)
		}
	}
	r, err = Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath); strings.Contains(html, "Not as the runs") || strings.Contains(md, "Not as the runs") {
		t.Error("a report without problems speaks of them")
	}
}

// The shares of Dawn's task classification are empty in summary.csv when
// a run has nothing to compute them from (a Fair run notes no decision):
// the report reads such a cell as missing and still renders. An empty
// cell in another column, or the text NaN in one of these, is refused.
func TestEmptyShareCellsAreMissing(t *testing.T) {
	setCell := func(t *testing.T, dir string, line int, col, to string) {
		t.Helper()
		path := filepath.Join(dir, "summary.csv")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		k := slices.Index(strings.Split(lines[0], ","), col)
		cells := strings.Split(lines[line-1], ",")
		cells[k] = to
		lines[line-1] = strings.Join(cells, ",")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shares := []string{"input_tasks_cross_frac", "dep_inter_tasks_cross_frac", "traffic_tasks_unsaturated_frac", "zero_traffic_tasks_saturated_frac"}
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	for _, col := range shares {
		if !metrics.MayBeEmpty(col) {
			t.Fatalf("%s may not be empty", col)
		}
		setCell(t, dir, 2, col, "")
	}
	if _, err := Generate(dir, Options{}); err != nil {
		t.Fatalf("empty shares: %v", err)
	}
	set, err := LoadResultSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range shares {
		if x, y := set.Runs[0].Values[col], set.Runs[1].Values[col]; !math.IsNaN(x) || y != defaultValue(col) {
			t.Errorf("%s: empty cell read as %v, a number as %v", col, x, y)
		}
	}
	for _, c := range []struct{ col, cell, want string }{
		{"traffic_tasks_unsaturated_frac", "NaN", fmt.Sprintf("column %d (traffic_tasks_unsaturated_frac): NaN is not a finite number",
			slices.Index(metrics.SummaryHeader, "traffic_tasks_unsaturated_frac")+1)},
		{"jct_mean_s", "", `column jct_mean_s: "" is not a number`},
	} {
		dir := t.TempDir()
		writeSet(t, dir, knownRuns())
		setCell(t, dir, 3, c.col, c.cell)
		_, err := LoadResultSet(dir)
		if want := filepath.Join(dir, "summary.csv") + ":3: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s=%q: got %v, want %s", c.col, c.cell, err, want)
		}
	}
}
