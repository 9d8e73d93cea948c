package reproduce

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/report"
)

// Explanation says how effects and verdicts are computed, under every
// printed table.
const Explanation = "Effect: relative = policy mean / baseline mean - 1; pp = (policy mean - baseline mean) × 100, for fractions; " +
	"a share with no baseline is the policy's own mean. " +
	"Means over repetitions, ± the half-width of their 95% confidence interval (Student t). " +
	"Reproduced: the paper's direction, and within ½× to 2× of the paper's effect (of its figure, for a policy's own value); " +
	"where the paper gives a bound (≤, ≥), the policy's own mean on the bound's side of it."

func (r *Result) label() string {
	if r.Row.Effect == Value && strings.HasSuffix(r.Row.Metric, "_frac") {
		return r.Row.PolicyRef() + " (own share)"
	}
	if r.Row.Effect == Value {
		return r.Row.PolicyRef() + " (own value)"
	}
	return fmt.Sprintf("%s vs %s", r.Row.PolicyRef(), r.Row.BaselineRef())
}

// FoundText is what was found when the row did not reproduce in mode,
// shown while it does not; a row that now reproduces says so, so that
// the reason kept for it is looked at again rather than left to mislead.
func (r *Result) FoundText(mode string) string {
	f := r.Row.FoundIn(mode)
	if f == "" {
		return ""
	}
	if r.Outcome == Reproduced {
		return fmt.Sprintf("reproduces now: the reason recorded for it not reproducing (found:, line %d of the campaign) is to be looked at again", r.Row.Line)
	}
	return f
}

// WriteText prints the check: a line per row with the paper's and the
// measured effect and the verdict, then each row's provenance, and last
// the summary line.
func (c *Check) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s, mode %s: %s\n", c.Paper, c.Mode, c.Table.Title)
	fmt.Fprintf(w, "%s\n\n", Explanation)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// with named workloads, a column says which one each row is checked on
	inHead, inCell := "", func(Result) string { return "" }
	if c.Named {
		inHead, inCell = "in\t", func(r Result) string { return r.Row.In + "\t" }
	}
	fmt.Fprintln(tw, "#\t"+inHead+"metric\tpolicy vs baseline\tpaper\tmeasured\tpolicy\tbaseline\tverdict")
	for i, r := range c.Results {
		fmt.Fprintf(tw, "%d\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, inCell(r), r.Row.MetricText(), r.label(), r.Row.PaperText(), r.MeasuredText(),
			r.PolicyText, r.BaselineText, r.VerdictText())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, r := range c.Results {
		fmt.Fprintf(w, "\n%d. workload: %s\n   figure:   %s\n   spec:     %s\n", i+1, r.Row.Workload, r.Row.Figure, r.Row.Spec)
		if r.Row.Quote != "" {
			fmt.Fprintf(w, "   quote:    %s\n", strconv.Quote(r.Row.Quote))
		}
		if f := r.FoundText(c.Mode); f != "" {
			fmt.Fprintf(w, "   found:    %s\n", f)
		}
	}
	if c.Table.Note != "" {
		fmt.Fprintf(w, "\nnote: %s\n", c.Table.Note)
	}
	_, err := fmt.Fprintf(w, "\n%s\n", c.Summary())
	return err
}

// ForReport is the check as bench/report shows it.
func (c *Check) ForReport() report.Headlines {
	h := report.Headlines{
		Title:   fmt.Sprintf("%s, mode %s: %s", c.Paper, c.Mode, c.Table.Title),
		Notes:   []string{Explanation},
		Columns: []string{"#", "metric", "policy vs baseline", "workload", "paper figure", "spec", "paper", "measured", "policy (mean ± 95% CI)", "baseline (mean ± 95% CI)", "verdict"},
		Summary: c.Summary(),
	}
	if c.Table.Note != "" {
		h.Notes = append(h.Notes, c.Table.Note)
	}
	if c.Named {
		h.Columns = slices.Insert(h.Columns, 1, "in")
	}
	for i, r := range c.Results {
		fig := r.Row.Figure
		if r.Row.Quote != "" {
			fig += ": " + strconv.Quote(r.Row.Quote)
		}
		row := []string{strconv.Itoa(i + 1), r.Row.MetricText(), r.label(), r.Row.Workload, fig, r.Row.Spec,
			r.Row.PaperText(), r.MeasuredText(), r.PolicyText, r.BaselineText, r.VerdictText(), r.FoundText(c.Mode)}
		if c.Named {
			row = slices.Insert(row, 1, r.Row.In)
		}
		h.Rows = append(h.Rows, row)
	}
	return withFound(h)
}

// withFound gives a table whose last cells are found texts its found
// column, or drops those cells when no row has one.
func withFound(h report.Headlines) report.Headlines {
	if slices.ContainsFunc(h.Rows, func(row []string) bool { return row[len(row)-1] != "" }) {
		h.Columns = append(h.Columns, "found (when not reproduced)")
		return h
	}
	for i, row := range h.Rows {
		h.Rows[i] = row[:len(row)-1]
	}
	return h
}

// ForResultDir checks the headline table of the campaign a result
// directory holds (its campaign.yaml), in every mode with results, for
// the report. It returns nothing when the directory holds no campaign
// or the campaign has no headlines.
func ForResultDir(dir string) ([]report.Headlines, error) {
	path := filepath.Join(dir, "campaign.yaml")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := campaign.Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Path = path
	t, err := Parse(c)
	if err != nil || t == nil {
		return nil, err
	}
	// the modes with results, in campaign order: a mode with no results
	// yet has no table; with named workloads or run sets, one result set
	// of the mode is enough
	var modes []string
	for _, rs := range c.Runs {
		workloads := rs.Workloads
		if len(workloads) == 0 {
			workloads = []string{""}
		}
		for _, wl := range workloads {
			if _, err := os.Stat(filepath.Join(campaign.SetDir(dir, rs.Dir(), wl), "summary.csv")); err == nil && !slices.Contains(modes, rs.Mode) {
				modes = append(modes, rs.Mode)
			}
		}
	}
	var out []report.Headlines
	for _, mode := range modes {
		ch, err := Evaluate(c, t, dir, mode)
		if err != nil {
			return nil, err
		}
		ch.OwnRows(c) // the counts are the mode's own rows, as the page's
		if len(ch.Results) > 0 {
			out = append(out, ch.ForReport())
		}
	}
	return out, nil
}
