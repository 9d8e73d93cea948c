package report

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ dof, want float64 }{
		{1, 12.7062047}, {2, 4.3026527}, {4, 2.7764451}, {9, 2.2621572}, {30, 2.0422725}, {1000, 1.9623391},
	} {
		if got := TQuantile(0.975, c.dof); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("TQuantile(0.975, %g) = %.9f, want %.7f", c.dof, got, c.want)
		}
	}
	if got := TQuantile(0.025, 3); math.Abs(got+3.1824463) > 1e-6 {
		t.Errorf("TQuantile(0.025, 3) = %g", got)
	}
}

func TestSummarise(t *testing.T) {
	s := Summarise([]float64{10, 12, 14})
	if s.N != 3 || s.Mean != 12 || s.SD != 2 {
		t.Fatalf("got %+v", s)
	}
	if want := 4.302652729 * 2 / math.Sqrt(3); math.Abs(s.HalfWidth-want) > 1e-6 {
		t.Errorf("half-width %g, want %g", s.HalfWidth, want)
	}
	one := Summarise([]float64{15})
	if one.N != 1 || one.Mean != 15 || one.HasCI() {
		t.Errorf("n=1: %+v", one)
	}
	if got := FormatStat(one, 1, 2); got != "15.00 (n=1, no CI)" {
		t.Errorf("n=1 formatted %q", got)
	}
	inf := Summarise([]float64{1, math.Inf(1)})
	if !math.IsInf(inf.Mean, 1) || inf.HasCI() {
		t.Errorf("inf: %+v", inf)
	}
}

func TestFormatRel(t *testing.T) {
	for rel, want := range map[float64]string{-0.25: "-25.0%", 0.25: "+25.0%", 0: "0.0%", 0.0012: "+0.12%", -0.00011: "-0.01%", math.NaN(): "n/a"} {
		if got := FormatRel(rel); got != want {
			t.Errorf("FormatRel(%g) = %q, want %q", rel, got, want)
		}
	}
}

