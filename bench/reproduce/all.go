package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/internal/safefile"
)

// DefaultPapers are the papers `bench reproduce all` runs, in this order.
var DefaultPapers = []string{"dawn", "corral", "pushbox", "trident", "shadow"}

// KeyFigures name, per paper, the figure of its campaign's report that the
// reproduction page shows as the paper's key figure redrawn: the first of
// these IDs that the report draws. A paper not listed, or whose report
// draws none of them, shows its report's first figure with data, and the
// page says so.
var KeyFigures = map[string][]string{
	// Fig. 11: throughput, workload completion time and cross-rack
	// traffic per workload (ML, TPC-H, Tez)
	"dawn": {"sim-fig11-workloads"},
	// Fig. 6: the makespan of the batch workload W1
	"corral": {"sim-w1-batch-makespan"},
	// Fig. 9a: the JCTs of the FB2010 coflows in the Fair queue
	"pushbox": {"sim-fb2010-jct-cdf"},
	// Fig. 4: map locality of the FB workload, Default and Trident over
	// HDFS
	"trident": {"sim-hdfs-fb-locality", "sim-oct-fb-locality"},
	// Fig. 20: Skew of the rack links, TeraSort
	"shadow": {"sim-terasort-link-skew"},
}

// FidelityTolerance is how far (a fraction) a simulated mean may be from
// the emulated one and still agree: issue 17's 15%.
const FidelityTolerance = 0.15

// AllOptions steer RunAll and Page.
type AllOptions struct {
	// Campaigns is the directory of the papers' campaign files.
	Campaigns string
	Papers    []string
	// Out holds one result directory per paper, Out/<paper>, and the page.
	Out  string
	Mode string
	// Options are the campaigns' options; RunAll sets Out for each result
	// directory.
	Options campaign.Options
}

// PaperRun is what RunAll did for a paper: its check (nil when nothing
// could be checked) and what failed.
type PaperRun struct {
	Paper string
	Check *Check
	Err   error
}

// failedFile is the file in a paper's result directory that keeps why
// its last run in a mode failed, for the page; removed when a run
// succeeds.
func failedFile(dir, mode string) string { return filepath.Join(dir, "failed-"+mode+".txt") }

// RunAll runs, paper by paper, the runs of one mode of each paper's
// campaign into Out/<paper> (resuming what an earlier invocation
// finished, as Run), and the simulated twin of its emulated runs into
// Out/<paper>/twin (see Twin). A paper that fails is recorded and the
// others still run; the error is only for an interruption (ctx).
func RunAll(ctx context.Context, opt AllOptions) ([]PaperRun, error) {
	var out []PaperRun
	for _, paper := range opt.Papers {
		dir := filepath.Join(opt.Out, paper)
		pr := PaperRun{Paper: paper}
		pr.Check, pr.Err = runPaper(ctx, opt, paper, dir)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, err
		}
		if pr.Err != nil {
			if err := safefile.WriteFile(failedFile(dir, opt.Mode), []byte(pr.Err.Error()+"\n"), 0o644); err != nil {
				return out, err
			}
		} else if err := os.Remove(failedFile(dir, opt.Mode)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		out = append(out, pr)
	}
	return out, nil
}

func runPaper(ctx context.Context, opt AllOptions, paper, dir string) (*Check, error) {
	path := CampaignPath(opt.Campaigns, paper)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no campaign for paper %s: %w", paper, err)
	}
	c, t, err := Prepare(path, opt.Mode)
	if err != nil {
		return nil, err
	}
	copt := opt.Options
	copt.Out = dir
	check, runErr := Run(ctx, c, t, opt.Mode, copt)
	if ctx.Err() != nil {
		return check, runErr
	}
	// the simulated twin of the emulated runs: a few small simulations,
	// run in either mode so that the fidelity table has its side
	full, err := campaign.Load(path)
	if err != nil {
		return check, errors.Join(runErr, err)
	}
	twin, err := Twin(full)
	if err == nil && twin != nil {
		topt := opt.Options
		topt.Out = filepath.Join(dir, TwinDir)
		if err = campaign.Execute(ctx, twin, topt); err != nil {
			err = fmt.Errorf("the simulated twin of the emulated runs: %w", err)
		}
	}
	return check, errors.Join(runErr, err)
}

