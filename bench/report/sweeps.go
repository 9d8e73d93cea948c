package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Sweep declares a figure of the gain of policies over a baseline against
// a parameter that the points vary: the named workloads of a campaign (an
// error level, a load), or its run sets (a cluster's oversubscription,
// size, slots): a campaign's sweeps section.
type Sweep struct {
	// Name is the figure's file name, <mode>-sweep-<name>.svg.
	Name string
	// Title heads the figure (default: built from the metric, the policies
	// and XLabel); XLabel names the parameter, the x axis.
	Title, XLabel string
	// Metric is a summary.csv column; the gain is policy / baseline − 1 of
	// it, per seed.
	Metric   string
	Policies []string
	Baseline string
	// Points are the workloads or run sets and their parameter values, in
	// file order.
	Points []SweepPoint
	// OverRunSets says the points are run sets: the sweep is drawn once
	// per mode, across its run sets, instead of once per run set over
	// its workloads.
	OverRunSets bool
}

// SweepPoint is a point of a sweep and its x value: a workload, in a
// sweep over run sets the workload of run set RunSet ("": the mode's
// unnamed one). Workload is "" in a campaign of one workload.
type SweepPoint struct {
	Workload string
	X        float64
	RunSet   string
}

// Name is the point as a campaign writes it: the workload, and
// @<run set> for a named run set's.
func (pt SweepPoint) Name() string {
	if pt.RunSet == "" {
		return pt.Workload
	}
	return pt.Workload + "@" + pt.RunSet
}

// sweepGain is the gain of a policy over the baseline in one result set:
// per seed both ran, the policy's metric over the baseline's, minus 1.
// Seeds pair the runs because a seed fixes what the policies share (block
// placement, heartbeat order), so the pair's ratio is the policy's effect
// alone.
func sweepGain(in *figureInput, policy, baseline, metric string) Stat {
	base := map[uint64]float64{}
	for _, r := range in.set.RunsOf(baseline) {
		base[r.Seed] = r.Values[metric]
	}
	var gains []float64
	for _, r := range in.set.RunsOf(policy) {
		b, ok := base[r.Seed]
		v := r.Values[metric]
		if ok && finite(b) && b != 0 && finite(v) {
			gains = append(gains, v/b-1)
		}
	}
	return Summarise(gains)
}

