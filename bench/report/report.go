package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/racklab/racklab/internal/safefile"
)

// Options steer Generate.
type Options struct {
	// Baseline is the policy the others are compared with; default: the
	// first policy of each summary.csv.
	Baseline string
	// OutDir is where the report goes; default DIR/report.
	OutDir string
	// Title heads the report; default "racklab report: <DIR's name>".
	Title string
	// Headlines are the paper's headline tables checked against the
	// campaign's results (bench/reproduce builds them); the report shows
	// them in a section of their own.
	Headlines []Headlines
	// PlannedRuns is how many runs the campaign plans (0: unknown); the
	// header says when the report holds fewer.
	PlannedRuns int
	// Workloads are a campaign's named workloads in its file's order:
	// the order of their sections and of the figures' groups. Workload
	// directories not listed come after them, by name.
	Workloads []string
	// Sweeps are a campaign's sweeps: each a figure, per mode that runs
	// its workloads, of policies' gains over a baseline against the
	// parameter the workloads vary.
	Sweeps []Sweep
	// ResultSets are the result sets a campaign plans, as paths under its
	// directory with slashes ("sim", "sim/ml"): those without a finished
	// run yet are named in the header. Nil: those found without one.
	ResultSets []string
	// Problems are what was found not as the runs left it (records
	// changed since their run, summary.csv rows that are not a finished
	// run's; bench/campaign.ResultDirProblems), one line each: the header
	// lists them, since the figures are read as the files are now.
	Problems []string
}

// Headlines is a paper's headline table checked against one mode of a
// campaign, as text cells: the report shows it as it is given.
type Headlines struct {
	Title   string
	Notes   []string // paragraphs under the title
	Columns []string
	Rows    [][]string
	// Summary is the closing line, "<paper>: N of M headlines reproduced".
	Summary string
}

// Report is a generated report: where its files are, and what it computed.
type Report struct {
	Dir    string // the input directory
	OutDir string
	Title  string
	// HTMLPath and MarkdownPath are report.html and report.md.
	HTMLPath, MarkdownPath string
	// Campaign is true when Dir is a campaign of modes, false when it is
	// one result set.
	Campaign bool
	// Meta is meta.json of a campaign, keys in file order.
	Meta []KV
	// CampaignYAML is the text of campaign.yaml, if there is one.
	CampaignYAML string
	Headlines    []Headlines
	// Comparisons set the named workloads of a mode side by side, ahead
	// of the Modes (one per run set of named workloads), then draw the
	// sweeps over a mode's run sets (one per mode that has any).
	Comparisons []*Comparison
	Modes       []*Mode
	PlannedRuns int // see Options.PlannedRuns and Partial
	Problems    []string
	// NotStarted are the result sets of the campaign with no finished
	// run yet (no summary.csv), by their directory under Dir.
	NotStarted []string
}

// Comparison is the part of the report that compares the policies
// across a mode's named workloads: the paper's Fig. 11 (throughput, mean
// workload completion time, cross-rack bytes per workload, grouped by
// workload) and Fig. 12 (cross-rack bytes by category, per workload),
// then the figures of the campaign's sweeps over them (Options.Sweeps).
//
// A comparison across run sets (OverRunSets) holds instead the figures
// of a mode's sweeps whose points are run sets; Sets are the result sets
// they draw on.
type Comparison struct {
	Mode        string
	Workloads   []string
	Figures     []*Figure
	OverRunSets bool
	// SideBySide says the comparison sets a mode's run sets of one
	// workload side by side (a local campaign's switched and flat
	// networks): per-rack cross-rack throughput over time and per-job
	// completion times, in one policy's run of one seed in each.
	SideBySide bool
	Sets       []*Mode
	// Fidelity says the comparison is of a campaign's live runs with
	// their simulations and replays (fidelity.csv, bench fidelity); Note
	// sums it up.
	Fidelity bool
	Note     string
}

// Title heads the comparison's section.
func (c *Comparison) Title() string {
	if c.Fidelity {
		return "Fidelity: live runs simulated and replayed"
	}
	if c.SideBySide {
		return "Mode: " + c.Mode + ", run sets side by side"
	}
	if c.OverRunSets {
		return "Mode: " + c.Mode + ", sweeps across run sets"
	}
	return "Mode: " + c.Mode + ", workloads side by side"
}

// Anchor is the section's HTML id.
func (c *Comparison) Anchor() string {
	if c.Fidelity {
		return "fidelity"
	}
	if c.SideBySide {
		return "runsets-" + c.Mode
	}
	if c.OverRunSets {
		return "sweeps-" + c.Mode
	}
	return "workloads-" + c.Mode
}

