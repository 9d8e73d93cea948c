package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/racklab/racklab/coordinator/engine"
)

// sideBySideMode is the mode whose run sets the report sets side by side:
// an emulated cluster's run sets differ by how its network is built
// (switched or flat), and the point of running both is to see whether
// flat mode, what a lab runs, behaves as switched mode does.
const sideBySideMode = "local"

// maxRackPanels bounds the racks the per-rack figure draws.
const maxRackPanels = 8

// runSetsSideBySide compares a mode's run sets that ran the same workload:
// per rack, cross-rack throughput over time, and per job, its completion
// time, in the same policy's run of the same seed in every run set. It is
// nil when no workload ran in two run sets with a policy and seed in
// common.
func runSetsSideBySide(mode string, sets []*figureInput, modes []*Mode) (*Comparison, error) {
	c := &Comparison{Mode: mode, SideBySide: true}
	var workloads []string
	for _, in := range sets {
		if !slices.Contains(workloads, in.workload) {
			workloads = append(workloads, in.workload)
		}
	}
	for _, wl := range workloads {
		var group []*figureInput
		var gm []*Mode
		for i, in := range sets {
			if in.workload == wl {
				group, gm = append(group, in), append(gm, modes[i])
			}
		}
		if len(group) < 2 {
			continue
		}
		pol, seed, ok := commonRun(group)
		if !ok {
			continue
		}
		var runs []sideRun
		for i, in := range group {
			r := sideRun{label: gm[i].Label()}
			for _, x := range in.set.RunsOf(pol) {
				if x.Seed == seed {
					r.dir = x.Dir
				}
			}
			var err error
			if r.links, err = LoadRackLinks(r.dir); err != nil {
				return nil, err
			}
			if r.jobs, r.jct, err = LoadJobJCTs(r.dir); err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
		prefix, label := mode+"-", mode
		if wl != "" {
			prefix, label = mode+"-"+wl+"-", mode+"/"+wl
		}
		for _, draw := range []func([]sideRun, string, uint64) (figureSpec, error){rackLinksSideBySide, jobJCTSideBySide} {
			s, err := draw(runs, pol, seed)
			if err != nil {
				return nil, err
			}
			f, err := makeFigure(prefix, label, s)
			if err != nil {
				return nil, fmt.Errorf("mode %s: figure %s: %w", mode, s.stem, err)
			}
			f.Mode = mode
			c.Figures = append(c.Figures, f)
		}
		for _, m := range gm {
			if !slices.Contains(c.Sets, m) {
				c.Sets = append(c.Sets, m)
			}
		}
	}
	if len(c.Figures) == 0 {
		return nil, nil
	}
	return c, nil
}

// sideRun is one run set's run in a side-by-side comparison.
type sideRun struct {
	label string
	dir   string
	links []RackLinks
	jobs  []string
	jct   map[string]float64
}

// commonRun picks the run every result set has: the first set's baseline
// policy if all ran it, else the first policy all ran; its smallest seed
// all ran.
func commonRun(sets []*figureInput) (policy string, seed uint64, ok bool) {
	cands := append([]string{sets[0].baseline}, sets[0].set.Policies...)
	for _, pol := range cands {
		var seeds []uint64
		for _, r := range sets[0].set.RunsOf(pol) {
			seeds = append(seeds, r.Seed)
		}
		slices.Sort(seeds)
		for _, s := range seeds {
			all := true
			for _, in := range sets[1:] {
				has := false
				for _, r := range in.set.RunsOf(pol) {
					has = has || r.Seed == s
				}
				all = all && has
			}
			if all {
				return pol, s, true
			}
		}
	}
	return "", 0, false
}

// rackLinksSideBySide draws, per rack (rows), its uplink and downlink
// (columns) utilisation over time, a line per run set.
func rackLinksSideBySide(runs []sideRun, pol string, seed uint64) (figureSpec, error) {
	racks, span := 0, 0.0
	for _, r := range runs {
		racks = max(racks, len(r.links))
		for _, l := range r.links {
			if len(l.T) > 0 {
				span = math.Max(span, l.T[len(l.T)-1])
			}
		}
	}
	stem, title := "runsets-rack-links", "Per-rack cross-rack throughput by run set"
	if racks == 0 {
		return figureSpec{stem: stem, title: title, noData: "no rack-link samples in these runs (links.csv has no rows)"}, nil
	}
	shown := min(racks, maxRackPanels)
	u, sc := hoursOrSeconds(span)
	var grid [][]*plot.Plot
	var desc []string
	for k := range shown {
		up := newPlot(fmt.Sprintf("rack %d uplink", k), "time ("+u+")", "utilisation")
		down := newPlot(fmt.Sprintf("rack %d downlink", k), "time ("+u+")", "utilisation")
		for i, r := range runs {
			if k >= len(r.links) {
				continue
			}
			l := r.links[k]
			var busyUp, busyDown int
			for _, d := range []struct {
				p    *plot.Plot
				ys   []float64
				busy *int
			}{{up, l.Up, &busyUp}, {down, l.Down, &busyDown}} {
				pts := make(plotter.XYs, 0, len(l.T))
				for j, t := range l.T {
					if finite(d.ys[j]) {
						pts = append(pts, plotter.XY{X: t / sc, Y: d.ys[j]})
						if d.ys[j] >= 0.9 {
							*d.busy++
						}
					}
				}
				if len(pts) == 0 {
					continue
				}
				line, err := plotter.NewLine(pts)
				if err != nil {
					return figureSpec{}, err
				}
				line.Color, line.Dashes, line.Width = policyColor(i), policyDash(i), policyWidth(i, 1.2)
				d.p.Add(line)
				if k == 0 {
					d.p.Legend.Add(r.label, line)
				}
			}
			desc = append(desc, fmt.Sprintf("%s rack %d: uplink mean %s (%d samples at ≥ 90%%), downlink mean %s (%d at ≥ 90%%)",
				r.label, k, FormatNumber(meanFinite(l.Up), 3), busyUp, FormatNumber(meanFinite(l.Down), 3), busyDown))
		}
		for _, p := range []*plot.Plot{up, down} {
			p.Y.Min, p.Y.Max = 0, 1.3
			p.X.Min = 0
			p.Legend.Top = true
			if span <= 0 {
				p.X.Max = 1
			}
		}
		grid = append(grid, []*plot.Plot{up, down})
	}
	var labels []string
	for _, r := range runs {
		labels = append(labels, r.label)
	}
	caption := fmt.Sprintf("Each rack's cross-rack traffic over time as a share of its link's rate (left: uplink, right: downlink; "+
		"one row per rack), a line per run set (%s), in policy %s's run of seed %d in each. "+
		"A sample is a link's kernel-counted payload since the sample before it (links.csv). ", strings.Join(labels, ", "), pol, seed)
	if shown < racks {
		caption += fmt.Sprintf("The first %d of %d racks are drawn. ", shown, racks)
	}
	return figureSpec{stem: stem, title: title, caption: caption,
		alt:  "Line charts of each rack's uplink and downlink utilisation over time, a line per run set: " + strings.Join(desc, "; ") + ".",
		grid: grid, w: 8 * vg.Inch, h: vg.Length(shown) * 2.2 * vg.Inch}, nil
}

// jobJCTSideBySide draws every job's completion time, a bar per run set.
func jobJCTSideBySide(runs []sideRun, pol string, seed uint64) (figureSpec, error) {
	stem, title := "runsets-job-jct", "Job completion time by run set"
	var jobs []string
	for _, r := range runs {
		for _, j := range r.jobs {
			if !slices.Contains(jobs, j) {
				jobs = append(jobs, j)
			}
		}
	}
	if len(jobs) == 0 {
		return figureSpec{stem: stem, title: title, noData: "no job finished in these runs"}, nil
	}
	p := newPlot(title, "job", "completion time (s)")
	n := len(runs)
	w := vg.Points(math.Max(2, math.Min(36, 360/float64(len(jobs)*n))))
	var means []string
	for i, r := range runs {
		vals := make(plotter.Values, len(jobs))
		sum, cnt := 0.0, 0
		for k, j := range jobs {
			if x, ok := r.jct[j]; ok {
				vals[k] = x
				sum += x
				cnt++
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return figureSpec{}, err
		}
		b.Color, b.LineStyle.Width = policyColor(i), 0
		b.Offset = w * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(b)
		p.Legend.Add(r.label, b)
		// a run set none of whose jobs finished has no mean, and none to
		// compare with ("mean NaN s", "+Inf% against" it)
		text := r.label + ": no job finished"
		if cnt > 0 {
			m := sum / float64(cnt)
			text = fmt.Sprintf("%s: mean %s s over %d jobs", r.label, significant(m), cnt)
			if rel, ok := RelChange(m, meanOf(runs[0].jct)); i > 0 && len(runs[0].jct) > 0 && ok {
				text += fmt.Sprintf(" (%+.1f%% against %s)", 100*rel, runs[0].label)
			}
		}
		means = append(means, text)
	}
	// room for the legend above the tallest bar, and for the outer bars
	p.Legend.Top = true
	p.X.Min, p.X.Max = -0.5, float64(len(jobs))-0.5
	top := 0.0
	for _, r := range runs {
		for _, x := range r.jct {
			top = math.Max(top, x)
		}
	}
	p.Y.Max = math.Max(top, 1) * 1.3
	if len(jobs) <= 20 {
		p.NominalX(jobs...)
	} else {
		p.X.Tick.Marker = niceTicks{}
		p.X.Label.Text = "job (index)"
	}
	p.Y.Min = 0
	caption := fmt.Sprintf("Each job's completion time in policy %s's run of seed %d, a bar per run set; a job that did not finish has no bar. %s.",
		pol, seed, strings.Join(means, "; "))
	return figureSpec{stem: stem, title: title, caption: caption,
		alt:  "A bar chart of each job's completion time, a bar per run set. " + strings.Join(means, "; ") + ".",
		grid: one(p), w: vg.Length(math.Max(6, math.Min(14, float64(len(jobs)*n)*0.25))) * vg.Inch, h: 4 * vg.Inch}, nil
}

func meanFinite(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if finite(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

func meanOf(m map[string]float64) float64 {
	s := 0.0
	for _, x := range m {
		s += x
	}
	return s / float64(max(1, len(m)))
}

// RackLinks is one rack's link utilisation over time, from links.csv.
type RackLinks struct {
	T, Up, Down []float64
}

// LoadRackLinks reads a run's links.csv per rack (index: the rack
// column), each rack's samples in time order; a direction missing at a
// time is NaN.
func LoadRackLinks(runDir string) ([]RackLinks, error) {
	path := filepath.Join(runDir, "links.csv")
	c, err := openCSV(path, []string{"time_s", "direction", "rack", "utilisation"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	type key struct {
		rack int
		t    float64
	}
	up, down := map[key]float64{}, map[key]float64{}
	times := map[int][]float64{}
	seen := map[linkSample]int{} // a repeated sample would overwrite the first
	racks := 0
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := c.num(rec, line, "time_s")
		if err != nil {
			return nil, err
		}
		rk, err := strconv.Atoi(c.str(rec, "rack"))
		if err != nil || rk < 0 || rk >= maxRacks {
			return nil, inputErr(path, line, "column rack: %q is not a rack index", c.str(rec, "rack"))
		}
		u, err := c.num(rec, line, "utilisation")
		if err != nil {
			return nil, err
		}
		if err := noRepeat(seen, path, line, t, c.str(rec, "direction"), strconv.Itoa(rk)); err != nil {
			return nil, err
		}
		k := key{rk, t}
		_, seenUp := up[k]
		_, seenDown := down[k]
		if !seenUp && !seenDown {
			times[rk] = append(times[rk], t)
		}
		switch d := c.str(rec, "direction"); d {
		case "up":
			up[k] = u
		case "down":
			down[k] = u
		default:
			return nil, inputErr(path, line, "column direction: %q is neither up nor down", d)
		}
		racks = max(racks, rk+1)
	}
	out := make([]RackLinks, racks)
	for rk := range out {
		ts := times[rk]
		sort.Float64s(ts)
		for _, t := range ts {
			k := key{rk, t}
			u, ok := up[k]
			if !ok {
				u = math.NaN()
			}
			d, ok := down[k]
			if !ok {
				d = math.NaN()
			}
			out[rk].T, out[rk].Up, out[rk].Down = append(out[rk].T, t), append(out[rk].Up, u), append(out[rk].Down, d)
		}
	}
	return out, nil
}

// maxRacks bounds the rack index LoadRackLinks accepts, so that a
// corrupt file does not make it allocate without end.
const maxRacks = 1 << 16

// LoadJobJCTs reads a run's finished jobs' completion times by job id,
// and the ids in file order.
func LoadJobJCTs(runDir string) ([]string, map[string]float64, error) {
	c, err := openCSV(filepath.Join(runDir, "jobs.csv"), []string{"job", "state", "jct_s"})
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	var ids []string
	out := map[string]float64{}
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			return ids, out, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if state, err := jobState(c, rec, line); err != nil {
			return nil, nil, err
		} else if state != engine.JobSucceeded {
			continue
		}
		x, err := c.num(rec, line, "jct_s")
		if err != nil {
			return nil, nil, err
		}
		id := c.str(rec, "job")
		if _, dup := out[id]; !dup {
			ids = append(ids, id)
		}
		out[id] = x
	}
}
