package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// EffectKind is how a row measures the effect of the policy over its
// baseline.
type EffectKind int

// The effect kinds.
const (
	// Relative is policy mean / baseline mean − 1.
	Relative EffectKind = iota
	// Points is (policy mean − baseline mean) × 100: percentage points of
	// a fraction.
	Points
	// Value is the policy's own mean, with no baseline: a statistic the
	// paper reports of its system alone (Dawn's §6.3 shares, Corral's
	// LP gap), either an estimate or a bound (Row.Bound).
	Value
)

func (k EffectKind) String() string {
	switch k {
	case Points:
		return "points"
	case Value:
		return "value"
	}
	return "relative"
}

// Table is a paper's headline table: a campaign file's headlines section.
type Table struct {
	Title string
	Note  string
	Rows  []Row
}

// Row is one headline.
type Row struct {
	// Line is the row's line in the campaign file.
	Line int
	// Metric is a summary.csv column.
	Metric string
	// Queue, when set, restricts the metric to the jobs of that queue
	// (queue: in the file): it is then one of metrics.JobColumns, computed
	// per run from its jobs.csv over that queue's jobs (Corral's recurring
	// jobs beside ad hoc ones); "" is every job's, summary.csv's value.
	Queue string
	// Input, when set, restricts the metric to the jobs whose input size
	// is in a range (input: 128MB-512MB in the file, a paper's bin): it
	// is then one of report.InputClassColumns, computed per run from its
	// jobs.csv and attempts.csv.
	Input            report.InputRange
	Effect           EffectKind
	Policy, Baseline string
	// PolicySet and BaselineSet name the run set of each ("": the mode's
	// unnamed run set); in the file, policy: corral@varys names the
	// policy labelled corral in the run set named varys.
	PolicySet, BaselineSet string
	// In is the named workload whose results the row is checked against
	// (in: in the file); "" in a campaign of one workload.
	In string
	// Workload describes the paper's workload, for the reader.
	Workload string
	Figure   string
	Spec     string
	// Quote is the source's words, verbatim; may be empty.
	Quote string
	// Found is what was found when the row did not reproduce (found: in
	// the file), by mode ("" for every mode): the reason is kept beside
	// the row it explains, and shown only while the row does not
	// reproduce (Result.FoundText).
	Found map[string]string
	// Paper is the paper's effect in the row's unit (a fraction for
	// Relative: 0.65 is +65%; percentage points for Points), NaN when the
	// paper gives only a direction.
	Paper float64
	// Direction is the sign of the paper's effect: +1 or -1.
	Direction int
	// Modes are the campaign modes the row applies to; empty: all.
	Modes []string
	// Bound, on a value row, says the paper's figure is a bound the
	// policy's mean must keep: -1 at most ("≤ 3%"), +1 at least
	// ("≥ 50%"); 0 for an estimate, judged within ½× to 2× of it.
	Bound int
	// Percent says a value row's figures are written as percentages
	// ("79%": a fraction of 0.79), else as plain numbers in the column's
	// own unit ("0.004", "55" seconds).
	Percent bool
}

// AppliesTo says whether the row is checked in a mode (by its modes:;
// Evaluate also skips the row in a mode that lacks a run set it names).
func (r *Row) AppliesTo(mode string) bool {
	return len(r.Modes) == 0 || slices.Contains(r.Modes, mode)
}

// MetricText is the metric as the table shows it: the column, and the
// queue its jobs are restricted to, if any.
func (r *Row) MetricText() string {
	switch {
	case r.Queue != "":
		return r.Metric + " (queue " + r.Queue + ")"
	case r.Input != (report.InputRange{}):
		return r.Metric + " (input " + r.Input.String() + ")"
	}
	return r.Metric
}

// PolicyRef and BaselineRef are the policy and baseline as the file
// writes them: the label, with @<run set> for a named run set's.
func (r *Row) PolicyRef() string { return ref(r.Policy, r.PolicySet) }

// BaselineRef: see PolicyRef.
func (r *Row) BaselineRef() string { return ref(r.Baseline, r.BaselineSet) }

