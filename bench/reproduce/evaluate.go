package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/coordinator/policy"
)

// Result is a row checked against one mode's results.
type Result struct {
	Row Row
	// Index is the row's place in Table.Rows: what tells two rows apart
	// (two rows of a flow sequence share a line of the file).
	Index int
	// Policy and Baseline are the metric over each one's repetitions, in
	// summary.csv's unit; their texts are the report's ("mean ± 95% CI
	// half-width").
	Policy, Baseline         report.Stat
	PolicyText, BaselineText string
	// Measured is the effect in the row's unit, NaN when not measured.
	Measured float64
	Outcome  Outcome
	// Why says why a row is not measured.
	Why string
	// Noise says the difference of the means (policy − baseline) has a
	// 95% confidence interval (Welch) that includes 0: the repetitions
	// do not tell the two apart (never with fewer than
	// report.MinCIRepetitions a side).
	Noise bool
}

// VerdictText is the outcome, saying when only the direction was
// checked, and when the difference is within the repetitions' noise.
func (r *Result) VerdictText() string {
	if r.Noise {
		return r.verdict() + "; within noise (the difference's 95% CI includes 0)"
	}
	return r.verdict()
}

func (r *Result) verdict() string {
	switch {
	case r.Outcome == NotMeasured && r.Why != "":
		return "not measured: " + r.Why
	case r.Outcome == Reproduced && math.IsNaN(r.Row.Paper):
		return "reproduced (direction only: the source gives no number)"
	case r.Outcome == Reproduced && r.Row.Bound != 0:
		return "reproduced (within the paper's bound)"
	case r.Outcome == OutOfBound:
		return "not reproduced: " + r.outside()
	}
	return r.Outcome.String()
}

// outside says by how much a value misses the paper's bound: "2.1 pp
// above ≤ 3.0%", "0.0031 (1.8×) above ≤ 0.004".
func (r *Result) outside() string {
	side := "above"
	if r.Row.Bound > 0 {
		side = "below"
	}
	miss := math.Abs(r.Measured - r.Row.Paper)
	if r.Row.Percent {
		return fmt.Sprintf("%.1f pp %s %s", miss*100, side, r.Row.PaperText())
	}
	if r.Row.Paper > 0 {
		return fmt.Sprintf("%s (%.2g× the bound) %s %s", r.Row.FormatValue(miss), r.Measured/r.Row.Paper, side, r.Row.PaperText())
	}
	return fmt.Sprintf("%s %s %s", r.Row.FormatValue(miss), side, r.Row.PaperText())
}

// MeasuredText is the measured effect, or "–" when not measured.
func (r *Result) MeasuredText() string {
	if math.IsNaN(r.Measured) {
		return "–"
	}
	if r.Row.Effect == Value {
		return r.Row.FormatValue(r.Measured)
	}
	return FormatEffect(r.Row.Effect, r.Measured)
}

// Check is a paper's headline table checked against one mode of a
// campaign's results.
type Check struct {
	Paper string // the campaign's name
	Mode  string
	// Named is true when the campaign has named workloads: each row is
	// checked on its own (Row.In).
	Named   bool
	Table   *Table
	Results []Result
}

// Counts are the rows reproduced and the rows checked.
func (c *Check) Counts() (reproduced, rows int) {
	for _, r := range c.Results {
		if r.Outcome == Reproduced {
			reproduced++
		}
	}
	return reproduced, len(c.Results)
}

// OwnRows leaves out the rows on a workload that no run set of the
// check's mode runs (Corral's simulated workloads, in emulation): they
// are another mode's, which Evaluate reports as not measured, and the
// counts, the closing line and the page speak of the mode's own rows.
func (c *Check) OwnRows(camp *campaign.Campaign) {
	c.Results = slices.DeleteFunc(c.Results, func(r Result) bool { return !runsRowWorkload(camp, c.Mode, r.Row) })
}

