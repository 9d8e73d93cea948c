package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FidelityFile is what `bench fidelity` writes into a campaign's result
// directory: per job of each live run, its JCT and cross-rack bytes
// live, simulated and replayed (bench/fidelity).
const FidelityFile = "fidelity.csv"

// fidelityTolerance is issue 17's: a replayed JCT within 15% of the
// live one; bytes within 1%.
const (
	fidelityJCTTolerance   = 0.15
	fidelityBytesTolerance = 0.01
)

// jctWithin says whether a simulated or replayed JCT is within
// fidelityJCTTolerance of the live one; equal ones are, 0 and 0 too
// (bench/fidelity's ratio of them is 1, where x/live − 1 is NaN).
func jctWithin(x, live float64) bool {
	return x == live || math.Abs(x/live-1) <= fidelityJCTTolerance
}

// fidelityComparison is the report's section on fidelity.csv, if the
// result directory has one: a scatter of each job's live JCT against its
// simulated and its replayed one, with the line y = x.
func fidelityComparison(dir string) (*Comparison, error) {
	path := filepath.Join(dir, FidelityFile)
	if !isFile(path) {
		return nil, nil
	}
	f, err := openCSV(path, []string{"job", "jct_live_s", "jct_sim_s", "jct_replay_s", "cross_live_bytes", "cross_replay_bytes"})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sim, rep plotter.XYs
	jobs, repWithin, simJobs, simWithin, bytesJobs, bytesEqual := 0, 0, 0, 0, 0, 0
	hi := 0.0
	num := func(rec []string, line int, col string) (float64, error) {
		s := f.str(rec, col)
		if s == "" {
			return math.NaN(), nil // a job that did not succeed there
		}
		return f.num(rec, line, col)
	}
	for {
		rec, line, err := f.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var v [5]float64
		for i, col := range []string{"jct_live_s", "jct_sim_s", "jct_replay_s", "cross_live_bytes", "cross_replay_bytes"} {
			if v[i], err = num(rec, line, col); err != nil {
				return nil, err
			}
		}
		live, s, r := v[0], v[1], v[2]
		if finite(live) && finite(s) {
			sim = append(sim, plotter.XY{X: live, Y: s})
			simJobs++
			if jctWithin(s, live) {
				simWithin++
			}
			hi = math.Max(hi, math.Max(live, s))
		}
		if finite(live) && finite(r) {
			rep = append(rep, plotter.XY{X: live, Y: r})
			jobs++
			if jctWithin(r, live) {
				repWithin++
			}
			hi = math.Max(hi, math.Max(live, r))
		}
		bytesJobs++
		if v[3] == v[4] || (v[3] > 0 && math.Abs(v[4]/v[3]-1) <= fidelityBytesTolerance) {
			bytesEqual++
		}
	}
	share := func(k, n int) string {
		if n == 0 {
			return "no jobs"
		}
		return fmt.Sprintf("%d of %d jobs (%.0f%%)", k, n, 100*float64(k)/float64(n))
	}
	c := &Comparison{Mode: "fidelity", Fidelity: true,
		Note: fmt.Sprintf("From %s: replayed JCT within %.0f%% of live for %s; simulated JCT within %.0f%% for %s; replayed cross-rack bytes within %.0f%% of live for %s.",
			FidelityFile, 100*fidelityJCTTolerance, share(repWithin, jobs), 100*fidelityJCTTolerance, share(simWithin, simJobs),
			100*fidelityBytesTolerance, share(bytesEqual, bytesJobs))}
	spec := figureSpec{stem: "fidelity-jct", title: "Per-job JCT: simulated and replayed against live",
		caption: "Each job of each live run: its JCT live (x) against its JCT simulated with the policy choosing for itself (circles) and with the live run's decisions replayed (triangles); on the line y = x the simulator matches the emulated cluster, within the grey band to 15%.",
		alt:     "scatter of simulated and replayed against live job completion times, with the line y = x",
		w:       vg.Points(440), h: vg.Points(400)}
	if len(sim)+len(rep) == 0 {
		spec.noData = "no job succeeded both live and simulated or replayed"
		fig, err := makeFigure("", "", spec)
		if err != nil {
			return nil, err
		}
		c.Figures = []*Figure{fig}
		return c, nil
	}
	hi *= 1.05
	p := newPlot("Per-job JCT", "live JCT (s)", "simulated or replayed JCT (s)")
	p.X.Min, p.Y.Min, p.X.Max, p.Y.Max = 0, 0, hi, hi
	band := plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi * (1 + fidelityJCTTolerance)}, {X: hi, Y: hi * (1 - fidelityJCTTolerance)}}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return nil, err
	}
	poly.Color = rgb(0xEEEEEE)
	poly.LineStyle.Width = 0
	p.Add(poly)
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	diag.LineStyle.Color = rgb(0x555555)
	p.Add(diag)
	p.Legend.Add("y = x", diag)
	for i, s := range []struct {
		name  string
		pts   plotter.XYs
		glyph draw.GlyphDrawer
	}{{"simulated", sim, draw.CircleGlyph{}}, {"replayed", rep, draw.TriangleGlyph{}}} {
		if len(s.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: policyColor(i), Radius: vg.Points(3), Shape: s.glyph}
		p.Add(sc)
		p.Legend.Add(s.name+" ("+strconv.Itoa(len(s.pts))+" jobs)", sc)
	}
	p.Legend.Top, p.Legend.Left = true, true
	spec.grid = one(p)
	fig, err := makeFigure("", "", spec)
	if err != nil {
		return nil, err
	}
	c.Figures = []*Figure{fig}
	return c, nil
}
