package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/fidelity"
	"github.com/racklab/racklab/bench/report"
)

// FidelityRow compares a policy's emulated runs in one run set and
// workload with their simulated twins (Twin), over the seeds both have.
type FidelityRow struct {
	// RunSet is the emulated run set's directory (local, local-emu).
	RunSet   string
	Workload string
	Policy   string
	// Seeds are the seeds of both; Missing the emulated seeds with no
	// simulated twin.
	Seeds, Missing []uint64
	// The means over Seeds of each side's mean JCT (s) and cross-rack
	// bytes (the engine's account, cross_rack_bytes), and the ratios
	// simulated / emulated (NaN when undefined).
	EmuJCT, SimJCT, EmuBytes, SimBytes float64
	JCTRatio, BytesRatio               float64
	// Compared says both sides have runs to compare; Why says otherwise
	// why not.
	Compared bool
	Why      string
	// Common says, per seed where a side left jobs unfinished or failed
	// (a run cut at its window), over which jobs that seed was compared:
	// those that succeeded in both, whose mean JCT and cross-rack bytes
	// (the engine's, attempts.csv) stand for the run's.
	Common []string
	// Within says both ratios are within FidelityTolerance of 1 (equal
	// cross-rack bytes of 0 agree).
	Within bool
}

// Fidelity compares every emulated run of a campaign's result directory
// dir with its simulated twin in dir/twin: a row per local run set,
// workload and policy, in campaign order.
func Fidelity(c *campaign.Campaign, dir string) ([]FidelityRow, error) {
	var rows []FidelityRow
	twinDir := filepath.Join(dir, TwinDir)
	for _, rs := range c.Runs {
		if rs.Mode != campaign.ModeLocal {
			continue
		}
		simSet := campaign.RunSet{Mode: campaign.ModeSim, Name: rs.Name}
		workloads := rs.Workloads
		if len(workloads) == 0 {
			workloads = []string{""}
		}
		for _, wl := range workloads {
			emu, err := loadIfAny(campaign.SetDir(dir, rs.Dir(), wl))
			if err != nil {
				return nil, err
			}
			sim, err := loadIfAny(campaign.SetDir(twinDir, simSet.Dir(), wl))
			if err != nil {
				return nil, err
			}
			for _, p := range rs.Policies {
				row := FidelityRow{RunSet: rs.Dir(), Workload: wl, Policy: p.String(),
					EmuJCT: math.NaN(), SimJCT: math.NaN(), EmuBytes: math.NaN(), SimBytes: math.NaN(), JCTRatio: math.NaN(), BytesRatio: math.NaN()}
				compare(&row, emu, sim, c.Seeds(rs))
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// loadIfAny loads a result set, nil when it has no summary.csv.
func loadIfAny(dir string) (*report.ResultSet, error) {
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return report.LoadResultSet(dir)
}

// compare fills a row from the emulated and simulated result sets (nil:
// none) over the campaign's seeds.
func compare(row *FidelityRow, emu, sim *report.ResultSet, seeds []uint64) {
	runOf := func(set *report.ResultSet, seed uint64) *report.Run {
		if set == nil {
			return nil
		}
		for i, r := range set.Runs {
			if r.Policy == row.Policy && r.Seed == seed {
				return &set.Runs[i]
			}
		}
		return nil
	}
	var emuJCT, simJCT, emuBytes, simBytes []float64
	var failed []string
	emulated := 0
	for _, seed := range seeds {
		e := runOf(emu, seed)
		if e == nil {
			continue
		}
		emulated++
		s := runOf(sim, seed)
		if s == nil {
			row.Missing = append(row.Missing, seed)
			continue
		}
		eJCT, sJCT := e.Values["jct_mean_s"], s.Values["jct_mean_s"]
		eBytes, sBytes := e.Values["cross_rack_bytes"], s.Values["cross_rack_bytes"]
		if unfinished(e)+unfinished(s) > 0 {
			c, err := commonJobs(e.Dir, s.Dir)
			if err != nil || c.jobs == 0 {
				failed = append(failed, fmt.Sprintf("seed %d: %.0f jobs failed or unfinished emulated, %.0f simulated, and no job finished in both to compare (%v)",
					seed, unfinished(e), unfinished(s), err))
				continue
			}
			eJCT, sJCT, eBytes, sBytes = c.emuJCT, c.simJCT, c.emuBytes, c.simBytes
			row.Common = append(row.Common, fmt.Sprintf("seed %d: %d jobs finished in both (emulated %d of %d, simulated %d of %d)",
				seed, c.jobs, c.emuDone, c.total, c.simDone, c.total))
		}
		row.Seeds = append(row.Seeds, seed)
		emuJCT, simJCT = append(emuJCT, eJCT), append(simJCT, sJCT)
		emuBytes, simBytes = append(emuBytes, eBytes), append(simBytes, sBytes)
	}
	switch {
	case emulated == 0:
		row.Why = "not run (no emulated results)"
		return
	case len(failed) > 0:
		row.Why = "not compared: " + strings.Join(failed, "; ")
		return
	case len(row.Seeds) == 0:
		row.Why = "no simulated twin (run bench reproduce all)"
		return
	}
	row.Compared = true
	row.EmuJCT, row.SimJCT = mean(emuJCT), mean(simJCT)
	row.EmuBytes, row.SimBytes = mean(emuBytes), mean(simBytes)
	row.JCTRatio = ratio(row.SimJCT, row.EmuJCT)
	row.BytesRatio = ratio(row.SimBytes, row.EmuBytes)
	bytesAgree := within(row.BytesRatio) || row.SimBytes == 0 && row.EmuBytes == 0
	row.Within = within(row.JCTRatio) && bytesAgree
}

// unfinished is a run's count of failed and unfinished jobs.
func unfinished(r *report.Run) float64 {
	return r.Values["failed_jobs"] + r.Values["unfinished_jobs"]
}

// common are the figures of the jobs that succeeded in both of an
// emulated run and its twin.
type common struct {
	jobs, total, emuDone, simDone int
	emuJCT, simJCT                float64 // mean JCT of those jobs (s)
	emuBytes, simBytes            float64 // their attempts' cross-rack bytes
}

// commonJobs compares an emulated run with its twin over the jobs that
// succeeded in both (fidelity.LoadJobs: jobs.csv and attempts.csv).
func commonJobs(emuDir, simDir string) (common, error) {
	var c common
	emu, err := fidelity.LoadJobs(emuDir)
	if err != nil {
		return c, err
	}
	sim, err := fidelity.LoadJobs(simDir)
	if err != nil {
		return c, err
	}
	c.total = len(emu)
	for job, e := range emu {
		s, ok := sim[job]
		if !math.IsNaN(e.JCT) {
			c.emuDone++
		}
		if ok && !math.IsNaN(s.JCT) {
			c.simDone++
		}
		if !ok || math.IsNaN(e.JCT) || math.IsNaN(s.JCT) {
			continue
		}
		c.jobs++
		c.emuJCT += e.JCT
		c.simJCT += s.JCT
		c.emuBytes += float64(e.CrossBytes)
		c.simBytes += float64(s.CrossBytes)
	}
	if c.jobs > 0 {
		c.emuJCT /= float64(c.jobs)
		c.simJCT /= float64(c.jobs)
	}
	return c, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ratio is x / y, NaN when y is 0 or either is not finite.
func ratio(x, y float64) float64 {
	if y == 0 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.NaN()
	}
	return x / y
}

// within says a ratio is within FidelityTolerance of 1 (a small margin
// for the rounding of the summaries' figures).
func within(r float64) bool {
	return !math.IsNaN(r) && math.Abs(r-1) <= FidelityTolerance+1e-9
}

// Verdict is the row's pass/fail cell: "pass", "fail: JCT 1.27×", or why
// it was not compared.
func (r *FidelityRow) Verdict() string {
	if !r.Compared {
		return r.Why
	}
	if r.Within {
		if len(r.Common) > 0 {
			return "pass (jobs finished in both)"
		}
		return "pass"
	}
	var off []string
	if !within(r.JCTRatio) {
		off = append(off, "JCT "+ratioText(r.JCTRatio))
	}
	if !within(r.BytesRatio) && (r.SimBytes != 0 || r.EmuBytes != 0) {
		off = append(off, "cross-rack bytes "+ratioText(r.BytesRatio))
	}
	return "fail: " + strings.Join(off, ", ")
}

func ratioText(r float64) string {
	if math.IsNaN(r) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", r)
}

func seedsText(seeds []uint64) string {
	var s []string
	for _, x := range seeds {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

// fidelitySection fills the section's fidelity table.
func fidelitySection(p *report.ReproducedPaper, counts *paperCounts, c *campaign.Campaign, dir string) {
	f := &p.Fidelity
	counts.emulated = slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool { return rs.Mode == campaign.ModeLocal })
	if !counts.emulated {
		f.Summary = "fidelity: the campaign has no emulated runs"
		return
	}
	rows, err := Fidelity(c, dir)
	if err != nil {
		p.Failures = append(p.Failures, fmt.Sprintf("fidelity: %v", err))
		f.Summary = "fidelity: the results cannot be read"
		return
	}
	f.Notes = []string{fmt.Sprintf("Each emulated run (mode local) against its simulated twin: the same run set, workload, policy and seed, "+
		"run by the simulator (%s/ in the paper's result directory), each policy choosing for itself (nothing replayed). "+
		"Means over the seeds both have; ratio = simulated / emulated; pass: both ratios within %.0f%% of 1 "+
		"(cross-rack bytes of 0 in both agree). Cross-rack bytes are the engine's count of bytes moved between racks "+
		"(cross_rack_bytes), one account in both modes.", TwinDir, FidelityTolerance*100)}
	f.Columns = []string{"run set", "workload", "policy", "seeds", "mean JCT emulated", "mean JCT simulated", "JCT sim/emu",
		"cross-rack emulated", "cross-rack simulated", "cross-rack sim/emu", fmt.Sprintf("within %.0f%%", FidelityTolerance*100)}
	p.PassColumn = len(f.Columns) - 1
	num := func(x float64, format func(float64) string) string {
		if math.IsNaN(x) {
			return "–"
		}
		return format(x)
	}
	seconds := func(x float64) string { return report.FormatNumber(x, 2) + " s" }
	for _, r := range rows {
		wl := r.Workload
		if wl == "" {
			wl = "–"
		}
		seeds := seedsText(r.Seeds)
		if len(r.Missing) > 0 {
			seeds += " (no twin of " + seedsText(r.Missing) + ")"
		}
		if len(r.Common) > 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("%s %s %s: jobs were left unfinished or failed, so the figures are those of the jobs that finished in both (%s).",
				r.RunSet, wl, r.Policy, strings.Join(r.Common, "; ")))
		}
		f.Rows = append(f.Rows, []string{r.RunSet, wl, r.Policy, seeds,
			num(r.EmuJCT, seconds), num(r.SimJCT, seconds), num(r.JCTRatio, ratioText),
			num(r.EmuBytes, report.FormatBytes), num(r.SimBytes, report.FormatBytes), num(r.BytesRatio, ratioText), r.Verdict()})
		switch {
		case r.Compared:
			counts.compared++
			if r.Within {
				counts.within++
			}
		case r.Why != "" && strings.HasPrefix(r.Why, "not run"):
			counts.notRun++
		default:
			counts.compared++ // compared and could not agree: a failure to show
		}
	}
	if counts.compared == 0 {
		f.Summary = fmt.Sprintf("fidelity: emulation not run (%d emulated policies to compare)", counts.notRun)
		return
	}
	f.Summary = fmt.Sprintf("fidelity: %d of %d emulated policies within %.0f%% of their simulated twins", counts.within, counts.compared, FidelityTolerance*100)
	if counts.notRun > 0 {
		f.Summary += fmt.Sprintf(" (%d not run)", counts.notRun)
	}
}