// sweepFigure draws a sweep over the result sets of its points (of a
// run set's named workloads, or of a mode's run sets): per policy a line
// through the mean gains (in %) at the points' x values, with 95% CIs
// over the seeds, or the per-seed gains as dots when there are too few
// seeds for one. ok is false when sets hold none of the sweep's points.
func sweepFigure(sw Sweep, sets []*figureInput) (s figureSpec, ok bool, err error) {
	at := pointSets(sw, sets)
	points := slices.Clone(sw.Points)
	slices.SortStableFunc(points, func(a, b SweepPoint) int { return cmp.Compare(a.X, b.X) })
	// the axis spans the points this mode ran
	var first, last float64
	for _, pt := range points {
		if at[pt] == nil {
			continue
		}
		if !ok {
			first = pt.X
		}
		ok, last = true, pt.X
	}
	if !ok {
		return figureSpec{}, false, nil
	}
	ylabel := fmt.Sprintf("%s vs %s (%%)", sw.Metric, sw.Baseline)
	title := sw.Title
	if title == "" {
		title = fmt.Sprintf("%s of %s vs %s against %s", sw.Metric, strings.Join(sw.Policies, ", "), sw.Baseline, sw.XLabel)
	}
	p := newPlot(title, sw.XLabel, ylabel)
	var alt, missing []string
	drew := false
	lo, hi := 0.0, 0.0 // the zero line is always in view
	for i, pol := range sw.Policies {
		var line plotter.XYs
		var e errPts
		var dots plotter.XYs
		var desc []string
		for _, pt := range points {
			in := at[pt]
			if in == nil {
				missing = append(missing, pt.Name())
				continue
			}
			g := sweepGain(in, pol, sw.Baseline, sw.Metric)
			if !finite(g.Mean) {
				desc = append(desc, fmt.Sprintf("at %s (%s): no paired runs", xText(pt.X), pt.Name()))
				continue
			}
			line = append(line, plotter.XY{X: pt.X, Y: 100 * g.Mean})
			lo, hi = math.Min(lo, 100*g.Mean), math.Max(hi, 100*g.Mean)
			switch {
			case g.ShowCI():
				e.x, e.y, e.e = append(e.x, pt.X), append(e.y, 100*g.Mean), append(e.e, 100*g.HalfWidth)
				lo, hi = math.Min(lo, 100*g.Lo()), math.Max(hi, 100*g.Hi())
			case g.N > 1:
				for _, v := range g.Values {
					dots = append(dots, plotter.XY{X: pt.X, Y: 100 * v})
					lo, hi = math.Min(lo, 100*v), math.Max(hi, 100*v)
				}
			}
			desc = append(desc, fmt.Sprintf("at %s (%s) %s%%", xText(pt.X), pt.Name(), FormatStat(g, 0.01, 3)))
		}
		alt = append(alt, pol+": "+strings.Join(desc, ", "))
		if len(line) == 0 {
			continue
		}
		drew = true
		l, s, err := plotter.NewLinePoints(line)
		if err != nil {
			return figureSpec{}, true, err
		}
		l.Color, l.Dashes, l.Width = policyColor(i), policyDash(i), policyWidth(i, 1.8)
		s.GlyphStyle = draw.GlyphStyle{Color: policyColor(i), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(l, s)
		p.Legend.Add(pol, l, s)
		err = addSpread(p, e, dots, func(eb *plotter.YErrorBars) {
			eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = policyColor(i), vg.Points(1.2), vg.Points(8)
		}, draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.RingGlyph{}})
		if err != nil {
			return figureSpec{}, true, err
		}
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: first, Y: 0}, {X: last, Y: 0}})
	if err != nil {
		return figureSpec{}, true, err
	}
	zero.Color, zero.Dashes, zero.Width = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}, vg.Points(0.8)
	p.Add(zero)
	pad := math.Max(1, 0.1*(hi-lo))
	p.Y.Min, p.Y.Max = lo-pad, hi+pad*(1+float64(len(sw.Policies)))
	if span := last - first; span > 0 {
		p.X.Min, p.X.Max = first-0.05*span, last+0.05*span
	}
	p.Legend.Top = true
	var xs []string
	for _, pt := range points {
		xs = append(xs, fmt.Sprintf("%s = %s", pt.Name(), xText(pt.X)))
	}
	caption := fmt.Sprintf("Per policy, the change of %s against %s (policy / baseline − 1, in %%; below zero is lower) at each %s of the sweep (%s). "+
		"Runs are paired by seed; points are the means of the per-seed changes, error bars their 95%% confidence intervals (Student t, n-1 degrees of freedom) "+
		"from %d seeds on; with 2, rings mark the two values.", sw.Metric, sw.Baseline, sw.pointKind(), strings.Join(xs, ", "), MinCIRepetitions)
	if len(missing) > 0 {
		slices.Sort(missing)
		caption += " Not run in this mode: " + strings.Join(slices.Compact(missing), ", ") + "."
	}
	noData := ""
	if !drew {
		noData = fmt.Sprintf("no %s of the sweep has paired runs of %s and %s with a finite %s", sw.pointKind(), strings.Join(sw.Policies, ", "), sw.Baseline, sw.Metric)
	}
	return figureSpec{stem: "sweep-" + sw.Name, title: title, caption: caption, noData: noData,
		alt:  fmt.Sprintf("Line chart of the change of %s against %s, in %%, over %s: %s.", sw.Metric, sw.Baseline, sw.XLabel, strings.Join(alt, "; ")),
		grid: one(p), w: 6 * vg.Inch, h: 4.2 * vg.Inch}, true, nil
}

