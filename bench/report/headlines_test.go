package report

import (
	"os"
	"strings"
	"testing"
)

// A headline table given in the options is shown in both report.html and
// report.md, cell by cell, with its summary line.
func TestHeadlinesSection(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	h := Headlines{Title: "paper, mode sim: a table", Notes: []string{"how effects are measured"},
		Columns: []string{"#", "metric", "verdict"},
		Rows:    [][]string{{"1", "node_local_frac", "not reproduced: too small"}, {"2", "jct|mean", "reproduced"}},
		Summary: "paper: 1 of 2 headlines reproduced"}
	r, err := Generate(dir, Options{Headlines: []Headlines{h}})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(r.MarkdownPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Headlines", "### paper, mode sim: a table", "how effects are measured", "| # | metric | verdict |",
		"| 1 | node_local_frac | not reproduced: too small |", `| 2 | jct\|mean | reproduced |`, "**paper: 1 of 2 headlines reproduced**"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	html, err := os.ReadFile(r.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<a href="#headlines">Headlines</a>`, `<section id="headlines">`, "<td>not reproduced: too small</td>",
		"<td>jct|mean</td>", "paper: 1 of 2 headlines reproduced"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	// without headlines, no section
	r, err = Generate(dir, Options{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(r.MarkdownPath); strings.Contains(string(md), "## Headlines") {
		t.Error("a report without headlines has the section")
	}
}