// TestKnownValues checks the computed statistics, and their text in both
// report.html and report.md, against hand-computed values.
func TestKnownValues(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Campaign || len(r.Modes) != 1 {
		t.Fatalf("campaign %v, %d modes", r.Campaign, len(r.Modes))
	}
	m := r.Modes[0]
	if m.Baseline != "fifo" || strings.Join(m.Set.Policies, ",") != "fifo,fair,capacity" {
		t.Fatalf("baseline %s, policies %v", m.Baseline, m.Set.Policies)
	}
	t975 := map[int]float64{2: 4.302652729, 3: 3.182446305}
	checkRow := func(key, policy string, n int, mean, sd float64) *Row {
		t.Helper()
		row := m.Row(key, policy)
		if row == nil {
			t.Fatalf("no row %s %s", key, policy)
		}
		if row.Stat.N != n || math.Abs(row.Stat.Mean-mean) > 1e-9 {
			t.Errorf("%s %s: n %d mean %g, want n %d mean %g", key, policy, row.Stat.N, row.Stat.Mean, n, mean)
		}
		if n > 1 {
			want := t975[n-1] * sd / math.Sqrt(float64(n))
			if math.Abs(row.Stat.HalfWidth-want) > 1e-6 {
				t.Errorf("%s %s: half-width %g, want %g", key, policy, row.Stat.HalfWidth, want)
			}
		} else if row.Stat.HasCI() {
			t.Errorf("%s %s: n=1 has a CI", key, policy)
		}
		return row
	}
	checkRow("jct_mean_s", "fifo", 3, 12, 2)
	checkRow("jct_mean_s", "fair", 3, 9, 1)
	checkRow("jct_mean_s", "capacity", 1, 15, 0)
	checkRow("makespan_s", "fifo", 3, 110, 10)
	checkRow("cross_rack_bytes", "fair", 3, 4e9, 0)
	if row := m.Row("jct_mean_s", "fair"); !row.RelOK || math.Abs(row.Rel+0.25) > 1e-12 {
		t.Errorf("fair rel %g", row.Rel)
	}

	html := readFile(t, r.HTMLPath)
	md := readFile(t, r.MarkdownPath)
	// policy, n, mean ± half-width, interval, relative change
	for _, c := range []struct {
		label                       string
		policy, n, mean, ci, rel    string
		htmlRowHasLabel, mdHasLabel bool
	}{
		{"JCT mean (s)", "fifo", "3", "12.00 ± 4.97", "[7.03, 16.97]", "baseline", true, true},
		{"", "fair", "3", "9.00 ± 2.48", "[6.52, 11.48]", "-25.0%", false, false},
		{"", "capacity", "1", "15.00 (n=1, no CI)", "–", "+25.0%", false, false},
		{"Makespan (s)", "fifo", "3", "110.00 ± 24.84", "[85.16, 134.84]", "baseline", true, true},
		{"", "fair", "3", "95.00 ± 12.42", "[82.58, 107.42]", "-13.6%", false, false},
		{"Cross-rack bytes, total (GB)", "fifo", "3", "2.000 ± 2.484", "[-0.484, 4.484]", "baseline", true, true},
		{"", "fair", "3", "4.000 ± 0.000", "[4.000, 4.000]", "+100.0%", false, false},
		{"", "capacity", "1", "5.000 (n=1, no CI)", "–", "+150.0%", false, false},
		{"Link skew (max/min bytes)", "fifo", "3", "1.400 ± 0.497", "[0.903, 1.897]", "baseline", true, true},
		{"", "capacity", "1", "inf (n=1, no CI)", "–", "n/a", false, false},
		{"Node-local fraction", "fair", "3", "0.6000 ± 0.0000", "[0.6000, 0.6000]", "0.0%", false, false},
	} {
		h := `<td>` + c.policy + `</td><td class="num">` + c.n + `</td><td class="num">` + c.mean + `</td><td class="num">` + c.ci + `</td><td class="num">` + c.rel + `</td></tr>`
		if c.htmlRowHasLabel {
			h = `<td rowspan="3">` + c.label + `</td>` + h
		}
		if !strings.Contains(html, h) {
			t.Errorf("report.html lacks %q", h)
		}
		pol := c.policy
		if c.rel == "baseline" {
			pol = "**" + pol + "**"
		}
		mrow := "| " + pol + " | " + c.n + " | " + c.mean + " | " + c.ci + " | " + c.rel + " |"
		if c.mdHasLabel {
			mrow = "| " + c.label + " " + mrow
		} else {
			mrow = "|  " + mrow
		}
		if !strings.Contains(md, mrow) {
			t.Errorf("report.md lacks %q", mrow)
		}
	}

	// figures: files, captions, alt text, embedded in the page, linked from
	// the summary
	figs := r.Figures()
	if len(figs) != 7 {
		t.Fatalf("%d figures, want 7", len(figs))
	}
	for _, f := range figs {
		for _, p := range []string{f.SVGPath, f.PNGPath} {
			if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
				t.Errorf("figure file %s: %v", p, err)
			}
		}
		if f.Caption == "" || f.Alt == "" || f.Title == "" {
			t.Errorf("figure %s lacks a caption, alt text or title", f.ID)
		}
		if !strings.Contains(md, "("+filepath.Base(f.PNGPath)+")") {
			t.Errorf("report.md does not link %s", f.PNGPath)
		}
		if !strings.Contains(html, `<figure id="`+f.ID+`">`) {
			t.Errorf("report.html lacks figure %s", f.ID)
		}
	}
	if n := strings.Count(html, `<img src="data:image/svg+xml;base64,`); n != len(figs) {
		t.Errorf("%d embedded images, want %d", n, len(figs))
	}
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"?(https?:)?//|url\(\s*['"]?(https?:)?//|<script`).MatchString(html) {
		t.Error("report.html refers to an external URL or has a script")
	}
	if !strings.Contains(figs[0].Alt, "fair median 2.00 s, p95 300.00 s") {
		t.Errorf("CDF alt text %q", figs[0].Alt)
	}
}