// runsRowWorkload says whether the run sets of a mode that a row's
// policy and baseline name run the row's workload (in:).
func runsRowWorkload(c *campaign.Campaign, mode string, row Row) bool {
	if row.In == "" {
		return true
	}
	runs := func(set string) bool {
		return slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool {
			return rs.Mode == mode && rs.Name == set && slices.Contains(rs.Workloads, row.In)
		})
	}
	return runs(row.PolicySet) && (row.Baseline == "" || runs(row.BaselineSet))
}

// Summary is the closing line: "<paper>: N of M headlines reproduced",
// saying how many of the N were checked on direction only because their
// source gives no figure.
func (c *Check) Summary() string {
	n, m := c.Counts()
	line := fmt.Sprintf("%s: %d of %d headlines reproduced", c.Paper, n, m)
	if d := c.directionOnly(); d > 0 {
		line += fmt.Sprintf(" (%d on direction only: no figure in the source)", d)
	}
	return line
}

// directionOnly counts the rows reproduced whose source gives no figure.
func (c *Check) directionOnly() int {
	n := 0
	for _, r := range c.Results {
		if r.Outcome == Reproduced && math.IsNaN(r.Row.Paper) {
			n++
		}
	}
	return n
}

// Evaluate checks the table's rows that apply to mode against the
// results of that mode's run sets in the campaign's result directory dir.
// A row that names a run set (policy@name) the mode does not have is
// another mode's and is left out. Missing results make rows not measured;
// unreadable ones are an error.
func Evaluate(c *campaign.Campaign, t *Table, dir, mode string) (*Check, error) {
	ch := &Check{Paper: c.Name, Mode: mode, Table: t, Named: c.Named()}
	// the results of each run set and workload a row reads ("": the one
	// workload), by their directory
	type results struct {
		set     *report.ResultSet
		missing string
	}
	loaded := map[string]results{}
	load := func(rs *campaign.RunSet, wl string) (results, error) {
		setDir := campaign.SetDir(dir, rs.Dir(), wl)
		if r, ok := loaded[setDir]; ok {
			return r, nil
		}
		var r results
		if _, err := os.Stat(filepath.Join(setDir, "summary.csv")); errors.Is(err, fs.ErrNotExist) {
			r.missing = fmt.Sprintf("no results of %s%s in %s", runSetName(*rs), workloadText(wl), dir)
		} else if r.set, err = report.LoadResultSet(setDir); err != nil {
			return r, err
		}
		loaded[setDir] = r
		return r, nil
	}
	inMode := false
	find := func(name string) *campaign.RunSet {
		for i := range c.Runs {
			if c.Runs[i].Mode == mode && c.Runs[i].Name == name {
				return &c.Runs[i]
			}
		}
		return nil
	}
	for _, rs := range c.Runs {
		inMode = inMode || rs.Mode == mode
	}
	for index, row := range t.Rows {
		if !checkedIn(c, mode, row) {
			continue
		}
		res := Result{Row: row, Index: index, Measured: math.NaN(), Outcome: NotMeasured, PolicyText: "–", BaselineText: "–",
			Policy: report.Summarise(nil), Baseline: report.Summarise(nil)}
		sides := []side{{label: row.Policy, name: row.PolicySet}}
		if row.Baseline != "" { // a value row has none
			sides = append(sides, side{label: row.Baseline, name: row.BaselineSet})
		}
		for i := range sides {
			s := &sides[i]
			if s.rs = find(s.name); s.rs == nil {
				if !inMode {
					res.Why = fmt.Sprintf("the campaign has no %s runs", mode)
				} else {
					res.Why = fmt.Sprintf("mode %s has no run set without a name (for %s)", mode, s.label)
				}
				break
			}
			if row.In != "" && !slices.Contains(s.rs.Workloads, row.In) {
				res.Why = fmt.Sprintf("%s does not run workload %s", runSetName(*s.rs), row.In)
				break
			}
			in, err := load(s.rs, row.In)
			if err != nil {
				return nil, err
			}
			if in.missing != "" {
				res.Why = in.missing
				break
			}
			s.set, s.all = in.set, in.set
			switch {
			case row.Queue != "":
				if s.set, res.Why, err = queueSet(in.set, s.label, row.Queue); err != nil {
					return nil, fmt.Errorf("%s:%d: the row over queue %s: %w", campaignFile(c), row.Line, row.Queue, err)
				}
			case row.Input != (report.InputRange{}):
				if s.set, res.Why, err = inputClassSet(in.set, s.label, row.Input); err != nil {
					return nil, fmt.Errorf("%s:%d: the row over input %s: %w", campaignFile(c), row.Line, row.Input, err)
				}
			default:
				continue
			}
			if res.Why != "" {
				break
			}
		}
		if res.Why == "" {
			measure(&res, c, sides)
		}
		ch.Results = append(ch.Results, res)
	}
	return ch, nil
}

