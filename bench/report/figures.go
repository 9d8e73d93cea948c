package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure of the report, saved as SVG and PNG.
type Figure struct {
	Number  int    // 1-based, over the whole report
	ID      string // file stem in the output directory, and HTML id
	Mode    string
	Title   string
	Caption string
	Alt     string
	// NoData says why the figure has nothing to draw; such a figure has
	// no image, and the report says so in its place.
	NoData string
	// SVGPath and PNGPath are the saved files.
	SVGPath, PNGPath string
	// SVG is the SVG markup; PNG the PNG image.
	SVG, PNG []byte
	// Width and Height are the figure's size in CSS pixels.
	Width, Height int
}

// PNGDPI is the resolution of the PNG figures.
const PNGDPI = 144

// policyColors is the Okabe-Ito palette, safe for colour-blind readers.
var policyColors = []color.Color{
	rgb(0x0072B2), rgb(0xE69F00), rgb(0x009E73), rgb(0xCC79A7),
	rgb(0x56B4E9), rgb(0xD55E00), rgb(0xF0E442), rgb(0x000000),
}

func rgb(x uint32) color.Color {
	return color.RGBA{R: uint8(x >> 16), G: uint8(x >> 8), B: uint8(x), A: 0xff}
}

func policyColor(i int) color.Color { return policyColors[i%len(policyColors)] }

var policyDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}}

func policyDash(i int) []vg.Length { return policyDashes[i%len(policyDashes)] }

// policyWidth draws earlier policies wider, so that lines that coincide
// still show each policy.
func policyWidth(i int, base float64) vg.Length {
	return vg.Points(math.Max(base*0.6, base*(1.6-0.25*float64(i))))
}

// niceTicks labels about five round values (1, 2, 2.5 or 5 × 10^k apart),
// with as few decimals as they need, and puts unlabelled ticks between.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !finite(lo) || !finite(hi) {
		return []plot.Tick{{Value: lo, Label: FormatNumber(lo, 2)}}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minor, extra := 10*mag, 5, 0
	for _, m := range []struct {
		f     float64
		minor int
		extra int
	}{{1, 5, 0}, {2, 4, 0}, {2.5, 5, 1}, {5, 5, 0}} {
		if m.f*mag >= raw*0.85 {
			step, minor, extra = m.f*mag, m.minor, m.extra
			break
		}
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9))+extra)
	var ticks []plot.Tick
	sub := step / float64(minor)
	first := math.Ceil(lo/sub - 1e-9)
	if math.Abs(first) >= 1<<52 {
		// a span this narrow this far from zero (a sweep at 0.3 and
		// 0.30000000000000004): k++ would not move k, and the loop
		// below would never end; label the ends, as exactly as they
		// differ
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', -1, 64)}}
	}
	for k := first; k*sub <= hi+sub*1e-9; k++ {
		v := k * sub
		t := plot.Tick{Value: v}
		if int64(math.Round(k))%int64(minor) == 0 {
			t.Label = FormatNumber(v, dec)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// newPlot makes a plot in a sans-serif face, which reads better at figure
// size than the default serif.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, st := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Variant = "Sans"
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// render draws a grid of plots as SVG and PNG.
func render(grid [][]*plot.Plot, w, h vg.Length) (svg, png []byte, err error) {
	defer func() {
		// gonum/plot panics on some degenerate ranges
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing a figure: %v", r)
		}
	}()
	drawOn := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		if len(grid) == 1 && len(grid[0]) == 1 {
			grid[0][0].Draw(dc)
			return
		}
		tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Points(12), PadY: vg.Points(12),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
		cs := plot.Align(grid, tiles, dc)
		for i := range grid {
			for j := range grid[i] {
				if grid[i][j] != nil {
					grid[i][j].Draw(cs[i][j])
				}
			}
		}
	}
	sc := vgsvg.New(w, h)
	drawOn(sc)
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	drawOn(ic)
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	return sb.Bytes(), pb.Bytes(), nil
}

// figureInput is what a mode's figures are drawn from.
type figureInput struct {
	mode string
	// workload is the named workload of the result set, or "".
	workload string
	// runSet is the name of a named run set of the mode, or "".
	runSet   string
	set      *ResultSet
	baseline string
	jcts     map[string][]float64 // pooled over repetitions
	links    map[string]*LinkSeries
	linkSeed map[string]uint64
}