// Mode is the part of the report about one result set.
type Mode struct {
	// Name is the campaign mode (sim, local, remote); "" for a lone result
	// set.
	Name string
	// RunSet is the name of a named run set of the mode (its results are
	// in <mode>-<name>/); "" for the mode's unnamed one.
	RunSet string
	// Workload is the named workload of the result set; "" when the
	// campaign has one workload.
	Workload string
	Set      *ResultSet
	Baseline string
	Tables   []Table
	Figures  []*Figure
}

// Title heads the mode's section: "Mode: sim", "Mode: sim, workload:
// ml", "Mode: sim, run set: varys[, workload: ml]", or "Results" for a
// lone result set.
func (m *Mode) Title() string {
	t := "Mode: " + m.Name
	switch {
	case m.Name == "":
		return "Results"
	case m.RunSet != "":
		t += ", run set: " + m.RunSet
	}
	if m.Workload != "" {
		t += ", workload: " + m.Workload
	}
	return t
}

// setDir is the result set's directory in the campaign: the mode, or
// <mode>-<run set>.
func (m *Mode) setDir() string {
	if m.RunSet == "" {
		return m.Name
	}
	return m.Name + "-" + m.RunSet
}

// Anchor is the section's HTML id.
func (m *Mode) Anchor() string {
	switch {
	case m.Name == "":
		return "results"
	case m.Workload == "":
		return "mode-" + m.setDir()
	}
	return "mode-" + m.setDir() + "-" + m.Workload
}

// Label is what figure titles start with: "sim", "sim/ml", "sim-varys",
// "sim-varys/ml", or "".
func (m *Mode) Label() string {
	if m.Workload == "" {
		return m.setDir()
	}
	return m.setDir() + "/" + m.Workload
}

// Figures lists every figure of the report, in order.
func (r *Report) Figures() []*Figure {
	var out []*Figure
	for _, c := range r.Comparisons {
		out = append(out, c.Figures...)
	}
	for _, m := range r.Modes {
		out = append(out, m.Figures...)
	}
	return out
}

// Table finds a mode's table of a metric family by its ID.
func (m *Mode) Table(family string) *Table {
	for i := range m.Tables {
		if m.Tables[i].Family.ID == family {
			return &m.Tables[i]
		}
	}
	return nil
}

// Row finds a row of a mode's tables by metric key and policy.
func (m *Mode) Row(key, policy string) *Row {
	for i := range m.Tables {
		for j := range m.Tables[i].Rows {
			r := &m.Tables[i].Rows[j]
			if r.Metric.Key == key && r.Policy == policy {
				return r
			}
		}
	}
	return nil
}

