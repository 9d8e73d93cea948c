package report

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// setSummaryCell sets one cell of a result set's summary.csv, by line
// (the header is line 1) and column name.
func setSummaryCell(t *testing.T, dir string, line int, col, to string) {
	t.Helper()
	path := filepath.Join(dir, "summary.csv")
	lines := strings.Split(readFile(t, path), "\n")
	k := slices.Index(strings.Split(lines[0], ","), col)
	if k < 0 {
		t.Fatalf("summary.csv has no column %s", col)
	}
	cells := strings.Split(lines[line-1], ",")
	cells[k] = to
	lines[line-1] = strings.Join(cells, ",")
	writeFile(t, path, strings.Join(lines, "\n"))
}

// shadowSkewRuns are knownRuns with Shadow's Skew columns: fifo's rack
// link skew 2, 3, 4 and its mean shuffle skew 1.5 in every repetition.
func shadowSkewRuns() []fakeRun {
	runs := knownRuns()
	for i := range runs {
		runs[i].values["rack_link_skew"] = 2 + float64(runs[i].seed-1)
		runs[i].values["shuffle_skew_mean"] = 1.5
	}
	return runs
}

// The report tables Shadow's Skew columns next to link_skew; an empty
// cell (no cross-rack shuffle, no link counters) is unknown, n/a.
func TestShadowSkewColumnsInTheReport(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, shadowSkewRuns())
	// capacity's one run (line 4) had no link counters and no job that
	// shuffled across racks
	setSummaryCell(t, dir, 4, "rack_link_skew", "")
	setSummaryCell(t, dir, 4, "shuffle_skew_mean", "")
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Modes[0]
	for _, c := range []struct {
		key, policy string
		want        float64
	}{
		{"rack_link_skew", "fifo", 3}, {"shuffle_skew_mean", "fifo", 1.5},
		{"rack_link_skew", "capacity", math.NaN()}, {"shuffle_skew_mean", "capacity", math.NaN()},
	} {
		row := m.Row(c.key, c.policy)
		if row == nil {
			t.Fatalf("no row %s %s", c.key, c.policy)
		}
		if got := row.Stat.Mean; got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s %s: mean %g, want %g", c.key, c.policy, got, c.want)
		}
	}
	md := readFile(t, r.MarkdownPath)
	for _, s := range []string{"Rack-link skew, up and down apart", "Per-job shuffle skew, mean", "n/a (n=1, no CI)"} {
		if !strings.Contains(md, s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
}

// Shadow's Skew leaves idle links out, so it is never infinite: +Inf in
// its column is a broken record, unlike in link_skew.
func TestShadowSkewIsFinite(t *testing.T) {
	dir := t.TempDir()
	runs := shadowSkewRuns()
	runs[2].values["rack_link_skew"] = math.Inf(1)
	writeSet(t, dir, runs)
	_, err := Generate(dir, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "(rack_link_skew): +Inf is not a finite number") {
		t.Fatalf("got %v, want rack_link_skew's +Inf refused", err)
	}
}

// A summary.csv written before Shadow's Skew columns still loads: they
// read as unknown.
func TestShadowSkewColumnsMissingFromOlderFiles(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, shadowSkewRuns())
	dropColumns(t, dir, map[string]float64{"rack_link_skew": 0, "shuffle_skew_mean": 0})
	set, err := LoadResultSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if x, y := set.Runs[0].Values["rack_link_skew"], set.Runs[0].Values["shuffle_skew_mean"]; !math.IsNaN(x) || !math.IsNaN(y) {
		t.Errorf("missing columns read as %g and %g, want NaN", x, y)
	}
	if _, err := Generate(dir, Options{}); err != nil {
		t.Fatal(err)
	}
}