func (in *figureInput) stat(policy, key string) Stat {
	return Summarise(in.set.Values(policy, key))
}

func (in *figureInput) titled(t string) string {
	set := in.mode
	if in.runSet != "" {
		set += "-" + in.runSet
	}
	switch {
	case in.mode == "":
		return t
	case in.workload != "":
		return set + "/" + in.workload + ": " + t
	}
	return set + ": " + t
}

type figureSpec struct {
	stem, title, caption, alt string
	// noData, when set, says why there is nothing to draw: the report
	// says that instead of showing empty axes.
	noData string
	grid   [][]*plot.Plot
	w, h   vg.Length
}

func (in *figureInput) figures() ([]figureSpec, error) {
	var out []figureSpec
	for _, f := range []func() (figureSpec, error){
		in.jctCDF, in.makespan, in.throughput, in.crossRack, in.locality, in.linkUtil, in.skew,
	} {
		s, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func one(p *plot.Plot) [][]*plot.Plot { return [][]*plot.Plot{{p}} }

func (in *figureInput) jctCDF() (figureSpec, error) {
	p := newPlot(in.titled("Job completion time CDF"), "job completion time (s)", "fraction of jobs ≤ x")
	minPos, hi := math.Inf(1), 0.0
	total := 0
	for _, pol := range in.set.Policies {
		for _, x := range in.jcts[pol] {
			if x > 0 {
				minPos = math.Min(minPos, x)
			}
			hi = math.Max(hi, x)
			total++
		}
	}
	logX := !math.IsInf(minPos, 1) && hi/minPos > 100
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Label.Text = "job completion time (s, log scale)"
	}
	if total == 0 {
		return figureSpec{stem: "jct-cdf", title: "Job completion time CDF",
			noData: "no job finished in any run, so there is no completion time to draw"}, nil
	}
	// the CDF starts at zero: at x = 0 on a linear axis, at the shortest
	// completion time on a logarithmic one
	start := 0.0
	if logX {
		start = minPos
	} else {
		p.X.Min = 0
	}
	var alt []string
	for i, pol := range in.set.Policies {
		xs := append([]float64(nil), in.jcts[pol]...)
		sort.Float64s(xs)
		n := len(xs)
		if n == 0 {
			continue
		}
		pts := cdfPoints(xs, start)
		if logX {
			for k := range pts {
				pts[k].X = math.Max(pts[k].X, minPos)
			}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return figureSpec{}, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = policyColor(i)
		l.Dashes = policyDash(i)
		l.Width = policyWidth(i, 1.8)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d jobs)", pol, n), l)
		alt = append(alt, fmt.Sprintf("%s median %s s, p95 %s s", pol,
			FormatNumber(xs[(n-1)/2], 2), FormatNumber(xs[max(0, int(math.Ceil(0.95*float64(n)))-1)], 2)))
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = false
	p.Legend.YOffs = vg.Points(4)
	scale := "linear"
	if logX {
		scale = "logarithmic"
	}
	return figureSpec{
		stem:  "jct-cdf",
		title: "Job completion time CDF",
		caption: fmt.Sprintf("Cumulative distribution of job completion time (arrival to finish) per policy, pooling the jobs of all repetitions "+
			"(failed jobs excluded), starting at 0 below the shortest time; %s x axis.", scale),
		alt:  "Line chart of the cumulative distribution of job completion time, one line per policy: " + strings.Join(alt, "; ") + ".",
		grid: one(p), w: 6.5 * vg.Inch, h: 4 * vg.Inch,
	}, nil
}

// cdfPoints is the empirical CDF of xs, sorted and not empty, as the
// corners of a post-step line: from 0 at start, up to 1 at the largest
// value; above 3,000 values, thinned to fewer than 3,000 steps.
func cdfPoints(xs []float64, start float64) plotter.XYs {
	n := len(xs)
	step := max(1, n/1500)
	pts := plotter.XYs{{X: start, Y: 0}}
	for k := 0; k < n; k += step {
		pts = append(pts, plotter.XY{X: xs[k], Y: float64(k+1) / float64(n)})
	}
	if last := pts[len(pts)-1]; last.Y != 1 {
		pts = append(pts, plotter.XY{X: xs[n-1], Y: 1})
	}
	return pts
}

// errPts are bar tops with their confidence half-widths.
type errPts struct{ x, y, e []float64 }

func (p errPts) Len() int                        { return len(p.x) }
func (p errPts) XY(i int) (float64, float64)     { return p.x[i], p.y[i] }
func (p errPts) YError(i int) (float64, float64) { return p.e[i], p.e[i] }

// addSpread adds to p the 95% intervals e as error bars, styled by bars,
// and the repetitions' values dots (where there are too few for an
// interval) as glyphs of dot: the spread every figure of means shows.
func addSpread(p *plot.Plot, e errPts, dots plotter.XYs, bars func(*plotter.YErrorBars), dot draw.GlyphStyle) error {
	if len(e.x) > 0 {
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return err
		}
		bars(eb)
		p.Add(eb)
	}
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return err
		}
		sc.GlyphStyle = dot
		p.Add(sc)
	}
	return nil
}