// Page builds the reproduction page from whatever results are under Out:
// per paper of Papers its headline table in both modes, its key figure
// (writing the paper's own report into Out/<paper>/report), and the
// fidelity of its emulated runs.
func Page(opt AllOptions) *report.Reproduction {
	r := &report.Reproduction{
		Title: "racklab: the five papers reproduced",
		Dir:   opt.Out,
		Notes: []string{
			"Per paper: its headline table checked against the simulated runs (bench reproduce all) and the emulated ones " +
				"(bench reproduce all --mode local, as root), its key figure as its campaign's report draws it, " +
				"and the fidelity of its emulated runs against their simulated twins. " + Explanation,
		},
	}
	var lines, fidelity []string
	for _, paper := range opt.Papers {
		p, counts := paperSection(filepath.Join(opt.Out, paper), paper, opt.Out)
		r.Papers = append(r.Papers, p)
		lines = append(lines, counts.line(paper))
		fidelity = append(fidelity, counts.fidelityLine(paper))
	}
	r.Summary = "Reproduced: " + strings.Join(lines, "; ")
	r.FidelitySummary = fmt.Sprintf("Fidelity (simulated within %.0f%% of emulated, mean JCT and cross-rack bytes): %s",
		FidelityTolerance*100, strings.Join(fidelity, "; "))
	return r
}

// paperCounts are a paper's numbers for the page's last lines.
type paperCounts struct {
	loaded bool
	// per mode: reproduced and rows checked, and whether the mode has
	// results; the campaign's modes only
	modes []modeCount
	// fidelity: policies within the tolerance, compared, and not run
	within, compared, notRun int
	emulated                 bool // the campaign has emulated runs
}

type modeCount struct {
	mode string
	n, m int
	ran  bool
	// unreadable says the mode's results are there but cannot be read
	// (the section's failures say why): not "not run"
	unreadable bool
}

// unreadableText is a mode's cell and count when its results cannot be
// read.
const unreadableText = "results unreadable (see the failures)"

func modeName(mode string) string {
	switch mode {
	case campaign.ModeSim:
		return "simulation"
	case campaign.ModeLocal:
		return "emulation"
	}
	return mode
}

// line is "dawn 14 of 27 (simulation), 2 of 4 (emulation)".
func (c paperCounts) line(paper string) string {
	if !c.loaded {
		return paper + ": no results"
	}
	var parts []string
	for _, mc := range c.modes {
		if mc.unreadable {
			parts = append(parts, modeName(mc.mode)+" "+unreadableText)
			continue
		}
		if !mc.ran {
			parts = append(parts, modeName(mc.mode)+" not run")
			continue
		}
		parts = append(parts, fmt.Sprintf("%d of %d (%s)", mc.n, mc.m, modeName(mc.mode)))
	}
	return paper + " " + strings.Join(parts, ", ")
}

// fidelityLine is "dawn 2 of 2 policies" or "dawn not run".
func (c paperCounts) fidelityLine(paper string) string {
	switch {
	case !c.loaded:
		return paper + " no results"
	case !c.emulated:
		return paper + " no emulated runs"
	case c.compared == 0:
		return paper + " not run"
	}
	return fmt.Sprintf("%s %d of %d policies", paper, c.within, c.compared)
}

// paperSection is a paper's section of the page, from its result
// directory dir.
func paperSection(dir, paper, pageDir string) (report.ReproducedPaper, paperCounts) {
	p := report.ReproducedPaper{Name: paper, PassColumn: -1}
	var counts paperCounts
	for _, mode := range report.Modes {
		if b, err := os.ReadFile(failedFile(dir, mode)); err == nil {
			p.Failures = append(p.Failures, fmt.Sprintf("mode %s: %s", mode, strings.TrimSpace(string(b))))
		}
	}
	path := filepath.Join(dir, "campaign.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		why := "no results in " + dir
		if !errors.Is(err, fs.ErrNotExist) {
			why = err.Error()
		}
		p.Headlines.Summary = paper + ": " + why
		p.FigureNote = "No figure: " + why + "."
		p.Fidelity.Summary = "fidelity: " + why
		return p, counts
	}
	c, err := campaign.Parse(path, data)
	var t *Table
	if err == nil {
		c.Path = path
		if t, err = Parse(c); err == nil && t == nil {
			err = fmt.Errorf("%s has no headlines section", path)
		}
	}
	if err != nil {
		p.Failures = append(p.Failures, err.Error())
		p.Headlines.Summary = paper + ": its campaign cannot be read"
		p.FigureNote = "No figure: the campaign cannot be read."
		p.Fidelity.Summary = "fidelity: the campaign cannot be read"
		return p, counts
	}
	counts.loaded = true
	p.Title = t.Title
	headlines(&p, &counts, c, t, dir)
	keyFigure(&p, dir, paper, pageDir)
	fidelitySection(&p, &counts, c, dir)
	return p, counts
}