// pointKind is what the sweep's points are, for captions: workloads or
// run sets.
func (sw Sweep) pointKind() string {
	if sw.OverRunSets {
		return "run set"
	}
	return "workload"
}

// pointSets finds the result set of each point of a sweep among sets:
// by workload in a sweep over workloads (sets are one run set's), by run
// set and workload in a sweep over run sets (sets are one mode's).
func pointSets(sw Sweep, sets []*figureInput) map[SweepPoint]*figureInput {
	at := map[SweepPoint]*figureInput{}
	for _, pt := range sw.Points {
		for _, in := range sets {
			if in.workload == pt.Workload && (!sw.OverRunSets || in.runSet == pt.RunSet) {
				at[pt] = in
				break
			}
		}
	}
	return at
}

// sweepFigures draws the sweeps over workloads that a run set's named
// workloads take part in, for its comparison section.
func sweepFigures(mode, setDir string, sets []*figureInput, sweeps []Sweep) ([]*Figure, error) {
	var out []*Figure
	for _, sw := range sweeps {
		if sw.OverRunSets {
			continue // drawn once for the mode: runSetSweeps
		}
		if ranPoints(sw, sets) < 2 {
			// one point is not a sweep: a run set that shares a single
			// workload with it (another cluster, another variant) gets
			// no figure, rather than one that overwrites the set's that ran it
			continue
		}
		f, err := drawSweep(setDir, mode, sw, sets)
		if err != nil {
			return nil, fmt.Errorf("run set %s: %w", setDir, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// runSetSweeps draws the sweeps over run sets that a mode ran (two
// points or more), from sets, all its result sets: a comparison section
// of their own, nil when there are none.
func runSetSweeps(mode string, sets []*figureInput, modes []*Mode, sweeps []Sweep) (*Comparison, error) {
	c := &Comparison{Mode: mode, OverRunSets: true}
	for _, sw := range sweeps {
		if !sw.OverRunSets || ranPoints(sw, sets) < 2 {
			continue
		}
		f, err := drawSweep(mode, mode, sw, sets)
		if err != nil {
			return nil, fmt.Errorf("mode %s: %w", mode, err)
		}
		c.Figures = append(c.Figures, f)
		at := pointSets(sw, sets)
		points := slices.Clone(sw.Points)
		slices.SortStableFunc(points, func(a, b SweepPoint) int { return cmp.Compare(a.X, b.X) })
		for _, pt := range points {
			for i, in := range sets {
				if at[pt] == in && !slices.Contains(c.Sets, modes[i]) {
					c.Sets = append(c.Sets, modes[i])
				}
			}
		}
	}
	if len(c.Figures) == 0 {
		return nil, nil
	}
	return c, nil
}

// drawSweep makes a sweep's figure, <prefix>-sweep-<name>.
func drawSweep(prefix, mode string, sw Sweep, sets []*figureInput) (*Figure, error) {
	s, _, err := sweepFigure(sw, sets)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", sw.Name, err)
	}
	f, err := makeFigure(prefix+"-", mode, s)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", s.stem, err)
	}
	f.Mode = mode
	return f, nil
}

// ranPoints counts the sweep's points whose result set is among sets
// and has runs of every policy of the sweep and its baseline.
func ranPoints(sw Sweep, sets []*figureInput) int {
	n := 0
	for _, in := range pointSets(sw, sets) {
		if hasPolicies(in.set, append([]string{sw.Baseline}, sw.Policies...)) {
			n++
		}
	}
	return n
}

// hasPolicies says whether a result set has runs of every policy.
func hasPolicies(set *ResultSet, policies []string) bool {
	for _, p := range policies {
		if !slices.Contains(set.Policies, p) {
			return false
		}
	}
	return true
}

// xText writes a sweep's x value as the campaign would: 0.1, not 0.100.
func xText(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