// barWidth is the width of each of n bars in a panel of the given width:
// at most 60 points, and at most 70% of a category's share of the data
// area (the panel less barAxes), so that neighbouring bars never touch.
func barWidth(n int, panel vg.Length) vg.Length {
	per := (panel - barAxes) / vg.Length(max(1, n))
	return max(vg.Points(2), min(vg.Points(60), 0.7*per))
}

// nominalX names a bar chart's categories on its x axis, tilted when,
// side by side, a name would run into its neighbours in a panel of the
// given width (ten policies' names do in one of 5.5 inches).
func nominalX(p *plot.Plot, panel vg.Length, names []string) {
	p.NominalX(names...)
	per := (panel - barAxes) / vg.Length(max(1, len(names)))
	for _, name := range names {
		if p.X.Tick.Label.Width(name) > 0.9*per {
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YTop
			return
		}
	}
}

// barAxes is what a bar chart's y axis, its labels and the margins take
// of a panel's width.
const barAxes = 1.1 * vg.Inch

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// barsCI is a bar per policy of a metric's mean, with its 95% CI where
// there are enough repetitions for one, and otherwise the repetitions'
// values as dots.
func (in *figureInput) barsCI(title, ylabel, key string, scale float64) (*plot.Plot, []string, []string, error) {
	p := newPlot(in.titled(title), "", ylabel)
	var e errPts
	var dots plotter.XYs
	var desc, skipped []string
	top := 0.0
	for i, pol := range in.set.Policies {
		s := in.stat(pol, key)
		if !finite(s.Mean) {
			skipped = append(skipped, pol)
			desc = append(desc, pol+" "+FormatNumber(s.Mean, 2))
			continue
		}
		b, err := plotter.NewBarChart(plotter.Values{s.Mean / scale}, barWidth(len(in.set.Policies), barsPanel))
		if err != nil {
			return nil, nil, nil, err
		}
		b.XMin = float64(i)
		b.Color = policyColor(i)
		b.LineStyle.Width = vg.Points(0.5)
		p.Add(b)
		top = math.Max(top, s.Mean/scale)
		switch {
		case s.ShowCI():
			e.x = append(e.x, float64(i))
			e.y = append(e.y, s.Mean/scale)
			e.e = append(e.e, s.HalfWidth/scale)
			top = math.Max(top, s.Hi()/scale)
		case s.N > 1:
			for _, v := range s.Values {
				if finite(v) {
					dots = append(dots, plotter.XY{X: float64(i), Y: v / scale})
					top = math.Max(top, v/scale)
				}
			}
		}
		desc = append(desc, pol+" "+FormatStat(s, scale, 2))
	}
	err := addSpread(p, e, dots, func(eb *plotter.YErrorBars) {
		eb.LineStyle.Width = vg.Points(1.5)
		eb.CapWidth = vg.Points(10)
	}, draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}})
	if err != nil {
		return nil, nil, nil, err
	}
	nominalX(p, barsPanel, in.set.Policies)
	p.X.Min, p.X.Max = -0.6, float64(len(in.set.Policies))-0.4
	p.Y.Min = 0
	if top <= 0 {
		top = 1
	}
	p.Y.Max = top * 1.08
	if len(skipped) > 0 {
		// say why a bar is missing, where it would be
		var xys plotter.XYs
		var labels []string
		for i, pol := range in.set.Policies {
			if slices.Contains(skipped, pol) {
				xys = append(xys, plotter.XY{X: float64(i), Y: top * 0.02})
				why := "undefined"
				if math.IsInf(in.stat(pol, key).Mean, 0) {
					why = "infinite"
				}
				labels = append(labels, "no bar: "+why)
			}
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, nil, nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Variant = "Sans"
			l.TextStyle[i].Font.Size = vg.Points(10)
			l.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(l)
	}
	return p, desc, skipped, nil
}