// hasResults says whether any result set of a mode's run sets is in dir.
func hasResults(c *campaign.Campaign, dir, mode string) bool {
	for _, rs := range c.Runs {
		if rs.Mode != mode {
			continue
		}
		workloads := rs.Workloads
		if len(workloads) == 0 {
			workloads = []string{""}
		}
		for _, wl := range workloads {
			if _, err := os.Stat(filepath.Join(campaign.SetDir(dir, rs.Dir(), wl), "summary.csv")); err == nil {
				return true
			}
		}
	}
	return false
}

// headlines fills the section's headline table: a row per headline, its
// simulated and emulated effect and verdict side by side.
func headlines(p *report.ReproducedPaper, counts *paperCounts, c *campaign.Campaign, t *Table, dir string) {
	type modeCheck struct {
		mode  string
		ran   bool
		byRow map[int]*Result // by the row's index in the table
		// unreadable: results there that Evaluate could not read
		unreadable bool
	}
	var checks []modeCheck
	var notes []string
	for _, mode := range []string{campaign.ModeSim, campaign.ModeLocal} {
		if !slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool { return rs.Mode == mode }) {
			continue
		}
		mc := modeCheck{mode: mode, ran: hasResults(c, dir, mode), byRow: map[int]*Result{}}
		count := modeCount{mode: mode, ran: mc.ran}
		ch, err := Evaluate(c, t, dir, mode)
		if err != nil {
			p.Failures = append(p.Failures, fmt.Sprintf("checking mode %s: %v", mode, err))
			count.unreadable, mc.unreadable = true, true
		} else {
			ch.OwnRows(c)
			for i := range ch.Results {
				mc.byRow[ch.Results[i].Index] = &ch.Results[i]
			}
			count.n, count.m = ch.Counts()
			if d := ch.directionOnly(); d > 0 && mc.ran {
				notes = append(notes, fmt.Sprintf("%s: %d of the rows reproduced are checked on direction only (no figure in the source).", modeName(mode), d))
			}
		}
		checks = append(checks, mc)
		counts.modes = append(counts.modes, count)
	}
	h := &p.Headlines
	h.Columns = []string{"#", "metric", "policy vs baseline", "paper figure", "paper"}
	named := c.Named()
	if named {
		h.Columns = slices.Insert(h.Columns, 1, "in")
	}
	for _, mc := range checks {
		h.Columns = append(h.Columns, modeName(mc.mode), modeName(mc.mode)+" verdict")
	}
	for i, row := range t.Rows {
		var first *Result
		cells := []string{}
		var found []modeText
		for _, mc := range checks {
			r := mc.byRow[i]
			if r == nil && mc.unreadable && checkedIn(c, mc.mode, row) && runsRowWorkload(c, mc.mode, row) {
				// a row of the mode, for all that can be told: its
				// results are what could not be read
				r = &Result{Row: row}
			}
			switch {
			case mc.unreadable && r != nil:
				cells = append(cells, "–", unreadableText)
			case r == nil:
				cells = append(cells, "–", "not a row of "+modeName(mc.mode))
			case !mc.ran:
				cells = append(cells, "–", "not run")
			default:
				cells = append(cells, r.MeasuredText(), r.VerdictText())
				if f := r.FoundText(mc.mode); f != "" {
					found = append(found, modeText{mc.mode, f})
				}
			}
			if first == nil {
				first = r
			}
		}
		if first == nil {
			continue // a row of no mode the campaign has
		}
		out := []string{fmt.Sprint(i + 1), row.MetricText(), first.label(), row.Figure, row.PaperText()}
		if named {
			out = slices.Insert(out, 1, row.In)
		}
		h.Rows = append(h.Rows, append(append(out, cells...), foundCell(found)))
	}
	*h = withFound(*h)
	h.Notes = append(h.Notes, t.Note)
	h.Notes = append(h.Notes, notes...)
	var parts []string
	for _, mc := range counts.modes {
		if mc.unreadable {
			parts = append(parts, fmt.Sprintf("%s: %s", modeName(mc.mode), unreadableText))
			continue
		}
		if !mc.ran {
			parts = append(parts, fmt.Sprintf("%s not run (%d rows)", modeName(mc.mode), mc.m))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d of %d headlines reproduced in %s", mc.n, mc.m, modeName(mc.mode)))
	}
	h.Summary = c.Name + ": " + strings.Join(parts, "; ")
}