func ref(label, set string) string {
	if set == "" {
		return label
	}
	return label + "@" + set
}

// splitRef reads a row's policy or baseline, label[@run set].
func splitRef(s string) (label, set string, err error) {
	label, set, named := strings.Cut(s, "@")
	switch {
	case named && set == "":
		return "", "", fmt.Errorf("%q names no run set after '@': write <label>@<run set name>, or the label alone for the mode's unnamed run set", s)
	case named && label == "":
		return "", "", fmt.Errorf("%q names no policy before '@': write <label>@<run set name>", s)
	}
	return label, set, nil
}

// PaperText is the paper's effect as the table gives it: "+65%", "-12pp",
// or "higher"/"lower" with no number.
func (r *Row) PaperText() string {
	if r.Effect == Value {
		switch r.Bound {
		case -1:
			return "≤ " + r.FormatValue(r.Paper)
		case 1:
			return "≥ " + r.FormatValue(r.Paper)
		}
		return r.FormatValue(r.Paper)
	}
	if math.IsNaN(r.Paper) {
		if r.Direction > 0 {
			return "higher (no number)"
		}
		return "lower (no number)"
	}
	return FormatEffect(r.Effect, r.Paper)
}

// FormatEffect writes an effect in its unit: "+65.0%" or "+12.0 pp".
func FormatEffect(k EffectKind, x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case k == Points:
		return fmt.Sprintf("%+.1f pp", x)
	case k == Value:
		return fmt.Sprintf("%.1f%%", x*100)
	case math.Abs(x) >= 0.01 || x == 0:
		return fmt.Sprintf("%+.1f%%", x*100)
	}
	return fmt.Sprintf("%+.2f%%", x*100)
}

