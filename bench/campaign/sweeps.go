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
// against a parameter that named workloads vary, e.g.
//
//	sweeps:
//	  - name: size-error                    # the figure: <mode>-sweep-size-error.svg
//	    title: Makespan against input-size error (Fig. 13a)   # optional
//	    x: largest input-size error         # the x axis
//	    metric: makespan_s                  # a summary.csv column
//	    policies: [corral]
//	    baseline: capacity
//	    points: {w1-e0: 0, w1-e10: 0.1, w1-e50: 0.5}   # workload: x, at least two
//
// Every point is a named workload that some run set runs with every
// policy and the baseline.

// parseSweeps reads the sweeps section; workloads are the campaign's
// named workloads and runs its run sets.
func parseSweeps(d *yamlfile.Decoder, m *yamlfile.Map, workloads []string, runs []RunSet) []report.Sweep {
	if len(workloads) == 0 {
		m.Fail("sweeps", "a sweep compares named workloads (workloads:), and this campaign has one workload (workload:)")
		return nil
	}
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
	pm := d.Map(m.Node("points"), m.Where+" points")
	for _, name := range pm.Keys() {
		if !slices.Contains(workloads, name) {
			d.Fail(pm.LineOf(name), pm.Where, "unknown workload %q: the campaign's workloads are %s", name, strings.Join(workloads, ", "))
			return sw
		}
		x := pm.Float(name)
		if d.Err() != nil {
			return sw
		}
		for _, label := range append(slices.Clone(sw.Policies), sw.Baseline) {
			if !runsOn(runs, name, label) {
				d.Fail(pm.LineOf(name), pm.Where, "no run set runs %s on workload %s: add it to runs", label, name)
				return sw
			}
		}
		sw.Points = append(sw.Points, report.SweepPoint{Workload: name, X: x})
	}
	if len(sw.Points) < 2 {
		m.Fail("points", "a sweep needs at least two points (workload: x), got %d", len(sw.Points))
	}
	return sw
}

// runsOn says whether a run set runs the policy of a label on a workload.
func runsOn(runs []RunSet, workload, label string) bool {
	for _, rs := range runs {
		if slices.Contains(rs.Workloads, workload) &&
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