// Generate reads a result set or a campaign directory, and writes into
// the output directory report.html, report.md and every figure as
// <mode>-<figure>.svg and .png (<figure>.svg and .png for a lone result
// set).
func Generate(dir string, opt Options) (*Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err // "stat DIR: no such file or directory"
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	r := &Report{Dir: dir, OutDir: opt.OutDir, Title: opt.Title, Headlines: opt.Headlines, PlannedRuns: opt.PlannedRuns, Problems: opt.Problems}
	if r.OutDir == "" {
		r.OutDir = filepath.Join(dir, "report")
	}
	if r.Title == "" {
		r.Title = "racklab report: " + filepath.Base(abs)
	}
	type modeDir struct{ name, runSet, workload, dir string }
	var sets []modeDir
	if isFile(filepath.Join(dir, "summary.csv")) {
		sets = append(sets, modeDir{"", "", "", dir})
	} else {
		r.Campaign = true
		for _, m := range Modes {
			runSets, err := runSetDirs(dir, m)
			if err != nil {
				return nil, err
			}
			for _, rs := range runSets {
				md := filepath.Join(dir, m)
				if rs != "" {
					md += "-" + rs
				}
				workloads, err := workloadDirs(md, opt.Workloads)
				if err != nil {
					return nil, err
				}
				if len(workloads) == 0 {
					// one workload, or no run finished yet
					sets = append(sets, modeDir{m, rs, "", md})
				}
				for _, wl := range workloads {
					sets = append(sets, modeDir{m, rs, wl, filepath.Join(md, wl)})
				}
			}
		}
		if len(sets) == 0 {
			return nil, fmt.Errorf("%s: neither a result set (no summary.csv) nor a campaign (no %s subdirectory)",
				dir, strings.Join(Modes, "/, ")+"/")
		}
		if p := filepath.Join(dir, "meta.json"); isFile(p) {
			if r.Meta, err = LoadMeta(p); err != nil {
				return nil, err
			}
		}
		if p := filepath.Join(dir, "campaign.yaml"); isFile(p) {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			r.CampaignYAML = string(b)
		}
	}
	// read every input before drawing anything, so that a bad file fails
	// fast
	var inputs []*figureInput
	for _, sd := range sets {
		if r.Campaign && !isFile(filepath.Join(sd.dir, "summary.csv")) {
			// no run of the set has finished: the header says so (from
			// the campaign's plan, when given, below)
			if opt.ResultSets == nil {
				rel, err := filepath.Rel(dir, sd.dir)
				if err != nil {
					rel = sd.dir
				}
				r.NotStarted = append(r.NotStarted, filepath.ToSlash(rel))
			}
			continue
		}
		m, in, err := loadMode(sd.name, sd.dir, opt.Baseline)
		if err != nil {
			return nil, err
		}
		m.Workload, in.workload = sd.workload, sd.workload
		m.RunSet, in.runSet = sd.runSet, sd.runSet
		r.Modes = append(r.Modes, m)
		inputs = append(inputs, in)
	}
	if opt.ResultSets != nil {
		// the plan names the sets whose directory is not there yet too
		for _, set := range opt.ResultSets {
			if !isFile(filepath.Join(dir, filepath.FromSlash(set), "summary.csv")) {
				r.NotStarted = append(r.NotStarted, set)
			}
		}
	}
	if len(r.Modes) == 0 {
		planned := ""
		if r.PlannedRuns > 0 {
			planned = fmt.Sprintf(" (0 of %d runs done)", r.PlannedRuns)
		}
		return nil, fmt.Errorf("%s: no run of the campaign has finished yet%s: there is nothing to report", dir, planned)
	}
	for i, m := range r.Modes {
		if err := m.draw(inputs[i]); err != nil {
			return nil, err
		}
	}
	// the workloads of each run set side by side, and the sweeps over them
	for i := 0; i < len(r.Modes); {
		j := i
		var group []*figureInput
		for ; j < len(r.Modes) && r.Modes[j].setDir() == r.Modes[i].setDir(); j++ {
			if r.Modes[j].Workload != "" {
				group = append(group, inputs[j])
			}
		}
		if len(group) > 0 {
			c, err := compare(r.Modes[i].setDir(), group)
			if err != nil {
				return nil, err
			}
			sweeps, err := sweepFigures(r.Modes[i].Name, r.Modes[i].setDir(), group, opt.Sweeps)
			if err != nil {
				return nil, err
			}
			c.Figures = append(c.Figures, sweeps...)
			r.Comparisons = append(r.Comparisons, c)
		}
		i = j
	}
	// the sweeps over each mode's run sets
	for _, mode := range Modes {
		var sets []*figureInput
		var modes []*Mode
		for i, m := range r.Modes {
			if m.Name == mode {
				sets, modes = append(sets, inputs[i]), append(modes, m)
			}
		}
		c, err := runSetSweeps(mode, sets, modes, opt.Sweeps)
		if err != nil {
			return nil, err
		}
		if c != nil {
			r.Comparisons = append(r.Comparisons, c)
		}
		if mode != sideBySideMode {
			continue
		}
		if c, err = runSetsSideBySide(mode, sets, modes); err != nil {
			return nil, err
		}
		if c != nil {
			r.Comparisons = append(r.Comparisons, c)
		}
	}
	if r.Campaign {
		c, err := fidelityComparison(dir)
		if err != nil {
			return nil, err
		}
		if c != nil {
			r.Comparisons = append(r.Comparisons, c)
		}
	}
	if err := os.MkdirAll(r.OutDir, 0o755); err != nil {
		return nil, err
	}
	// what a report killed while it wrote a file left; the report holds
	// no lock, so only files too old to be another report's at work, and
	// only of names it writes (the directory may be any)
	if _, err := safefile.RemoveStaleTemps(r.OutDir, 10*time.Minute, reportFile); err != nil {
		return nil, err
	}
	n := 0
	for _, f := range r.Figures() {
		n++
		f.Number = n
		svg, png := filepath.Join(r.OutDir, f.ID+".svg"), filepath.Join(r.OutDir, f.ID+".png")
		if f.NoData != "" {
			// an earlier report's image of this figure would not be
			// what this report says
			for _, p := range []string{svg, png} {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					return nil, err
				}
			}
			continue
		}
		f.SVGPath, f.PNGPath = svg, png
		if err := safefile.WriteFile(f.SVGPath, f.SVG, 0o644); err != nil {
			return nil, err
		}
		if err := safefile.WriteFile(f.PNGPath, f.PNG, 0o644); err != nil {
			return nil, err
		}
	}
	r.HTMLPath = filepath.Join(r.OutDir, "report.html")
	r.MarkdownPath = filepath.Join(r.OutDir, "report.md")
	html, err := r.HTML()
	if err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(r.HTMLPath, html, 0o644); err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(r.MarkdownPath, r.Markdown(), 0o644); err != nil {
		return nil, err
	}
	return r, nil
}