func TestBaselineOption(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	out := filepath.Join(t.TempDir(), "out")
	r, err := Generate(dir, Options{Baseline: "fair", OutDir: out, Title: "My <title>"})
	if err != nil {
		t.Fatal(err)
	}
	if r.HTMLPath != filepath.Join(out, "report.html") {
		t.Errorf("HTML at %s", r.HTMLPath)
	}
	row := r.Modes[0].Row("jct_mean_s", "fifo")
	if row.RelText != "+33.3%" {
		t.Errorf("fifo vs fair: %s", row.RelText)
	}
	html := readFile(t, r.HTMLPath)
	if !strings.Contains(html, "<title>My &lt;title&gt;</title>") || !strings.Contains(html, "&Delta; vs fair") {
		t.Error("title or baseline missing from report.html")
	}
	if _, err := Generate(dir, Options{Baseline: "drf", OutDir: out}); err == nil || !strings.Contains(err.Error(), `"drf"`) {
		t.Errorf("unknown baseline: %v", err)
	}
}

func writeCampaign(t *testing.T, dir string) {
	t.Helper()
	writeSet(t, filepath.Join(dir, "sim"), knownRuns())
	writeSet(t, filepath.Join(dir, "local"), knownRuns()[:4])
	writeFile(t, filepath.Join(dir, "meta.json"), `{"name": "fb09-campaign", "started": "2025-01-02T03:04:05Z", "racks": 4, "tags": ["a", "b"]}`)
	writeFile(t, filepath.Join(dir, "campaign.yaml"), "name: fb09\nmodes: [sim, local]\nnote: <b>not bold</b>\n")
}