// checkedIn says whether Evaluate checks a row in a mode: the row
// applies to it, and the mode has the run sets it names (a row naming
// one the mode lacks is another mode's).
func checkedIn(c *campaign.Campaign, mode string, row Row) bool {
	has := func(name string) bool {
		return name == "" || slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool { return rs.Mode == mode && rs.Name == name })
	}
	return row.AppliesTo(mode) && has(row.PolicySet) && has(row.BaselineSet)
}

// queueSet is the runs of a policy (its label) in a result set, their
// figures of metrics.JobColumns taken over the jobs of one queue from
// each run's jobs.csv. why says when a run has no jobs.csv; a queue no
// job of a run is in is an error (report.NoQueueError).
func queueSet(set *report.ResultSet, label, queue string) (_ *report.ResultSet, why string, err error) {
	return classSet(set, label, "queue "+queue, func(dir string) (map[string]float64, error) { return report.LoadQueueFigures(dir, queue) })
}

// inputClassSet is queueSet for the jobs of an input class: the figures
// of report.InputClassColumns over them, from each run's jobs.csv and
// attempts.csv.
func inputClassSet(set *report.ResultSet, label string, class report.InputRange) (_ *report.ResultSet, why string, err error) {
	return classSet(set, label, "input "+class.String(), func(dir string) (map[string]float64, error) { return report.LoadInputClassFigures(dir, class) })
}

// classSet is the runs of a policy with the figures load computes over a
// class of their jobs (what names it) in place of the whole run's.
func classSet(set *report.ResultSet, label, what string, load func(runDir string) (map[string]float64, error)) (_ *report.ResultSet, why string, err error) {
	out := &report.ResultSet{Dir: set.Dir, Columns: set.Columns}
	for _, run := range set.RunsOf(label) {
		if _, err := os.Stat(filepath.Join(run.Dir, "jobs.csv")); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Sprintf("no jobs.csv in %s, for the jobs of %s", run.Dir, what), nil
		}
		figures, err := load(run.Dir)
		if err != nil {
			return nil, "", err
		}
		run.Values = maps.Clone(run.Values)
		maps.Copy(run.Values, figures)
		out.Runs = append(out.Runs, run)
	}
	if len(out.Runs) > 0 {
		out.Policies = []string{label}
	}
	return out, "", nil
}

// campaignFile is the campaign's file as its errors name it.
func campaignFile(c *campaign.Campaign) string {
	if c.Path == "" {
		return c.Name + ".yaml"
	}
	return c.Path
}

// runSetName is "mode sim", or "run set varys of mode sim".
func runSetName(rs campaign.RunSet) string {
	if rs.Name == "" {
		return "mode " + rs.Mode
	}
	return "run set " + rs.Name + " of mode " + rs.Mode
}

// side is the policy or the baseline of a row: its label, run set and
// results.
type side struct {
	label, name string
	rs          *campaign.RunSet
	// set is the runs' figures the row reads: all is the whole runs',
	// set a class of their jobs' (a queue, an input class) or all
	set, all *report.ResultSet
}

