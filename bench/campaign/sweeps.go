package campaign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// The sweeps section: figures of the gain of policies over a baseline
// against a parameter that the points vary, e.g.
//
//	sweeps:
//	  - name: size-error                    # the figure: <mode>-sweep-size-error.svg
//	    title: Makespan against input-size error (Fig. 13a)   # optional
//	    x: largest input-size error         # the x axis
//	    metric: makespan_s                  # a summary.csv column
//	    policies: [corral]
//	    baseline: capacity
//	    points: {w1-e0: 0, w1-e10: 0.1, w1-e50: 0.5}   # point: x, at least two
//
// A point is a named workload (w1-e0), drawn once per run set that runs
// the sweep's workloads; or a run set, when the swept parameter is the
// cluster rather than the workload: fb2010@oversub-3 is workload fb2010
// in the run set named oversub-3, @oversub-3 that run set's only
// workload. A sweep with a point of the second form is drawn once per
// mode across its run sets, and in it a plain workload (fb2010) is that
// workload in the mode's unnamed run set, as in a headline row
// (pushbox@oversub-3 against pushbox). Every point's run set runs every
// policy and the baseline on its workload.

// parseSweeps reads the sweeps section; workloads are the campaign's
// named workloads (nil: it has one workload) and runs its run sets.
func parseSweeps(d *yamlfile.Decoder, m *yamlfile.Map, workloads []string, runs []RunSet) []report.Sweep {
	var out []report.Sweep
	for i, n := range m.Seq("sweeps") {
		sw := parseSweep(d, n, i, workloads, runs)
		if d.Err() != nil {
			return nil
		}
		if slices.ContainsFunc(out, func(o report.Sweep) bool { return o.Name == sw.Name }) {
			d.Fail(n.Line, fmt.Sprintf("sweeps[%d]", i), "sweep name %q is used twice: it names the figure's file", sw.Name)
			return nil
		}
		out = append(out, sw)
	}
	return out
}

func parseSweep(d *yamlfile.Decoder, n *yaml.Node, i int, workloads []string, runs []RunSet) report.Sweep {
	m := d.Map(n, fmt.Sprintf("sweeps[%d]", i))
	m.Known("name", "title", "x", "metric", "policies", "baseline", "points")
	m.Require("name", "x", "metric", "policies", "baseline", "points")
	sw := report.Sweep{Name: m.Str("name"), Title: m.Str("title"), XLabel: m.Str("x"), Metric: m.Str("metric"),
		Policies: m.Strs("policies"), Baseline: m.Str("baseline")}
	if d.Err() != nil {
		return sw
	}
	if !dirName(sw.Name) {
		m.Fail("name", "the sweep name %q names a file: no slashes or blanks", sw.Name)
		return sw
	}
	if !slices.Contains(metrics.SummaryHeader, sw.Metric) || sw.Metric == "policy" || sw.Metric == "seed" {
		m.Fail("metric", "unknown metric %q: give a column of summary.csv", sw.Metric)
		return sw
	}
	if len(sw.Policies) == 0 {
		m.Fail("policies", "policies lists no policy to compare with the baseline")
		return sw
	}
	if slices.Contains(sw.Policies, sw.Baseline) {
		m.Fail("policies", "the baseline %s is among the policies", sw.Baseline)
		return sw
	}
	for i, p := range sw.Policies {
		if slices.Contains(sw.Policies[:i], p) {
			// a line each: the second would be drawn over the first
			m.Fail("policies", "policy %s is listed twice", p)
			return sw
		}
	}
	pm := d.Map(m.Node("points"), m.Where+" points")
	keys := pm.Keys()
	sw.OverRunSets = slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, "@") })
	if !sw.OverRunSets && len(workloads) == 0 {
		m.Fail("points", "a sweep's points are named workloads (workloads:), and this campaign has one workload (workload:): "+
			"name run sets as points instead (@<run set>: x)")
		return sw
	}
	for _, key := range keys {
		pt, err := sweepPoint(key, sw.OverRunSets, workloads, runs)
		if err != nil {
			d.Fail(pm.LineOf(key), pm.Where, "%v", err)
			return sw
		}
		pt.X = pm.Float(key)
		if d.Err() != nil {
			return sw
		}
		if j := slices.IndexFunc(sw.Points, func(o report.SweepPoint) bool { return o.RunSet == pt.RunSet && o.Workload == pt.Workload }); j >= 0 {
			d.Fail(pm.LineOf(key), pm.Where, "%s is the point %s again", key, sw.Points[j].Name())
			return sw
		}
		for _, label := range append(slices.Clone(sw.Policies), sw.Baseline) {
			if !runsOn(runs, pt, sw.OverRunSets, label) {
				d.Fail(pm.LineOf(key), pm.Where, "no run set runs %s on %s: add it to runs", label, pointText(pt))
				return sw
			}
		}
		sw.Points = append(sw.Points, pt)
	}
	if len(sw.Points) < 2 {
		form := "workload: x"
		if sw.OverRunSets {
			form = "<workload>@<run set>: x"
		}
		m.Fail("points", "a sweep needs at least two points (%s), got %d", form, len(sw.Points))
	}
	return sw
}