func TestCampaign(t *testing.T) {
	dir := t.TempDir()
	writeCampaign(t, dir)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Campaign || len(r.Modes) != 2 || r.Modes[0].Name != "sim" || r.Modes[1].Name != "local" {
		t.Fatalf("campaign %v, modes %d", r.Campaign, len(r.Modes))
	}
	want := []KV{{"name", "fb09-campaign"}, {"started", "2025-01-02T03:04:05Z"}, {"racks", "4"}, {"tags", `["a","b"]`}}
	if len(r.Meta) != len(want) {
		t.Fatalf("meta %v", r.Meta)
	}
	for i := range want {
		if r.Meta[i] != want[i] {
			t.Errorf("meta[%d] = %v, want %v", i, r.Meta[i], want[i])
		}
	}
	if len(r.Figures()) != 14 {
		t.Errorf("%d figures", len(r.Figures()))
	}
	for _, name := range []string{"sim-jct-cdf.png", "local-link-skew.svg", "report.html", "report.md"} {
		if _, err := os.Stat(filepath.Join(dir, "report", name)); err != nil {
			t.Error(err)
		}
	}
	html := readFile(t, r.HTMLPath)
	for _, s := range []string{"<td><code>racks</code></td><td>4</td>", "note: &lt;b&gt;not bold&lt;/b&gt;", "<h2>Mode: sim</h2>", "<h2>Mode: local</h2>",
		`<td>fair</td><td class="num">1</td><td class="num">8.00 (n=1, no CI)</td>`} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	md := readFile(t, r.MarkdownPath)
	for _, s := range []string{"| `started` | 2025-01-02T03:04:05Z |", "## Mode: local", "(local-jct-cdf.png)"} {
		if !strings.Contains(md, s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMalformed checks that bad inputs give errors naming the file and
// line.
func TestMalformed(t *testing.T) {
	edit := func(path, old, new string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, path)
			s := readFile(t, p)
			if !strings.Contains(s, old) {
				t.Fatalf("%s lacks %q", p, old)
			}
			writeFile(t, p, strings.Replace(s, old, new, 1))
		}
	}
	cases := []struct {
		name    string
		breakIt func(t *testing.T, dir string)
		file    string
		line    int
		msg     string
	}{
		{"missing jobs", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sim", "fair-seed2", "jobs.csv")) }, "sim/fair-seed2/jobs.csv", 0, "missing file"},
		{"missing links", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "local", "fifo-seed1", "links.csv")) }, "local/fifo-seed1/links.csv", 0, "missing file"},
		{"bad summary header", edit("sim/summary.csv", "jct_mean_s,", "jct_avg_s,"), "sim/summary.csv", 1, `no column "jct_mean_s"`},
		{"duplicate column", edit("sim/summary.csv", "jct_p50_s,", "jct_mean_s,"), "sim/summary.csv", 1, `column "jct_mean_s" appears twice`},
		{"non-numeric summary cell", edit("sim/summary.csv", "fair,1,4.000000,0.000000,90.000000", "fair,1,4.000000,0.000000,abc"), "sim/summary.csv", 3, `column makespan_s: "abc" is not a number`},
		{"bad seed", edit("sim/summary.csv", "capacity,1,", "capacity,x1,"), "sim/summary.csv", 4, `column seed: "x1"`},
		{"short row", edit("sim/summary.csv", "fifo,2,4.000000,", "fifo,2,"), "sim/summary.csv", 5, "wrong number of fields"},
		{"duplicate run", edit("sim/summary.csv", "fifo,2,", "fifo,1,"), "sim/summary.csv", 5, "already has a run on line 2"},
		{"empty summary", func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "local", "summary.csv"), "") }, "local/summary.csv", 1, "empty file"},
		{"bad jobs header", edit("sim/fifo-seed3/jobs.csv", ",jct_s,", ",jct,"), "sim/fifo-seed3/jobs.csv", 1, `no column "jct_s"`},
		{"non-numeric jct", edit("sim/fifo-seed3/jobs.csv", ",2.000000,2,2,", ",2.0.0,2,2,"), "sim/fifo-seed3/jobs.csv", 3, `column jct_s: "2.0.0" is not a number`},
		{"bad direction", edit("sim/fair-seed1/links.csv", "10.000000,down,1", "10.000000,sideways,1"), "sim/fair-seed1/links.csv", 5, `"sideways" is neither up nor down`},
		// before, LoadLinks weighed the rack twice in its mean and
		// LoadRackLinks kept the second value
		{"repeated link sample", edit("sim/fair-seed1/links.csv", "10.000000,down,1", "10.000000,up,1"), "sim/fair-seed1/links.csv", 5, "rack 1's up link has a sample at 10 s already, on line 4"},
		{"non-numeric utilisation", edit("sim/fifo-seed1/links.csv", "20.000000,up,0,", "20.000000,up,0,x"), "sim/fifo-seed1/links.csv", 6, `column utilisation: "x`},
		{"bad meta", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "meta.json"), "{\n \"a\": 1,\n \"b\": }\n")
		}, "meta.json", 3, "invalid character"},
		{"meta not an object", func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "meta.json"), "[1, 2]") }, "meta.json", 1, "not a JSON object"},
		// before, the first object was shown and the rest dropped unsaid
		{"meta with a second object", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "meta.json"), "{\"a\": 1}\n{\"b\": 2}\n")
		}, "meta.json", 2, "data after the JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCampaign(t, dir)
			c.breakIt(t, dir)
			_, err := Generate(dir, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an InputError: %v", err)
			}
			if ie.File != filepath.Join(dir, c.file) || ie.Line != c.line || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v (file %s line %d), want %s:%d ... %s", err, ie.File, ie.Line, c.file, c.line, c.msg)
			}
			if c.line > 0 && !strings.Contains(err.Error(), filepath.Join(dir, c.file)+":"+strconv.Itoa(c.line)+": ") {
				t.Errorf("message %q does not start with file:line", err)
			}
		})
	}
	if _, err := Generate(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "neither a result set") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Generate(filepath.Join(t.TempDir(), "nope"), Options{}); err == nil {
		t.Error("missing directory: no error")
	}
}