// FormatValue writes a value row's figure in its unit: "79.0%" for a
// row in percent, else a plain number ("0.0031", "55").
func (r *Row) FormatValue(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case r.Percent && x != 0 && math.Abs(x) < 0.0001:
		return strconv.FormatFloat(x*100, 'g', 2, 64) + "%"
	case r.Percent && x != 0 && math.Abs(x) < 0.01:
		return fmt.Sprintf("%.2f%%", x*100)
	case r.Percent:
		return fmt.Sprintf("%.1f%%", x*100)
	case math.Abs(x) >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// ratioColumn says whether a summary.csv column is a dimensionless
// ratio, which a value row may give in percent: a share (*_frac), a
// gap (*_gap) or a coefficient of variation (*_cov, *_cov_*).
func ratioColumn(name string) bool {
	return strings.HasSuffix(name, "_frac") || strings.HasSuffix(name, "_gap") ||
		strings.HasSuffix(name, "_cov") || strings.Contains(name, "_cov_")
}

// notMetrics are the summary.csv columns that name a run rather than
// measure it.
var notMetrics = []string{"policy", "seed"}

// Parse reads the headlines section of a campaign; it returns nil and no
// error when the campaign has none. Errors name the campaign file and the
// line.
func Parse(c *campaign.Campaign) (*Table, error) {
	if c.Headlines == nil {
		return nil, nil
	}
	// a decoder of the campaign's own text, so that errors carry its lines
	d, _, err := yamlfile.Parse(campaignFile(c), c.Source)
	if err != nil {
		return nil, err
	}
	t := parseTable(d, c.Headlines, c)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func parseTable(d *yamlfile.Decoder, n *yaml.Node, c *campaign.Campaign) *Table {
	m := d.Map(n, "headlines")
	m.Known("title", "note", "rows")
	m.Require("title", "rows")
	t := &Table{Title: m.Str("title"), Note: strings.TrimSpace(m.Str("note"))}
	for i, rn := range m.Seq("rows") {
		t.Rows = append(t.Rows, parseRow(d, rn, i, c))
	}
	if d.Err() == nil && len(t.Rows) == 0 {
		m.Fail("rows", "rows lists no headline")
	}
	return t
}

func parseRow(d *yamlfile.Decoder, n *yaml.Node, i int, c *campaign.Campaign) Row {
	m := d.Map(n, fmt.Sprintf("headlines row %d", i+1))
	m.Known("metric", "effect", "policy", "baseline", "workload", "figure", "spec", "quote", "paper", "modes", "in", "queue", "input", "found")
	m.Require("metric", "effect", "policy", "workload", "figure", "spec", "paper")
	r := Row{Line: m.Line, Metric: m.Str("metric"), Policy: m.Str("policy"), Baseline: m.Str("baseline"),
		Workload: m.Str("workload"), Figure: m.Str("figure"), Spec: m.Str("spec"), Quote: m.Str("quote"), Modes: m.Strs("modes"), In: m.Str("in"),
		Queue: m.Str("queue")}
	if d.Err() != nil {
		return r
	}
	var err error
	if r.Policy, r.PolicySet, err = splitRef(r.Policy); err != nil {
		m.Fail("policy", "%v", err)
		return r
	}
	if r.Baseline, r.BaselineSet, err = splitRef(r.Baseline); err != nil {
		m.Fail("baseline", "%v", err)
		return r
	}
	switch names := c.WorkloadNames(); {
	case len(names) == 0 && m.Has("in"):
		m.Fail("in", "in names one of the campaign's named workloads (workloads:), and this campaign has one workload (workload:): leave it out")
		return r
	case len(names) > 0 && !m.Has("in"):
		m.Fail("", "the campaign has named workloads (%s): say which one the row is checked on with in: <workload>", strings.Join(names, ", "))
		return r
	case len(names) > 0 && !slices.Contains(names, r.In):
		m.Fail("in", "unknown workload %q: the campaign's workloads are %s", r.In, strings.Join(names, ", "))
		return r
	}
	if !slices.Contains(metrics.SummaryHeader, r.Metric) || slices.Contains(notMetrics, r.Metric) {
		m.Fail("metric", "unknown metric %q: give a column of summary.csv (%s)", r.Metric,
			strings.Join(slices.DeleteFunc(slices.Clone(metrics.SummaryHeader), func(s string) bool { return slices.Contains(notMetrics, s) }), ", "))
		return r
	}
	switch {
	case m.Has("queue") && strings.TrimSpace(r.Queue) == "":
		m.Fail("queue", "queue names the queue whose jobs the metric is over: give its name, or leave queue out for every job")
		return r
	case r.Queue != "" && !slices.Contains(metrics.JobColumns, r.Metric):
		m.Fail("metric", "metric %s is not a figure of the jobs: over the jobs of queue %s, give one of %s", r.Metric, r.Queue, strings.Join(metrics.JobColumns, ", "))
		return r
	}
	if m.Has("input") {
		var err error
		switch r.Input, err = report.ParseInputRange(m.Str("input")); {
		case err != nil:
			m.Fail("input", "%v", err)
			return r
		case r.Queue != "":
			m.Fail("input", "a row is over the jobs of a queue or of an input range, not both")
			return r
		case !slices.Contains(report.InputClassColumns, r.Metric):
			m.Fail("metric", "metric %s is not a figure of a class of jobs: over the jobs of input %s, give one of %s", r.Metric, r.Input, strings.Join(report.InputClassColumns, ", "))
			return r
		}
	}
	switch e := m.Str("effect"); e {
	case "relative":
		r.Effect = Relative
	case "points":
		r.Effect = Points
		if !strings.HasSuffix(r.Metric, "_frac") {
			m.Fail("effect", "effect points is for fractions (the *_frac columns), not %s: use relative", r.Metric)
			return r
		}
	case "value":
		r.Effect = Value
		if r.Baseline != "" {
			m.Fail("baseline", "a value row states the policy's own figure: it has no baseline")
			return r
		}
	default:
		m.Fail("effect", "unknown effect %q: relative (policy/baseline - 1), points (difference of fractions, in percentage points) or value (the policy's own fraction)", e)
		return r
	}
	if r.Effect != Value && r.Baseline == "" {
		m.Fail("", "no baseline: a %s row compares the policy with one", r.Effect)
		return r
	}
	if r.Effect == Value {
		r.Paper, r.Bound, r.Percent, err = parseValue(m.Str("paper"), r.Metric)
		r.Direction = 1
		if r.Bound != 0 {
			r.Direction = r.Bound
		}
	} else {
		r.Paper, r.Direction, err = parsePaper(m.Str("paper"), r.Effect)
	}
	if err != nil {
		m.Fail("paper", "%v", err)
		return r
	}
	if r.PolicyRef() == r.BaselineRef() {
		m.Fail("baseline", "the baseline is the policy itself (%s)", r.PolicyRef())
		return r
	}
	modes := map[string]bool{}
	for _, rs := range c.Runs {
		modes[rs.Mode] = true
	}
	for _, mode := range r.Modes {
		if !modes[mode] {
			m.Fail("modes", "the campaign has no %s runs", mode)
			return r
		}
	}
	if r.Found = parseFound(d, m); d.Err() != nil {
		return r
	}
	for mode := range r.Found {
		if mode != "" && (!modes[mode] || !r.AppliesTo(mode)) {
			m.Fail("found", "found says what was found in mode %s, and the row is not checked in that mode", mode)
			return r
		}
	}
	for _, f := range []struct{ key, policy, set string }{{"policy", r.Policy, r.PolicySet}, {"baseline", r.Baseline, r.BaselineSet}} {
		if f.policy == "" { // a value row's baseline
			continue
		}
		if !runsPolicy(c, r, f.policy, f.set, "") {
			m.Fail(f.key, "no run of the campaign runs %s%s%s%s: add it to runs", f.policy, runSetText(f.set), workloadText(r.In), modeList(r.Modes))
			return r
		}
	}
	// a row compares runs of one mode: sides run only in different modes
	// would leave it out of every mode's table, unsaid
	if r.Baseline != "" && !slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool {
		return runsPolicy(c, r, r.Policy, r.PolicySet, rs.Mode) && runsPolicy(c, r, r.Baseline, r.BaselineSet, rs.Mode)
	}) {
		m.Fail("baseline", "no one mode runs both %s and %s%s%s: a row compares the runs of one mode", r.PolicyRef(), r.BaselineRef(), workloadText(r.In), modeList(r.Modes))
	}
	return r
}

// parseFound reads a row's found: one text for every mode, or a mapping
// of a text per mode (found: {sim: ..., local: ...}).
func parseFound(d *yamlfile.Decoder, m *yamlfile.Map) map[string]string {
	n := m.Node("found")
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		text := strings.Join(strings.Fields(m.Str("found")), " ")
		if text == "" {
			m.Fail("found", "found says what was found when the row did not reproduce: give the text, or leave found out")
			return nil
		}
		return map[string]string{"": text}
	}
	fm := d.Map(n, m.Where+" found")
	fm.Known(campaign.ModeSim, campaign.ModeLocal, campaign.ModeRemote)
	out := map[string]string{}
	for _, mode := range fm.Keys() {
		text := strings.Join(strings.Fields(fm.Str(mode)), " ")
		if text == "" && d.Err() == nil {
			fm.Fail(mode, "found's %s text is empty: give it, or leave the mode out", mode)
		}
		out[mode] = text
	}
	if len(out) == 0 && d.Err() == nil {
		m.Fail("found", "found is an empty mapping: give a text, or a text per mode (sim, local, remote)")
	}
	return out
}