// runSetDirs lists a mode's run sets in a campaign's directory dir: ""
// for <mode>/ (the unnamed run set) if it is there, then the names of the
// named ones, <mode>-<name>/, by name.
func runSetDirs(dir, mode string) ([]string, error) {
	var out []string
	if isDir(filepath.Join(dir, mode)) {
		out = append(out, "")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries { // ReadDir sorts by name
		if name, ok := strings.CutPrefix(e.Name(), mode+"-"); ok && name != "" && isDir(filepath.Join(dir, e.Name())) {
			out = append(out, name)
		}
	}
	return out, nil
}

// workloadDirs lists the named workloads' result sets in a mode's
// directory: its subdirectories with a summary.csv, when it has none of
// its own; those of order first, in that order, then the others by name.
func workloadDirs(modeDir string, order []string) ([]string, error) {
	if isFile(filepath.Join(modeDir, "summary.csv")) {
		return nil, nil
	}
	entries, err := os.ReadDir(modeDir)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, e := range entries {
		if e.IsDir() && isFile(filepath.Join(modeDir, e.Name(), "summary.csv")) {
			found = append(found, e.Name())
		}
	}
	var out []string
	for _, wl := range order {
		if slices.Contains(found, wl) {
			out = append(out, wl)
		}
	}
	for _, wl := range found {
		if !slices.Contains(out, wl) {
			out = append(out, wl)
		}
	}
	return out, nil
}

// loadMode reads a result set and computes its tables.
func loadMode(name, dir, baseline string) (*Mode, *figureInput, error) {
	set, err := LoadResultSet(dir)
	if err != nil {
		return nil, nil, err
	}
	m := &Mode{Name: name, Set: set, Baseline: baseline}
	if m.Baseline == "" {
		m.Baseline = set.Policies[0]
	} else if !slices.Contains(set.Policies, m.Baseline) {
		return nil, nil, fmt.Errorf("%s: baseline policy %q has no runs (policies: %s)",
			filepath.Join(dir, "summary.csv"), m.Baseline, strings.Join(set.Policies, ", "))
	}
	m.Tables = Tables(set, m.Baseline)
	in := &figureInput{mode: name, set: set, baseline: m.Baseline,
		jcts: map[string][]float64{}, links: map[string]*LinkSeries{}, linkSeed: map[string]uint64{}}
	for _, run := range set.Runs {
		xs, err := LoadJCTs(run.Dir)
		if err != nil {
			return nil, nil, err
		}
		in.jcts[run.Policy] = append(in.jcts[run.Policy], xs...)
		if _, done := in.links[run.Policy]; !done {
			if in.links[run.Policy], err = LoadLinks(run.Dir); err != nil {
				return nil, nil, err
			}
			in.linkSeed[run.Policy] = run.Seed
		}
	}
	return m, in, nil
}

// draw renders a mode's figures.
func (m *Mode) draw(in *figureInput) error {
	specs, err := in.figures()
	if err != nil {
		return err
	}
	name := m.Label()
	prefix := ""
	if name != "" {
		prefix = strings.ReplaceAll(name, "/", "-") + "-"
	}
	for _, s := range specs {
		f, err := makeFigure(prefix, name, s)
		if err != nil {
			return fmt.Errorf("%s: figure %s: %w", m.Set.Dir, s.stem, err)
		}
		f.Mode = m.Name
		m.Figures = append(m.Figures, f)
	}
	return nil
}

// makeFigure renders a figure: its ID is prefix and the stem, its title
// starts with label.
func makeFigure(prefix, label string, s figureSpec) (*Figure, error) {
	title := s.title
	if label != "" {
		title = label + ": " + title
	}
	f := &Figure{ID: prefix + s.stem, Title: title, Caption: s.caption, Alt: s.alt, NoData: s.noData}
	if f.NoData == "" {
		svg, png, err := render(s.grid, s.w, s.h)
		if err != nil {
			return nil, err
		}
		f.SVG, f.PNG = svg, png
		f.Width, f.Height = int(s.w.Points()*96/72), int(s.h.Points()*96/72)
	}
	return f, nil
}

// reportFile says whether a file name is one the report writes: its
// pages and its figures.
func reportFile(name string) bool {
	switch filepath.Ext(name) {
	case ".svg", ".png":
		return true
	}
	return name == "report.html" || name == "report.md"
}