func hoursOrSeconds(x float64) (string, float64) {
	if x >= 7200 {
		return "h", 3600
	}
	return "s", 1
}

func (in *figureInput) maxMean(key string) float64 {
	hi := 0.0
	for _, pol := range in.set.Policies {
		if m := in.stat(pol, key).Mean; finite(m) {
			hi = math.Max(hi, math.Abs(m))
		}
	}
	return hi
}

// ciNote says what a bar chart of means shows.
var ciNote = fmt.Sprintf("Bars are means over repetitions; error bars are 95%% confidence intervals (Student t, n-1 degrees of freedom) "+
	"for policies with at least %d repetitions; for policies with 2, dots mark the two values instead, and a policy with one has neither.", MinCIRepetitions)

// noBars is the reason a bar chart has nothing to draw, or "".
func noBars(what string, skipped []string, policies []string) string {
	if len(skipped) < len(policies) {
		return ""
	}
	return "no policy has a finite " + what + " in its runs"
}

func (in *figureInput) makespan() (figureSpec, error) {
	u, sc := hoursOrSeconds(in.maxMean("makespan_s"))
	p, desc, skipped, err := in.barsCI("Makespan", "makespan ("+u+")", "makespan_s", sc)
	if err != nil {
		return figureSpec{}, err
	}
	return figureSpec{stem: "makespan", title: "Makespan", noData: noBars("makespan", skipped, in.set.Policies),
		caption: "Makespan (first arrival to last finish) per policy, in " + map[string]string{"h": "hours", "s": "seconds"}[u] + ". " + ciNote,
		alt:     "Bar chart of mean makespan per policy in " + u + " with 95% confidence intervals: " + strings.Join(desc, "; ") + ".",
		grid:    one(p), w: barsPanel, h: 3.8 * vg.Inch}, nil
}

func (in *figureInput) throughput() (figureSpec, error) {
	p, desc, skipped, err := in.barsCI("Throughput", "throughput (jobs/h)", "throughput_jobs_per_h", 1)
	if err != nil {
		return figureSpec{}, err
	}
	return figureSpec{stem: "throughput", title: "Throughput", noData: noBars("throughput", skipped, in.set.Policies),
		caption: "Throughput (finished jobs per hour of " + in.throughputSpan() + ") per policy. " + ciNote,
		alt:     "Bar chart of mean throughput in jobs per hour per policy with 95% confidence intervals: " + strings.Join(desc, "; ") + ".",
		grid:    one(p), w: barsPanel, h: 3.8 * vg.Inch}, nil
}

// throughputSpan is what summary.csv's throughput is over: the
// makespan, or the window of runs that had one (metrics.Summary).
func (in *figureInput) throughputSpan() string {
	windowed, whole := false, false
	for _, r := range in.set.Runs {
		if r.Values["window_s"] > 0 {
			windowed = true
		} else {
			whole = true
		}
	}
	switch {
	case windowed && whole:
		return "the experiment window in runs with one, of makespan in the others"
	case windowed:
		return "the experiment window"
	}
	return "makespan"
}

func (in *figureInput) skew() (figureSpec, error) {
	p, desc, skipped, err := in.barsCI("Rack-link load skew", "max/min bytes over rack links", "link_skew", 1)
	if err != nil {
		return figureSpec{}, err
	}
	caption := "Link-load skew per policy: the most loaded rack link's bytes over the least loaded one's (1 is perfectly even). " + ciNote
	if len(skipped) > 0 {
		caption += " No bar for " + strings.Join(skipped, ", ") + ": the skew is infinite or undefined (an idle rack link) in a repetition."
	}
	return figureSpec{stem: "link-skew", title: "Rack-link load skew", caption: caption, noData: noBars("link-load skew", skipped, in.set.Policies),
		alt:  "Bar chart of mean rack-link load skew per policy with 95% confidence intervals: " + strings.Join(desc, "; ") + ".",
		grid: one(p), w: barsPanel, h: 3.8 * vg.Inch}, nil
}