// measure fills a result from the result sets of the row's policy and
// baseline (sides: the policy's, then the baseline's if it has one), or
// says why it cannot.
func measure(res *Result, c *campaign.Campaign, sides []side) {
	row := res.Row
	for _, s := range sides {
		p := s.label
		if !slices.ContainsFunc(s.rs.Policies, func(sp policy.Spec) bool { return sp.String() == p }) {
			res.Why = fmt.Sprintf("%s runs no %s", runSetName(*s.rs), p)
			return
		}
		var absent, empty []string
		failed, lost := 0.0, 0.0
		for _, seed := range c.Seeds(*s.rs) {
			run := fmt.Sprintf("%s-seed%d", ref(p, s.name), seed)
			of := func(set *report.ResultSet) (report.Run, bool) {
				i := slices.IndexFunc(set.Runs, func(r report.Run) bool { return r.Policy == p && r.Seed == seed })
				if i < 0 {
					return report.Run{}, false
				}
				return set.Runs[i], true
			}
			whole, ok := of(s.all)
			if !ok {
				absent = append(absent, run)
				continue
			}
			// a failed job in any queue or class leaves the run's
			// figures another measurement than its repetitions'
			failed += whole.Values["failed_jobs"]
			// a run that lost a host reran its work elsewhere: another
			// kind of measurement (metrics.Summary.HostsLost; NaN in a
			// summary.csv from before the column)
			if n := whole.Values["hosts_lost"]; n > 0 {
				lost += n
			}
			if r, ok := of(s.set); !ok {
				absent = append(absent, run)
			} else if why := undefinedIn(r, row.Metric); why != "" {
				empty = append(empty, run+" "+why)
			} else if row.Input != (report.InputRange{}) && math.IsNaN(r.Values[row.Metric]) {
				// a share over the maps of an input class none of which
				// ran (report.LoadInputClassFigures): not a policy's
				// missing figure, which the value rows' message says
				empty = append(empty, fmt.Sprintf("%s (no map of input %s ran)", run, row.Input))
			}
		}
		if len(absent) > 0 {
			res.Why = "missing run " + strings.Join(absent, ", ")
			return
		}
		if failed > 0 {
			res.Why = fmt.Sprintf("failed jobs in the runs of %s: %.0f", ref(p, s.name), failed)
			return
		}
		if lost > 0 {
			res.Why = fmt.Sprintf("hosts lost in the runs of %s: %.0f", ref(p, s.name), lost)
			return
		}
		if len(empty) > 0 {
			res.Why = fmt.Sprintf("%s is undefined in %s", row.Metric, strings.Join(empty, ", "))
			return
		}
	}
	set := sides[0].set
	if row.Effect == Value {
		res.Policy = report.Summarise(set.Values(row.Policy, row.Metric))
		res.PolicyText = report.FormatStat(res.Policy, 1, valueDigits(res.Policy.Mean))
		if row.Percent { // in the unit of the paper's figure
			res.PolicyText = withUnit(report.FormatStat(res.Policy, 0.01, valueDigits(res.Policy.Mean*100)), "%")
		}
		res.Measured = res.Policy.Mean
		if math.IsNaN(res.Measured) || math.IsInf(res.Measured, 0) {
			res.Measured = math.NaN()
			res.Why = fmt.Sprintf("%s has no %s (its runs leave the column empty: a policy that records no decision notes, or reports no such figure?)", row.PolicyRef(), row.Metric)
			return
		}
		if row.Bound != 0 {
			res.Outcome = JudgeBound(row.Paper, row.Bound, res.Measured)
			return
		}
		res.Outcome = Judge(row.Paper, row.Direction, res.Measured)
		if res.Measured == 0 { // a share of none: no direction to be wrong in
			res.Outcome = TooSmall
		}
		return
	}
	// the report's tables hold the means, intervals and their texts; of
	// one result set, or of each side's when they come from two run sets
	pol := tableRow(set, row.Baseline, row.Policy, row.Metric)
	base := tableRow(sides[1].set, row.Baseline, row.Baseline, row.Metric)
	if pol != nil && base != nil {
		res.Policy, res.Baseline = pol.Stat, base.Stat
		res.PolicyText, res.BaselineText = withUnit(pol.MeanText, pol.UnitLabel), withUnit(base.MeanText, base.UnitLabel)
	} else {
		// a column the report shows no table of (jobs, attempts, ...)
		res.Policy, res.Baseline = report.Summarise(set.Values(row.Policy, row.Metric)), report.Summarise(sides[1].set.Values(row.Baseline, row.Metric))
		res.PolicyText, res.BaselineText = report.FormatStat(res.Policy, 1, 3), report.FormatStat(res.Baseline, 1, 3)
	}
	var ok bool
	switch row.Effect {
	case Points:
		res.Measured = (res.Policy.Mean - res.Baseline.Mean) * 100
		ok = !math.IsNaN(res.Measured) && !math.IsInf(res.Measured, 0)
	default:
		// against a baseline of 0 a relative effect is undefined, also
		// for a policy of 0 (doc.go): there is no change to judge
		res.Measured, ok = report.RelChange(res.Policy.Mean, res.Baseline.Mean)
		if !ok || res.Baseline.Mean == 0 {
			res.Measured, ok = math.NaN(), false
		}
	}
	if !ok {
		res.Why = fmt.Sprintf("the effect is undefined (%s mean %s, %s mean %s)", row.PolicyRef(), res.PolicyText, row.BaselineRef(), res.BaselineText)
		return
	}
	res.Outcome = Judge(row.Paper, row.Direction, res.Measured)
	// as the report, no interval from fewer than MinCIRepetitions runs
	if res.Policy.N >= report.MinCIRepetitions && res.Baseline.N >= report.MinCIRepetitions {
		lo, hi := report.WelchInterval(res.Policy, res.Baseline)
		res.Noise = lo <= 0 && hi >= 0
	}
}

