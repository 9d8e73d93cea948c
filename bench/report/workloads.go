package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// compare draws a mode's named workloads side by side: the paper's
// Fig. 11 (grouped bars of throughput, mean workload completion time and
// cross-rack bytes per workload) and Fig. 12 (cross-rack bytes per
// workload by category).
func compare(mode string, sets []*figureInput) (*Comparison, error) {
	c := &Comparison{Mode: mode}
	for _, in := range sets {
		c.Workloads = append(c.Workloads, in.workload)
	}
	for _, draw := range []func([]*figureInput) (figureSpec, error){workloadBars, workloadCrossCategories} {
		s, err := draw(sets)
		if err != nil {
			return nil, err
		}
		f, err := makeFigure(mode+"-", mode, s)
		if err != nil {
			return nil, fmt.Errorf("mode %s: figure %s: %w", mode, s.stem, err)
		}
		f.Mode = mode
		c.Figures = append(c.Figures, f)
	}
	return c, nil
}

// policiesOf lists the policies of result sets in the order they first
// appear: each keeps one colour over the panels.
func policiesOf(sets []*figureInput) []string {
	var out []string
	for _, in := range sets {
		for _, p := range in.set.Policies {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// column is preferred when every result set has it, else fallback: the
// per-workload columns of a newer racklab, or what every summary has.
func column(sets []*figureInput, preferred, fallback string) string {
	for _, in := range sets {
		if !in.set.Has(preferred) {
			return fallback
		}
	}
	return preferred
}

// groupedBarsCI is barsCI over result sets: a group of bars per set (x:
// its workload), in it a bar per policy of a metric's mean, with its 95%
// CI where there are enough repetitions for one, and otherwise the
// repetitions' values as dots. panel is the panel's width, which sizes
// the bars. It says whether it drew any bar.
func groupedBarsCI(sets []*figureInput, policies []string, title, ylabel, key string, scale float64, panel vg.Length) (*plot.Plot, []string, bool, error) {
	p := newPlot(title, "", ylabel)
	n := len(policies)
	slot := 0.8 / float64(max(1, n))
	// about three quarters of a panel is its data area
	width := panel * 0.75 / vg.Length(max(1, len(sets))) * vg.Length(slot) * 0.9
	var e errPts
	var dots plotter.XYs
	var desc []string
	top := 0.0
	inLegend := map[string]bool{}
	for g, in := range sets {
		for i, pol := range policies {
			if !slices.Contains(in.set.Policies, pol) {
				continue
			}
			s := in.stat(pol, key)
			x := float64(g) + (float64(i)-float64(n-1)/2)*slot
			if !finite(s.Mean) {
				desc = append(desc, fmt.Sprintf("%s %s: no bar (%s)", in.workload, pol, FormatNumber(s.Mean, 2)))
				continue
			}
			b, err := plotter.NewBarChart(plotter.Values{s.Mean / scale}, width)
			if err != nil {
				return nil, nil, false, err
			}
			b.XMin = x
			b.Color = policyColor(i)
			b.LineStyle.Width = vg.Points(0.5)
			p.Add(b)
			if !inLegend[pol] {
				p.Legend.Add(pol, b)
				inLegend[pol] = true
			}
			top = math.Max(top, s.Mean/scale)
			switch {
			case s.ShowCI():
				e.x = append(e.x, x)
				e.y = append(e.y, s.Mean/scale)
				e.e = append(e.e, s.HalfWidth/scale)
				top = math.Max(top, s.Hi()/scale)
			case s.N > 1:
				for _, v := range s.Values {
					if finite(v) {
						dots = append(dots, plotter.XY{X: x, Y: v / scale})
						top = math.Max(top, v/scale)
					}
				}
			}
			desc = append(desc, fmt.Sprintf("%s %s %s", in.workload, pol, FormatStat(s, scale, 2)))
		}
	}
	err := addSpread(p, e, dots, func(eb *plotter.YErrorBars) {
		eb.LineStyle.Width = vg.Points(1.5)
		eb.CapWidth = vg.Points(math.Min(10, float64(width)*0.8))
	}, draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}})
	if err != nil {
		return nil, nil, false, err
	}
	var names []string
	for _, in := range sets {
		names = append(names, in.workload)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(sets))-0.5
	p.Y.Min = 0
	drew := len(inLegend) > 0
	if top <= 0 {
		top = 1
	}
	// room at the top for the legend
	p.Y.Max = top * (1.12 + 0.1*float64(len(inLegend)))
	p.Legend.Top = true
	return p, desc, drew, nil
}

// workloadBars is the paper's Fig. 11: per metric a panel, x the
// workloads, a bar per policy.
func workloadBars(sets []*figureInput) (figureSpec, error) {
	policies := policiesOf(sets)
	maxMean := func(key string) float64 {
		hi := 0.0
		for _, in := range sets {
			hi = math.Max(hi, in.maxMean(key))
		}
		return hi
	}
	const panel = 4 * vg.Inch
	tput := column(sets, "workloads_finished", "throughput_jobs_per_h")
	tputLabel, tputText := "throughput (jobs/h)", "throughput (finished jobs per hour of makespan; the summaries have no workloads_finished column)"
	if tput == "workloads_finished" {
		tputLabel, tputText = "finished workloads", "throughput (workloads finished in the run's window)"
	}
	wctUnit, wctScale := hoursOrSeconds(maxMean("wct_mean_s"))
	cross := column(sets, "cross_rack_bytes_per_workload", "cross_rack_bytes")
	crossUnit, crossScale := byteUnit(maxMean(cross))
	crossLabel, crossText := "cross-rack bytes ("+crossUnit+")", "cross-rack bytes per run (the summaries have no cross_rack_bytes_per_workload column)"
	if cross == "cross_rack_bytes_per_workload" {
		crossLabel, crossText = "cross-rack per workload ("+crossUnit+")", "cross-rack bytes per finished workload"
	}
	var grid []*plot.Plot
	var alt []string
	drewAny := false
	for _, m := range []struct {
		title, label, key, what string
		scale                   float64
	}{
		{"Throughput", tputLabel, tput, tputText, 1},
		{"Workload completion time", "mean WCT (" + wctUnit + ")", "wct_mean_s", "mean workload completion time in " + wctUnit, wctScale},
		{"Cross-rack traffic", crossLabel, cross, crossText + " in " + crossUnit, crossScale},
	} {
		p, desc, drew, err := groupedBarsCI(sets, policies, m.title, m.label, m.key, m.scale, panel)
		if err != nil {
			return figureSpec{}, err
		}
		drewAny = drewAny || drew
		grid = append(grid, p)
		alt = append(alt, m.what+": "+strings.Join(desc, "; "))
	}
	noData := ""
	if !drewAny {
		noData = "no policy has a finite throughput, completion time or cross-rack figure in any workload"
	}
	return figureSpec{stem: "fig11-workloads", title: "Throughput, workload completion time and cross-rack traffic per workload (Fig. 11)",
		caption: "The paper's Fig. 11: per workload (groups) and policy (bars), left the " + tputText + ", middle the mean workload " +
			"completion time (a workload is a DAG of jobs), right the " + crossText + ". " + ciNote,
		alt:    "Three grouped bar charts, one group per workload and a bar per policy. " + strings.Join(alt, ". ") + ".",
		noData: noData,
		grid:   [][]*plot.Plot{grid}, w: 3 * panel, h: 4.2 * vg.Inch}, nil
}

// workloadCategories are the paper's Fig. 12 categories of cross-rack
// bytes: the summary column of each, its per-workload column, and its
// label.
var workloadCategories = []struct{ key, perWorkload, label string }{
	{"cross_input_bytes", "cross_input_per_workload", "input (first-level reads)"},
	{"cross_dependent_bytes", "cross_dependent_per_workload", "dependent input"},
	{"cross_shuffle_bytes", "cross_shuffle_per_workload", "intermediate shuffle"},
}

// workloadCrossCategories is the paper's Fig. 12: per workload a panel
// of the cross-rack figure's stacked bars, in its colours, of the three
// categories, per finished workload when the summaries say.
func workloadCrossCategories(sets []*figureInput) (figureSpec, error) {
	perWorkload := true
	for _, cat := range workloadCategories {
		perWorkload = perWorkload && column(sets, cat.perWorkload, "") != ""
	}
	var parts []part
	for _, cat := range workloadCategories {
		i := slices.IndexFunc(crossParts, func(p part) bool { return p.key == cat.key })
		pt := crossParts[i]
		pt.label = cat.label
		if perWorkload {
			pt.key = cat.perWorkload
		}
		parts = append(parts, pt)
	}
	perPanel := func(in *figureInput) float64 {
		top := 0.0
		for _, pol := range in.set.Policies {
			sum := 0.0
			for _, pt := range parts {
				if m := in.stat(pol, pt.key).Mean; finite(m) {
					sum += m
				}
			}
			top = math.Max(top, sum)
		}
		return top
	}
	what, ylabel := "cross-rack bytes per finished workload", "cross-rack per workload"
	if !perWorkload {
		what, ylabel = "cross-rack bytes per run", "cross-rack bytes"
	}
	// each panel its own scale: the workloads' volumes differ by orders
	// of magnitude, and the figure compares the policies within each
	const headroom = 1.5
	var row []*plot.Plot
	var alt []string
	top := 0.0
	panel := vg.Length(math.Max(6/float64(len(sets)), 3.6)) * vg.Inch
	for _, in := range sets {
		panelTop := perPanel(in)
		top = math.Max(top, panelTop)
		unit, sc := byteUnit(panelTop)
		p := newPlot(in.workload, "", ylabel+" ("+unit+")")
		if _, err := in.stacked(p, parts, sc, headroom, panel); err != nil {
			return figureSpec{}, err
		}
		row = append(row, p)
		var desc []string
		for _, pol := range in.set.Policies {
			var cats []string
			for _, pt := range parts {
				cats = append(cats, pt.label+" "+FormatNumber(in.stat(pol, pt.key).Mean/sc, 3))
			}
			desc = append(desc, fmt.Sprintf("%s: %s", pol, strings.Join(cats, ", ")))
		}
		alt = append(alt, fmt.Sprintf("%s, in %s: %s", in.workload, unit, strings.Join(desc, "; ")))
	}
	noData := ""
	if !(top > 0) {
		noData = "no cross-rack input, dependent or shuffle bytes in any workload"
	}
	caption := "The paper's Fig. 12: per workload, the mean " + what + " per policy by category, stacked: input is what the first jobs of a " +
		"workload read, dependent input what a job reads of its parents' output, intermediate shuffle what reduce tasks fetch from maps. " +
		"Each panel has its own scale."
	if !perWorkload {
		caption += " The summaries have no per-workload columns (cross_*_per_workload), so these are the bytes of a whole run."
	}
	return figureSpec{stem: "fig12-cross-rack-categories", title: "Cross-rack bytes by category per workload (Fig. 12)",
		caption: caption, noData: noData,
		alt:  "Stacked bar charts, one per workload, of mean cross-rack bytes per policy by category. " + strings.Join(alt, ". ") + ".",
		grid: [][]*plot.Plot{row}, w: panel * vg.Length(len(sets)), h: 4.2 * vg.Inch}, nil
}