type part struct {
	key, label string
	color      color.Color
}

// stacked is a stacked bar per policy of the means of parts, which must be
// in the same unit; it leaves room at the top for the legend.
func (in *figureInput) stacked(p *plot.Plot, parts []part, scale float64, headroom float64, panel vg.Length) (float64, error) {
	n := len(in.set.Policies)
	var below *plotter.BarChart
	tops := make([]float64, n)
	for _, pt := range parts {
		vals := make(plotter.Values, n)
		for i, pol := range in.set.Policies {
			if m := in.stat(pol, pt.key).Mean; finite(m) {
				vals[i] = m / scale
			}
			tops[i] += vals[i]
		}
		b, err := plotter.NewBarChart(vals, barWidth(n, panel))
		if err != nil {
			return 0, err
		}
		b.Color = pt.color
		b.LineStyle.Width = vg.Points(0.5)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(pt.label, b)
	}
	top := 0.0
	for _, t := range tops {
		top = math.Max(top, t)
	}
	nominalX(p, panel, in.set.Policies)
	p.X.Min, p.X.Max = -0.6, float64(n)-0.4
	p.Y.Min = 0
	if top <= 0 {
		top = 1
	}
	p.Y.Max = top * headroom
	p.Legend.Top = true
	return top, nil
}

// crossParts are the categories of cross-rack bytes, as the cross-rack
// figures stack them.
var crossParts = []part{
	{"cross_input_bytes", "input", rgb(0x4E79A7)},
	{"cross_shuffle_bytes", "shuffle", rgb(0xF28E2B)},
	{"cross_dependent_bytes", "dependent input", rgb(0x59A14F)},
	{"cross_duplicate_bytes", "duplicate", rgb(0xE15759)},
	{"cross_output_bytes", "output", rgb(0x76B7B2)},
}