// modeText is a text of one mode.
type modeText struct{ mode, text string }

// foundCell is a row's found texts on the page: one text when every mode
// has the same, else each with its mode's name.
func foundCell(found []modeText) string {
	if len(found) == 0 {
		return ""
	}
	if !slices.ContainsFunc(found, func(f modeText) bool { return f.text != found[0].text }) {
		return found[0].text
	}
	parts := make([]string, len(found))
	for i, f := range found {
		parts[i] = modeName(f.mode) + ": " + f.text
	}
	return strings.Join(parts, " ")
}

// keyFigure writes the paper's own report (as `bench report` does) and
// takes its key figure from it.
func keyFigure(p *report.ReproducedPaper, dir, paper, pageDir string) {
	r, err := PaperReport(dir)
	if err != nil {
		p.FigureNote = fmt.Sprintf("No figure: the paper's report: %v.", err)
		p.Failures = append(p.Failures, fmt.Sprintf("the paper's report: %v", err))
		return
	}
	p.Report = filepath.ToSlash(mustRel(pageDir, r.HTMLPath))
	figures := r.Figures()
	for _, id := range KeyFigures[paper] {
		for _, f := range figures {
			if f.ID == id && f.NoData == "" {
				p.Figure = f
				return
			}
		}
	}
	want := strings.Join(KeyFigures[paper], " or ")
	if want == "" {
		want = "no key figure chosen for " + paper
	}
	for _, f := range figures {
		if f.NoData == "" {
			p.Figure = f
			p.FigureNote = fmt.Sprintf("The report has no %s with data: its first figure instead.", want)
			return
		}
	}
	p.FigureNote = fmt.Sprintf("No figure: the report has no %s, and no figure with data.", want)
}

// mustRel is path relative to dir when it has such a form, else path.
func mustRel(dir, path string) string {
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	if rel, err := filepath.Rel(absDir, absPath); err == nil {
		return rel
	}
	return path
}

// PaperReport writes the report of a paper's result directory into
// dir/report, as `bench report dir` does (ReportOptions).
func PaperReport(dir string) (*report.Report, error) {
	opt, err := ReportOptions(dir)
	if err != nil {
		return nil, err
	}
	return report.Generate(dir, opt)
}

// ReportOptions are what a campaign's result directory tells its report:
// its headline tables, its planned runs, result sets, workloads and
// sweeps, and what is not as its runs left it
// (campaign.ResultDirProblems).
func ReportOptions(dir string) (report.Options, error) {
	var opt report.Options
	var err error
	if opt.Headlines, err = ForResultDir(dir); err != nil {
		return opt, fmt.Errorf("headlines: %w", err)
	}
	if opt.PlannedRuns, err = campaign.PlannedRuns(dir); err != nil {
		return opt, err
	}
	if opt.Workloads, err = campaign.ResultDirWorkloads(dir); err != nil {
		return opt, err
	}
	if opt.Sweeps, err = campaign.ResultDirSweeps(dir); err != nil {
		return opt, err
	}
	if opt.Problems, err = campaign.ResultDirProblems(dir); err != nil {
		return opt, err
	}
	if opt.ResultSets, err = campaign.ResultDirSets(dir); err != nil {
		return opt, err
	}
	return opt, nil
}
