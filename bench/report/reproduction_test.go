package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproductionPage(t *testing.T) {
	dir := t.TempDir()
	page := &Reproduction{
		Title: "all", Dir: dir, Notes: []string{"a note"},
		Papers: []ReproducedPaper{{
			Name: "p", Title: "p's <table>", Failures: []string{"mode local: it\nbroke"},
			Headlines: Headlines{Columns: []string{"#", "paper", "simulation", "simulation verdict"},
				Rows:    [][]string{{"1", "+10%", "+12%", "reproduced"}, {"2", "-5%", "+1%", "not reproduced: wrong direction"}},
				Summary: "p: 1 of 2 headlines reproduced in simulation"},
			Figure: &Figure{ID: "sim-x", Title: "X", SVG: []byte("<svg/>"), PNGPath: filepath.Join(dir, "p", "report", "sim-x.png"), Width: 10, Height: 10},
			Report: "p/report/report.html",
			Fidelity: Headlines{Columns: []string{"policy", "within 15%"}, Rows: [][]string{{"a", "pass"}, {"b", "fail: JCT 1.20×"}},
				Summary: "fidelity: 1 of 2"},
			PassColumn: 1,
		}, {
			Name: "q", FigureNote: "No figure: no results.", PassColumn: -1,
			Headlines: Headlines{Summary: "q: no results"},
		}},
		FidelitySummary: "Fidelity: p 1 of 2 policies; q no results",
		Summary:         "Reproduced: p 1 of 2 (simulation); q: no results",
	}
	htmlPath, mdPath, err := page.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(htmlPath)
	md, _ := os.ReadFile(mdPath)
	h := string(html)
	for _, s := range []string{
		"p&#39;s &lt;table&gt;", // escaped
		`<td class="pass">reproduced</td>`, `<td class="fail">not reproduced: wrong direction</td>`,
		`<td class="pass">pass</td>`, `<td class="fail">fail: JCT 1.20×</td>`,
		`<td>+12%</td>`, // not a verdict column
		`href="p/report/sim-x.png"`, `href="p/report/report.html"`, "data:image/svg+xml;base64,",
		"No figure: no results.", "mode local: it\nbroke",
	} {
		if !strings.Contains(h, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if f, s := strings.Index(h, page.FidelitySummary), strings.LastIndex(h, page.Summary); f < 0 || s < f {
		t.Errorf("the fidelity line (at %d) is not before the last line (at %d)", f, s)
	}
	m := string(md)
	if !strings.Contains(m, "](p/report/sim-x.png)") || !strings.Contains(m, "> **Failed:** mode local: it\n> broke") ||
		!strings.Contains(m, "| b | fail: JCT 1.20× |") || !strings.HasSuffix(m, "**"+page.Summary+"**\n") {
		t.Errorf("the Markdown:\n%s", m)
	}
}

func TestFormatBytes(t *testing.T) {
	for x, want := range map[float64]string{0: "0 B", 999: "999 B", 1500: "1.50 kB", 137.01e6: "137.01 MB"} {
		if got := FormatBytes(x); got != want {
			t.Errorf("FormatBytes(%g) = %q, want %q", x, got, want)
		}
	}
}