// A campaign's result set without summary.csv has no finished run yet:
// the report leaves it out and says so in its header; with none left,
// there is no report, and the error says why.
func TestResultSetWithoutFinishedRuns(t *testing.T) {
	dir := t.TempDir()
	writeCampaign(t, dir)
	if err := os.Remove(filepath.Join(dir, "sim", "summary.csv")); err != nil {
		t.Fatal(err)
	}
	r, err := Generate(dir, Options{PlannedRuns: 24})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Modes) != 1 || r.Modes[0].Name != "local" {
		t.Fatalf("modes %v, want local only", r.Modes)
	}
	want := "no run finished yet in sim"
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	if !strings.Contains(html[:strings.Index(html, "</header>")], "<strong>"+want+"</strong>") || !strings.Contains(md[:strings.Index(md, "## ")], "**"+want+"**") {
		t.Errorf("the header does not say %q", want)
	}
	// the campaign's plan names sets not begun, whose directory is not
	// there yet
	r, err = Generate(dir, Options{PlannedRuns: 24, ResultSets: []string{"sim", "local", "local-big/ml"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "no run finished yet in sim, local-big/ml"; r.Unfinished() != want {
		t.Errorf("header %q, want %q", r.Unfinished(), want)
	}
	if err := os.Remove(filepath.Join(dir, "local", "summary.csv")); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(dir, Options{PlannedRuns: 24}); err == nil || err.Error() != dir+": no run of the campaign has finished yet (0 of 24 runs done): there is nothing to report" {
		t.Errorf("no finished run at all: %v", err)
	}
}

// A report removes what a report killed while writing left in its
// directory, and nothing another writer may be at or owns.
func TestReportRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	writeCampaign(t, dir)
	out := filepath.Join(dir, "report")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	plant := map[string]bool{".report.md.tmp-1": true, ".sim-makespan.png.tmp-2": true, ".notes.txt.tmp-3": false, ".fresh.svg.tmp-4": false}
	for name := range plant {
		p := filepath.Join(out, name)
		writeFile(t, p, "half")
		if name != ".fresh.svg.tmp-4" {
			if err := os.Chtimes(p, hourAgo, hourAgo); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := Generate(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, gone := range plant {
		_, err := os.Stat(filepath.Join(out, name))
		if gone != (err != nil) {
			t.Errorf("%s: removed %v, want %v", name, err != nil, gone)
		}
	}
}

// TestDegenerate checks that a result set with one run, no finished job,
// no link sample and zero metrics still gives a report.
func TestDegenerate(t *testing.T) {
	dir := t.TempDir()
	zero := map[string]float64{}
	for _, col := range []string{"makespan_s", "throughput_jobs_per_h", "jct_mean_s", "cross_rack_bytes", "cross_input_bytes",
		"cross_shuffle_bytes", "cross_dependent_bytes", "cross_duplicate_bytes", "cross_output_bytes", "measured_cross_rack_bytes",
		"node_local_frac", "rack_local_frac", "remote_frac", "tier_mem_frac", "tier_ssd_frac", "tier_hdd_frac"} {
		zero[col] = 0
	}
	zero["link_skew"] = 1 // metrics.Skew of idle links; NaN is refused
	writeSet(t, dir, []fakeRun{{policy: "solo", seed: 7, values: zero, jcts: []float64{}}, {policy: "instant", seed: 1, values: zero, jcts: []float64{0, 0}}})
	writeFile(t, filepath.Join(dir, "solo-seed7", "links.csv"), "time_s,direction,rack,utilisation\n")
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures()) != 7 {
		t.Errorf("%d figures", len(r.Figures()))
	}
	if row := r.Modes[0].Row("makespan_s", "instant"); row.RelText != "0.0%" {
		t.Errorf("instant makespan row %+v", row)
	}
	if row := r.Modes[0].Row("makespan_s", "solo"); row.MeanText != "0.00 (n=1, no CI)" || row.RelText != "baseline" {
		t.Errorf("makespan row %+v", row)
	}
}