// sweepPoint reads a point's key: a workload, <workload>@<run set> or
// @<run set>; overRunSets says the sweep's points are run sets, where a
// plain workload is the unnamed run set's.
func sweepPoint(key string, overRunSets bool, workloads []string, runs []RunSet) (report.SweepPoint, error) {
	wl, set, named := strings.Cut(key, "@")
	pt := report.SweepPoint{Workload: wl, RunSet: set}
	if named {
		if set == "" {
			return pt, fmt.Errorf("%q names no run set after '@': write <workload>@<run set>, @<run set> or the workload alone", key)
		}
		var sets []RunSet
		for _, rs := range runs {
			if rs.Name == set {
				sets = append(sets, rs)
			}
		}
		if len(sets) == 0 {
			return pt, fmt.Errorf("unknown run set %q: the campaign's named run sets are %s", set, runSetNames(runs))
		}
		if wl == "" && len(workloads) > 0 {
			// the run set's only workload
			var its []string
			for _, rs := range sets {
				for _, w := range rs.Workloads {
					if !slices.Contains(its, w) {
						its = append(its, w)
					}
				}
			}
			if len(its) != 1 {
				return pt, fmt.Errorf("run set %s runs workloads %s: say which, as <workload>@%s", set, strings.Join(its, ", "), set)
			}
			pt.Workload = its[0]
		}
	}
	switch {
	case wl == "" && !named:
		return pt, fmt.Errorf("a point with no name: give a workload, <workload>@<run set> or @<run set>")
	case wl != "" && len(workloads) == 0:
		return pt, fmt.Errorf("%q names workload %s, and this campaign has one workload (workload:): write @<run set>", key, wl)
	case wl != "" && !slices.Contains(workloads, wl):
		return pt, fmt.Errorf("unknown workload %q: the campaign's workloads are %s", wl, strings.Join(workloads, ", "))
	case overRunSets && !named && !slices.ContainsFunc(runs, func(rs RunSet) bool { return rs.Name == "" }):
		return pt, fmt.Errorf("%s is the workload of the unnamed run set in a sweep over run sets, and the campaign has none", key)
	}
	return pt, nil
}

// pointText names a point in an error: its workload, and its run set
// when it names one.
func pointText(pt report.SweepPoint) string {
	t := "workload " + pt.Workload
	if pt.Workload == "" {
		t = "the workload"
	}
	if pt.RunSet != "" {
		t += " in run set " + pt.RunSet
	}
	return t
}

// runSetNames lists the named run sets, each once, for an error.
func runSetNames(runs []RunSet) string {
	var names []string
	for _, rs := range runs {
		if rs.Name != "" && !slices.Contains(names, rs.Name) {
			names = append(names, rs.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// runsOn says whether a run set of the point runs the policy of a label
// on its workload: the run set the point names in a sweep over run sets
// (the unnamed one for a plain workload), any one in a sweep over
// workloads.
func runsOn(runs []RunSet, pt report.SweepPoint, overRunSets bool, label string) bool {
	for _, rs := range runs {
		if overRunSets && rs.Name != pt.RunSet {
			continue
		}
		if (pt.Workload == "" || slices.Contains(rs.Workloads, pt.Workload)) &&
			slices.ContainsFunc(rs.Policies, func(s policy.Spec) bool { return s.String() == label }) {
			return true
		}
	}
	return false
}

// ResultDirSweeps lists the sweeps of the campaign of result directory
// dir, from its campaign.yaml; nil when dir holds none.
func ResultDirSweeps(dir string) ([]report.Sweep, error) {
	c, err := resultDirCampaign(dir)
	if c == nil || err != nil {
		return nil, err
	}
	return c.Sweeps, nil
}