func (in *figureInput) crossRack() (figureSpec, error) {
	var parts []part
	var zero []string
	for _, pt := range crossParts {
		if in.maxMean(pt.key) > 0 {
			parts = append(parts, pt)
		} else {
			zero = append(zero, pt.label)
		}
	}
	unit, sc := byteUnit(math.Max(in.maxMean("cross_rack_bytes"), in.maxMean("measured_cross_rack_bytes")))
	p := newPlot(in.titled("Cross-rack bytes by category"), "", "cross-rack bytes ("+unit+")")
	headroom := 1.15 + 0.09*float64(len(parts)+1)
	if _, err := in.stacked(p, parts, sc, headroom, crossRackWidth); err != nil {
		return figureSpec{}, err
	}
	var meas plotter.XYs
	var desc []string
	for i, pol := range in.set.Policies {
		m := in.stat(pol, "measured_cross_rack_bytes").Mean
		if finite(m) {
			meas = append(meas, plotter.XY{X: float64(i), Y: m / sc})
		}
		var cats []string
		for _, pt := range parts {
			cats = append(cats, pt.label+" "+FormatNumber(in.stat(pol, pt.key).Mean/sc, 3))
		}
		desc = append(desc, fmt.Sprintf("%s: %s; measured %s %s", pol, strings.Join(cats, ", "), FormatNumber(m/sc, 3), unit))
	}
	if len(meas) > 0 {
		s, err := plotter.NewScatter(meas)
		if err != nil {
			return figureSpec{}, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
		p.Add(s)
		p.Legend.Add("measured (rack uplinks)", s)
		p.Y.Max = math.Max(p.Y.Max, in.maxMean("measured_cross_rack_bytes")/sc*headroom)
	}
	caption := "Mean cross-rack bytes per policy by traffic category, stacked (the engine's accounting over successful attempts)"
	switch {
	case len(meas) == 0:
		caption += "; no run recorded its links' bytes, so there is no cross."
	case in.mode == "sim":
		caption += "; the cross marks the bytes the simulated rack uplinks carried."
	case in.mode == "local":
		caption += "; the cross marks the cross-rack bytes the kernel counted on the emulated rack uplinks."
	default:
		caption += "; the cross marks the cross-rack bytes measured on the rack uplinks."
	}
	noData := ""
	if len(parts) == 0 && !(in.maxMean("measured_cross_rack_bytes") > 0) {
		noData = "no cross-rack bytes: every category is zero for every policy"
	}
	if len(zero) > 0 {
		caption += " Categories that are zero for every policy are left out: " + strings.Join(zero, ", ") + "."
	}
	return figureSpec{stem: "cross-rack", title: "Cross-rack bytes by category", caption: caption, noData: noData,
		alt:  "Stacked bar chart of mean cross-rack bytes per policy by category, in " + unit + ": " + strings.Join(desc, "; ") + ".",
		grid: one(p), w: crossRackWidth, h: 4.2 * vg.Inch}, nil
}

// crossRackWidth is the width of the cross-rack figure, barsPanel that
// of the bar charts of one metric (makespan, throughput, skew).
const (
	crossRackWidth = 6 * vg.Inch
	barsPanel      = 5.5 * vg.Inch
)

func (in *figureInput) locality() (figureSpec, error) {
	// each panel wide enough for its policies' names under their bars
	panel := max(4*vg.Inch, barAxes+vg.Length(len(in.set.Policies))*0.8*vg.Inch)
	lp := newPlot("Map locality", "", "fraction of map tasks")
	if _, err := in.stacked(lp, []part{
		{"node_local_frac", "node-local", rgb(0x1B9E77)},
		{"rack_local_frac", "rack-local", rgb(0xD95F02)},
		{"remote_frac", "remote", rgb(0x7570B3)},
	}, 1, 1.4, panel); err != nil {
		return figureSpec{}, err
	}
	tp := newPlot("Storage tier read", "", "fraction of map tasks")
	if _, err := in.stacked(tp, []part{
		{"tier_mem_frac", "memory", rgb(0xE7298A)},
		{"tier_ssd_frac", "SSD", rgb(0x66A61E)},
		{"tier_hdd_frac", "HDD", rgb(0xA6761D)},
	}, 1, 1.4, panel); err != nil {
		return figureSpec{}, err
	}
	for _, p := range []*plot.Plot{lp, tp} {
		p.Y.Max = math.Max(p.Y.Max, 1.4)
		p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
			{Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}}
	}
	lp.Title.Text, tp.Title.Text = in.titled(lp.Title.Text), in.titled(tp.Title.Text)
	noData := "no map task read an input in any run, so there is no locality to draw"
	for _, k := range []string{"node_local_frac", "rack_local_frac", "remote_frac", "tier_mem_frac", "tier_ssd_frac", "tier_hdd_frac"} {
		if in.maxMean(k) > 0 {
			noData = ""
		}
	}
	var desc []string
	for _, pol := range in.set.Policies {
		f := func(k string) string { return FormatNumber(in.stat(pol, k).Mean, 3) }
		desc = append(desc, fmt.Sprintf("%s: node-local %s, rack-local %s, remote %s; memory %s, SSD %s, HDD %s", pol,
			f("node_local_frac"), f("rack_local_frac"), f("remote_frac"), f("tier_mem_frac"), f("tier_ssd_frac"), f("tier_hdd_frac")))
	}
	return figureSpec{stem: "locality", title: "Locality and storage tier", noData: noData,
		caption: "Left: fraction of map tasks that read their input node-locally, rack-locally or from another rack. " +
			"Right: fraction of map tasks by the storage tier their input was read from. Means over repetitions, stacked per policy.",
		alt:  "Two stacked bar charts of mean fractions of map tasks per policy: " + strings.Join(desc, "; ") + ".",
		grid: [][]*plot.Plot{{lp, tp}}, w: 2 * panel, h: 4 * vg.Inch}, nil
}

// samplingNote says how a policy's link samples were drawn: how far apart
// they are, and how many consecutive samples binned averages into each
// point of the line.
func samplingNote(pol string, t []float64, bins int) string {
	per := "one sample"
	if len(t) > 1 {
		per = fmt.Sprintf("%d samples, %s s apart on average", len(t), significant((t[len(t)-1]-t[0])/float64(len(t)-1)))
	}
	k := max(1, (len(t)+bins-1)/bins)
	if k == 1 {
		return fmt.Sprintf("%s: %s, each drawn as a point.", pol, per)
	}
	return fmt.Sprintf("%s: %s; each point is the mean of %d consecutive samples.", pol, per, k)
}

