package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With two repetitions a t-interval spans more than a fraction's range;
// the report shows the values instead, and an interval from three on.
func TestFewRepetitionsShowValuesNotAnInterval(t *testing.T) {
	two := Summarise([]float64{0.1, 0.9})
	if two.Lo() >= 0 || two.Hi() <= 1 {
		t.Fatalf("the t-interval of 0.1 and 0.9 is [%g, %g]; the test expects it to leave [0, 1]", two.Lo(), two.Hi())
	}
	if two.ShowCI() {
		t.Error("an interval is shown for two repetitions")
	}
	if got, want := FormatStat(two, 1, 4), "0.5000 (values 0.1000, 0.9000; no CI)"; got != want {
		t.Errorf("two repetitions formatted %q, want %q", got, want)
	}
	if got := FormatCI(two, 1, 4); got != "–" {
		t.Errorf("two repetitions' CI formatted %q, want –", got)
	}
	three := Summarise([]float64{0.4, 0.5, 0.6})
	if !three.ShowCI() || FormatStat(three, 1, 2) != "0.50 ± 0.25" || FormatCI(three, 1, 2) != "[0.25, 0.75]" {
		t.Errorf("three repetitions: %s %s", FormatStat(three, 1, 2), FormatCI(three, 1, 2))
	}

	// in a report: fair has two repetitions, fifo three
	dir := t.TempDir()
	var runs []fakeRun
	for _, r := range knownRuns() {
		if r.policy != "capacity" && !(r.policy == "fair" && r.seed == 3) {
			runs = append(runs, r)
		}
	}
	writeSet(t, dir, runs)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	for _, want := range []string{
		`<td>fair</td><td class="num">2</td><td class="num">8.50 (values 8.00, 9.00; no CI)</td><td class="num">–</td>`,
		`<td>fifo</td><td class="num">3</td><td class="num">12.00 ± 4.97</td><td class="num">[7.03, 16.97]</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if !strings.Contains(md, "| fair | 2 | 8.50 (values 8.00, 9.00; no CI) | – |") {
		t.Error("report.md does not show fair's two values")
	}
	for _, f := range r.Figures() {
		if f.ID == "makespan" && !strings.Contains(f.Caption, "dots mark the two values") {
			t.Errorf("the makespan caption does not say how two repetitions are drawn: %s", f.Caption)
		}
	}
}

// A figure with nothing to draw is a line saying so, not empty axes, and
// an earlier report's image of it is removed.
func TestFigureWithoutDataSaysSo(t *testing.T) {
	dir := t.TempDir()
	runs := []fakeRun{{policy: "fifo", seed: 1, jcts: []float64{}}, {policy: "fair", seed: 1, jcts: []float64{}}}
	writeSet(t, dir, runs)
	for _, r := range runs {
		writeFile(t, filepath.Join(dir, r.policy+"-seed1", "links.csv"), "time_s,direction,rack,utilisation\n")
	}
	stale := filepath.Join(dir, "report", "link-utilisation.svg")
	writeFile(t, stale, "<svg/>")
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	noData := map[string]string{}
	for _, f := range r.Figures() {
		if f.NoData != "" {
			noData[f.ID] = f.NoData
			if f.SVG != nil || f.PNG != nil || f.SVGPath != "" || f.PNGPath != "" {
				t.Errorf("%s has no data but an image", f.ID)
			}
		}
	}
	if len(noData) != 2 || !strings.Contains(noData["jct-cdf"], "no job finished") || !strings.Contains(noData["link-utilisation"], "no rack-link samples") {
		t.Fatalf("figures without data: %v; want jct-cdf and link-utilisation", noData)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the earlier report's link-utilisation.svg is still there (%v)", err)
	}
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	if !strings.Contains(html, `<p class="nodata">No data: no rack-link samples in any run`) {
		t.Error("report.html does not say that the link figure has no data")
	}
	if !strings.Contains(md, "No data: no job finished in any run") || strings.Contains(md, "jct-cdf.png") {
		t.Error("report.md does not say that the JCT figure has no data, or links its image")
	}
}

// The JCT CDF rises from zero, and ends at one.
func TestCDFStartsAtZero(t *testing.T) {
	pts := cdfPoints([]float64{2, 3, 3, 5}, 0)
	if pts[0].X != 0 || pts[0].Y != 0 {
		t.Errorf("the CDF starts at (%g, %g), want (0, 0)", pts[0].X, pts[0].Y)
	}
	if last := pts[len(pts)-1]; last.X != 5 || last.Y != 1 {
		t.Errorf("the CDF ends at (%g, %g), want (5, 1)", last.X, last.Y)
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].X < pts[i-1].X || pts[i].Y < pts[i-1].Y {
			t.Errorf("the CDF goes back at point %d: %v", i, pts)
		}
	}
	big := make([]float64, 10000)
	for i := range big {
		big[i] = float64(i + 1)
	}
	if pts := cdfPoints(big, 1); pts[0].Y != 0 || pts[len(pts)-1].Y != 1 || len(pts) >= 3000 {
		t.Errorf("a thinned CDF of %d points runs from %g to %g", len(pts), pts[0].Y, pts[len(pts)-1].Y)
	}
}

// The link figure's caption says what was drawn: the samples' spacing, and
// how many are averaged into a point (none, below 400 samples).
func TestLinkCaptionSaysWhatWasDone(t *testing.T) {
	t10 := make([]float64, 30)
	for i := range t10 {
		t10[i] = 10 * float64(i+1)
	}
	if got, want := samplingNote("fifo", t10, 400), "fifo: 30 samples, 10 s apart on average, each drawn as a point."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	t1 := make([]float64, 1000)
	for i := range t1 {
		t1[i] = 0.25 * float64(i)
	}
	if got, want := samplingNote("fair", t1, 400), "fair: 1000 samples, 0.25 s apart on average; each point is the mean of 3 consecutive samples."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	dir := t.TempDir()
	writeSet(t, dir, knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Figures() {
		if f.ID == "link-utilisation" {
			if strings.Contains(f.Caption, "-second bins") || !strings.Contains(f.Caption, "fifo: 30 samples, 10 s apart on average, each drawn as a point.") {
				t.Errorf("link caption: %s", f.Caption)
			}
			return
		}
	}
	t.Error("no link-utilisation figure")
}

// In a simulation the cross-rack figure's cross is what the simulated
// uplinks carried, and its caption says so rather than "measured".
func TestCrossRackCaptionSaysWhereTheCrossIsFrom(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "sim"), knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Figures() {
		if f.ID == "sim-cross-rack" {
			if !strings.Contains(f.Caption, "the cross marks the bytes the simulated rack uplinks carried") {
				t.Errorf("sim cross-rack caption: %s", f.Caption)
			}
			return
		}
	}
	t.Error("no sim-cross-rack figure")
}