// FoundIn is what was found in a mode: its own text, else the row's for
// every mode.
func (r Row) FoundIn(mode string) string {
	if f, ok := r.Found[mode]; ok {
		return f
	}
	return r.Found[""]
}

// runsPolicy says whether a run set the row applies to, of the name set
// ("": unnamed), runs the policy; of the mode, unless it is "".
func runsPolicy(c *campaign.Campaign, r Row, label, set, mode string) bool {
	for _, rs := range c.Runs {
		if r.AppliesTo(rs.Mode) && (mode == "" || rs.Mode == mode) && rs.Name == set && (r.In == "" || slices.Contains(rs.Workloads, r.In)) &&
			slices.ContainsFunc(rs.Policies, func(s policy.Spec) bool { return s.String() == label }) {
			return true
		}
	}
	return false
}

// runSetText is " in run set <name>", or "" for the unnamed one.
func runSetText(name string) string {
	if name == "" {
		return ""
	}
	return " in run set " + name
}

// workloadText is " on workload <name>", or "" for no name.
func workloadText(name string) string {
	if name == "" {
		return ""
	}
	return " on workload " + name
}

func modeList(modes []string) string {
	if len(modes) == 0 {
		return ""
	}
	return " in mode " + strings.Join(modes, " or ")
}

// parseValue reads a value row's figure: an estimate ("79%", "0.004") or
// a bound ("≤ 3%", "<= 0.004", "≥ 50%", ">= 2"). A percentage is for a
// ratio column (ratioColumn), and a share's (*_frac) must be one,
// between 0% and 100%; an estimate must be above 0, for its verdict is
// within ½× to 2× of it.
func parseValue(given, metric string) (x float64, bound int, percent bool, err error) {
	s := strings.TrimSpace(given)
	for _, b := range []struct {
		prefix string
		bound  int
	}{{"<=", -1}, {"≤", -1}, {">=", 1}, {"≥", 1}} {
		if rest, ok := strings.CutPrefix(s, b.prefix); ok {
			s, bound = strings.TrimSpace(rest), b.bound
			break
		}
	}
	num := s
	if rest, ok := strings.CutSuffix(s, "%"); ok {
		num, percent = strings.TrimSpace(rest), true
	}
	x, err = strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, 0, false, fmt.Errorf("paper %q: give a number (\"79%%\", \"0.004\"), or a bound (\"≤ 3%%\", \">= 0.5\")", given)
	}
	if percent {
		x /= 100
	}
	share := strings.HasSuffix(metric, "_frac")
	switch {
	case share && !percent:
		return 0, 0, false, fmt.Errorf("paper %q: %s is a share: give the figure in percent (\"79%%\")", given, metric)
	case percent && !ratioColumn(metric):
		return 0, 0, false, fmt.Errorf("paper %q: %s is not a ratio: give the figure as a plain number in its unit", given, metric)
	case share && (x < 0 || x > 1):
		return 0, 0, false, fmt.Errorf("paper %q: a share is between 0%% and 100%%", given)
	case bound == 0 && x <= 0:
		return 0, 0, false, fmt.Errorf("paper %q: an estimate must be above 0 (its verdict is within ½× to 2× of it); give a bound (≤, ≥) otherwise", given)
	}
	return x, bound, percent, nil
}