// valueDigits is how many decimals show a policy's own mean to three
// significant digits (at least 3, at most 6).
func valueDigits(mean float64) int {
	if mean == 0 || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 3
	}
	return min(6, max(3, 2-int(math.Floor(math.Log10(math.Abs(mean))))))
}

// tableRow is the report's table row of a policy's metric in a result set
// compared with baseline (a label of that set, or not: then no row
// is the baseline, which the means and their texts do not depend on).
func tableRow(set *report.ResultSet, baseline, label, metric string) *report.Row {
	tables := report.Tables(set, baseline)
	for i := range tables {
		for j := range tables[i].Rows {
			if tr := &tables[i].Rows[j]; tr.Metric.Key == metric && tr.Policy == label {
				return tr
			}
		}
	}
	return nil
}

// withUnit puts the unit after the number: "0.99 ± 0.01 s", "12.00 s
// (n=1, no CI)".
func withUnit(text, unit string) string {
	if unit == "" {
		return text
	}
	if num, rest, ok := strings.Cut(text, " ("); ok {
		return num + " " + unit + " (" + rest
	}
	return text + " " + unit
}

// undefinedIn says why a run's value of a metric stands for nothing
// measured: summary.csv (and a class's figures) write 0 where there was
// nothing to compute it from, which a verdict must not read as a measured
// 0. "" when the value is a measurement.
func undefinedIn(run report.Run, metric string) string {
	v := run.Values
	switch {
	case slices.Contains(jobTimeColumns, metric):
		if v["jobs"]-v["failed_jobs"]-v["unfinished_jobs"] <= 0 {
			return "(no job finished)"
		}
	case metric == "makespan_s": // (a throughput of 0 is a measurement)
		if v["jobs"]-v["unfinished_jobs"] <= 0 {
			return "(no job ended)"
		}
	case metric == "wct_mean_s" || strings.HasSuffix(metric, "_per_workload"):
		// a summary.csv from before workloads were counted reads 0
		// workloads (metrics.SummaryAdded): its runs ended every job
		if v["workloads"] > 0 && v["workloads_finished"] <= 0 {
			return "(no workload finished)"
		}
	}
	return ""
}

// jobTimeColumns are the completion-time figures over a run's finished
// jobs.
var jobTimeColumns = []string{"jct_mean_s", "jct_p50_s", "jct_p90_s", "jct_p95_s", "jct_p99_s"}