// significant formats x with three significant digits, without trailing
// zeros.
func significant(x float64) string {
	if math.Abs(x) >= 100 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// binned averages a series into at most n bins of consecutive samples.
func binned(t, y []float64, n int) plotter.XYs {
	k := max(1, (len(t)+n-1)/n)
	var out plotter.XYs
	for i := 0; i < len(t); i += k {
		var st, sy, c float64
		for j := i; j < min(i+k, len(t)); j++ {
			if finite(y[j]) {
				st, sy, c = st+t[j], sy+y[j], c+1
			}
		}
		if c > 0 {
			out = append(out, plotter.XY{X: st / c, Y: sy / c})
		}
	}
	return out
}

func (in *figureInput) linkUtil() (figureSpec, error) {
	span := 0.0
	for _, ls := range in.links {
		if len(ls.T) > 0 {
			span = math.Max(span, ls.T[len(ls.T)-1])
		}
	}
	u, sc := hoursOrSeconds(span)
	up := newPlot(in.titled("Rack uplink utilisation"), "time ("+u+")", "mean uplink utilisation")
	down := newPlot(in.titled("Rack downlink utilisation"), "time ("+u+")", "mean downlink utilisation")
	const bins = 400
	hi := 0.0
	var desc, sampling, noSamples []string
	for i, pol := range in.set.Policies {
		ls := in.links[pol]
		if ls == nil || len(ls.T) == 0 {
			desc = append(desc, pol+": no samples")
			noSamples = append(noSamples, pol)
			continue
		}
		sampling = append(sampling, samplingNote(pol, ls.T, bins))
		var su, sd float64
		for _, d := range []struct {
			p  *plot.Plot
			ys []float64
		}{{up, ls.Up}, {down, ls.Down}} {
			p, ys := d.p, d.ys
			pts := binned(ls.T, ys, bins)
			for k := range pts {
				pts[k].X /= sc
				hi = math.Max(hi, pts[k].Y)
			}
			if len(pts) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return figureSpec{}, err
			}
			l.Color = policyColor(i)
			l.Dashes = policyDash(i)
			l.Width = policyWidth(i, 1.2)
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("%s (seed %d)", pol, in.linkSeed[pol]), l)
		}
		for k := range ls.T {
			if finite(ls.Up[k]) {
				su += ls.Up[k]
			}
			if finite(ls.Down[k]) {
				sd += ls.Down[k]
			}
		}
		n := float64(len(ls.T))
		desc = append(desc, fmt.Sprintf("%s time-averaged uplink %s, downlink %s", pol, FormatNumber(su/n, 3), FormatNumber(sd/n, 3)))
	}
	if hi <= 0 {
		hi = 1
	}
	for _, p := range []*plot.Plot{up, down} {
		p.Y.Min, p.Y.Max = 0, hi*1.35
		p.Legend.Top = true
		p.X.Min = 0
		if span <= 0 {
			p.X.Max = 1
		}
	}
	caption := "Utilisation of the rack links over time, averaged over racks (top: uplinks, bottom: downlinks), one line per policy, " +
		"from each policy's first repetition. A sample is a link's mean utilisation since the sample before it. " +
		strings.Join(sampling, " ")
	if len(noSamples) > 0 && len(sampling) > 0 {
		caption += " No samples for " + strings.Join(noSamples, ", ") + ": its run ended before its first sample."
	}
	noData := ""
	if len(sampling) == 0 {
		noData = "no rack-link samples in any run: each ended before its first sample period did (links.csv has no rows)"
	}
	return figureSpec{stem: "link-utilisation", title: "Rack-link utilisation over time", caption: caption, noData: noData,
		alt:  "Two line charts of mean rack-link utilisation over time, uplinks and downlinks, one line per policy: " + strings.Join(desc, "; ") + ".",
		grid: [][]*plot.Plot{{up}, {down}}, w: 7 * vg.Inch, h: 6 * vg.Inch}, nil
}