// parsePaper reads a paper effect: "+65%" (relative), "-12pp" (points),
// or "higher"/"lower" (a direction with no number).
func parsePaper(s string, kind EffectKind) (effect float64, direction int, err error) {
	s = strings.TrimSpace(s)
	switch s {
	case "higher":
		return math.NaN(), 1, nil
	case "lower":
		return math.NaN(), -1, nil
	}
	want := "%"
	if kind == Points { // Value: a share, in %
		want = "pp"
	}
	num, unit := s, ""
	for _, u := range []string{"%", "pp"} {
		if rest, ok := strings.CutSuffix(s, u); ok {
			num, unit = strings.TrimSpace(rest), u
			break
		}
	}
	if unit == "" {
		return 0, 0, fmt.Errorf("paper effect %q: give a number with its unit (\"+65%%\" for a relative effect, \"-12pp\" for points) or higher/lower", s)
	}
	if unit != want {
		return 0, 0, fmt.Errorf("paper effect %q is in %s but the row's effect is %s: write it in %s", s, unit, kind, want)
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, 0, fmt.Errorf("paper effect %q: %q is not a number", s, num)
	}
	if x == 0 {
		return 0, 0, fmt.Errorf("paper effect %q has no direction: a headline of no change cannot be checked by this rule", s)
	}
	if unit == "%" {
		x /= 100
		if x < -1 {
			return 0, 0, fmt.Errorf("paper effect %q: a relative change cannot fall below -100%%", s)
		}
	}
	if unit == "pp" && math.Abs(x) > 100 {
		return 0, 0, fmt.Errorf("paper effect %q: two shares differ by at most 100 points", s)
	}
	if x > 0 {
		return x, 1, nil
	}
	return x, -1, nil
}
