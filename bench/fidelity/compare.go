package fidelity

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/internal/safefile"
)

// JobFigures are one job's figures in one run: its completion time (NaN
// unless it succeeded) and the cross-rack bytes its attempts moved, by
// the engine's accounting (attempts.csv's cross_bytes, summed).
type JobFigures struct {
	JCT        float64
	CrossBytes int64
}

// LoadJobs reads a run directory's jobs.csv and attempts.csv.
func LoadJobs(runDir string) (map[string]JobFigures, error) {
	out := map[string]JobFigures{}
	err := eachRow(filepath.Join(runDir, "jobs.csv"), []string{"job", "state", "jct_s"}, func(get func(string) string, where string) error {
		f := JobFigures{JCT: math.NaN()}
		if get("state") == "succeeded" {
			x, err := strconv.ParseFloat(get("jct_s"), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				// a finished job's time is a number of seconds: NaN would
				// read as not finished, Inf go into fidelity.csv as +Inf
				return fmt.Errorf("%s: jct_s %q is not a job's time in seconds", where, get("jct_s"))
			}
			f.JCT = x
		}
		out[get("job")] = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(filepath.Join(runDir, "attempts.csv"), []string{"job", "cross_bytes"}, func(get func(string) string, where string) error {
		n, err := strconv.ParseInt(get("cross_bytes"), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s: cross_bytes %q is not a byte count", where, get("cross_bytes"))
		}
		f, ok := out[get("job")]
		if !ok {
			f.JCT = math.NaN()
		}
		if f.CrossBytes > math.MaxInt64-n {
			// a wrapped sum would compare as a negative byte count
			return fmt.Errorf("%s: job %s's cross_bytes add up to more than %d", where, get("job"), int64(math.MaxInt64))
		}
		f.CrossBytes += n
		out[get("job")] = f
		return nil
	})
	return out, err
}

// eachRow calls fn for each row of a CSV file with a header, giving it
// the named columns' cells and the row's file:line.
func eachRow(path string, need []string, fn func(get func(string) string, where string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range need {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s:1: no column %q", path, c)
		}
	}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		if err := fn(func(c string) string { return row[col[c]] }, fmt.Sprintf("%s:%d", path, line)); err != nil {
			return err
		}
	}
}

// Row is one job of one live run, live, simulated and replayed.
type Row struct {
	// Run is the live run's directory under the result directory.
	Run    string
	Policy string
	Seed   uint64
	Job    string
	Live   JobFigures
	Sim    JobFigures
	Replay JobFigures
}

// Compare lines up the jobs of a live run with its simulation and its
// replay (run directories), in the live run's jobs.csv order.
func Compare(run Run, simDir, replayDir string) ([]Row, error) {
	live, err := LoadJobs(run.Run.Dir)
	if err != nil {
		return nil, err
	}
	simJobs, err := LoadJobs(simDir)
	if err != nil {
		return nil, err
	}
	rep, err := LoadJobs(replayDir)
	if err != nil {
		return nil, err
	}
	var names []string
	err = eachRow(filepath.Join(run.Run.Dir, "jobs.csv"), []string{"job"}, func(get func(string) string, _ string) error {
		names = append(names, get("job"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	missing := JobFigures{JCT: math.NaN()}
	var rows []Row
	for _, n := range names {
		row := Row{Run: filepath.ToSlash(run.Rel()), Policy: run.Run.Policy.String(), Seed: run.Run.Seed, Job: n, Live: live[n], Sim: missing, Replay: missing}
		if f, ok := simJobs[n]; ok {
			row.Sim = f
		}
		if f, ok := rep[n]; ok {
			row.Replay = f
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Header is fidelity.csv's header.
var Header = []string{"run", "policy", "seed", "job",
	"jct_live_s", "jct_sim_s", "jct_replay_s", "jct_sim_ratio", "jct_replay_ratio",
	"cross_live_bytes", "cross_sim_bytes", "cross_replay_bytes", "cross_sim_ratio", "cross_replay_ratio"}

// ratio is a/b, NaN when either is NaN or b is 0 (1 when both are 0).
func ratio(a, b float64) float64 {
	if a == 0 && b == 0 {
		return 1
	}
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func cell(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 6, 64)
}

// WriteCSV writes rows as fidelity.csv; an empty cell is a figure a run
// does not have (a job that did not succeed).
func WriteCSV(path string, rows []Row) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		lb, sb, rb := float64(r.Live.CrossBytes), float64(r.Sim.CrossBytes), float64(r.Replay.CrossBytes)
		if err := w.Write([]string{r.Run, r.Policy, strconv.FormatUint(r.Seed, 10), r.Job,
			cell(r.Live.JCT), cell(r.Sim.JCT), cell(r.Replay.JCT), cell(ratio(r.Sim.JCT, r.Live.JCT)), cell(ratio(r.Replay.JCT, r.Live.JCT)),
			strconv.FormatInt(r.Live.CrossBytes, 10), strconv.FormatInt(r.Sim.CrossBytes, 10), strconv.FormatInt(r.Replay.CrossBytes, 10),
			cell(ratio(sb, lb)), cell(ratio(rb, lb))}); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return safefile.WriteFile(path, []byte(b.String()), 0o644)
}

// Tolerances of issue 17's acceptance: a replayed JCT within 15% of the
// live one, per-job bytes within 1%, per-policy means within 15%.
const (
	JCTTolerance   = 0.15
	BytesTolerance = 0.01
	MeanTolerance  = 0.15
)

// PolicyMeans are one policy's mean JCT and mean per-job cross-rack
// bytes over the jobs that succeeded live, simulated and replayed, in
// one result set (Policy is "<set>[/<workload>] <label>").
type PolicyMeans struct {
	Policy                        string
	Jobs                          int
	JCTLive, JCTSim, JCTRep       float64
	CrossLive, CrossSim, CrossRep float64
}

// Summary is the comparison in a few figures.
type Summary struct {
	// Jobs is the number of jobs that succeeded live and in the replay;
	// ReplayWithin of them have a replayed JCT within JCTTolerance of
	// the live one, SimWithin (of SimJobs, those that succeeded live and
	// simulated) a simulated one.
	Jobs, ReplayWithin int
	SimJobs, SimWithin int
	// BytesJobs is the number of jobs of the live runs; BytesEqual of
	// them moved replayed cross-rack bytes within BytesTolerance of the
	// live ones.
	BytesJobs, BytesEqual int
	Policies              []PolicyMeans
}

// within says whether a is within tol of b (a/b in [1-tol, 1+tol], both
// bounds included: the margin keeps 0.85 and 1.01 from falling outside by
// float64 rounding, as bench reproduce's fidelity rule does).
func within(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	if b == 0 {
		return a == 0
	}
	return ratioWithin(a/b, tol)
}

func ratioWithin(r, tol float64) bool { return math.Abs(r-1) <= tol+1e-9 }

// Summarize computes the summary of rows.
func Summarize(rows []Row) Summary {
	var s Summary
	byPolicy := map[string]*PolicyMeans{}
	var order []string
	for _, r := range rows {
		ok := func(x float64) bool { return !math.IsNaN(x) }
		if ok(r.Live.JCT) && ok(r.Replay.JCT) {
			s.Jobs++
			if within(r.Replay.JCT, r.Live.JCT, JCTTolerance) {
				s.ReplayWithin++
			}
		}
		if ok(r.Live.JCT) && ok(r.Sim.JCT) {
			s.SimJobs++
			if within(r.Sim.JCT, r.Live.JCT, JCTTolerance) {
				s.SimWithin++
			}
		}
		s.BytesJobs++
		if within(float64(r.Replay.CrossBytes), float64(r.Live.CrossBytes), BytesTolerance) {
			s.BytesEqual++
		}
		if !(ok(r.Live.JCT) && ok(r.Sim.JCT) && ok(r.Replay.JCT)) {
			continue
		}
		// a policy of each result set (run set and workload) apart: a
		// campaign may run one policy on two emulated networks
		key := r.Policy
		if set := path.Dir(r.Run); set != "." {
			key = set + " " + r.Policy
		}
		m := byPolicy[key]
		if m == nil {
			m = &PolicyMeans{Policy: key}
			byPolicy[key] = m
			order = append(order, key)
		}
		m.Jobs++
		m.JCTLive += r.Live.JCT
		m.JCTSim += r.Sim.JCT
		m.JCTRep += r.Replay.JCT
		m.CrossLive += float64(r.Live.CrossBytes)
		m.CrossSim += float64(r.Sim.CrossBytes)
		m.CrossRep += float64(r.Replay.CrossBytes)
	}
	sort.Strings(order)
	for _, p := range order {
		m := byPolicy[p]
		n := float64(m.Jobs)
		m.JCTLive, m.JCTSim, m.JCTRep = m.JCTLive/n, m.JCTSim/n, m.JCTRep/n
		m.CrossLive, m.CrossSim, m.CrossRep = m.CrossLive/n, m.CrossSim/n, m.CrossRep/n
		s.Policies = append(s.Policies, *m)
	}
	return s
}

func share(k, n int) string {
	if n == 0 {
		return "no jobs"
	}
	return fmt.Sprintf("%d of %d jobs (%.0f%%)", k, n, 100*float64(k)/float64(n))
}

// Format prints the summary, with issue 17's thresholds.
func (s Summary) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replayed JCT within %.0f%% of live: %s\n", 100*JCTTolerance, share(s.ReplayWithin, s.Jobs))
	fmt.Fprintf(&b, "simulated JCT within %.0f%% of live: %s\n", 100*JCTTolerance, share(s.SimWithin, s.SimJobs))
	fmt.Fprintf(&b, "replayed cross-rack bytes within %.0f%% of live: %s\n", 100*BytesTolerance, share(s.BytesEqual, s.BytesJobs))
	if len(s.Policies) > 0 {
		fmt.Fprintf(&b, "\n%-24s %5s %9s %9s %9s %7s %7s %12s %12s %12s %7s %7s\n", "policy", "jobs",
			"jct live", "jct sim", "jct rep", "sim/l", "rep/l", "cross live", "cross sim", "cross rep", "sim/l", "rep/l")
		for _, m := range s.Policies {
			mark := func(r float64) string {
				if ratioWithin(r, MeanTolerance) {
					return fmt.Sprintf("%6.2f ", r)
				}
				return fmt.Sprintf("%6.2f*", r)
			}
			fmt.Fprintf(&b, "%-24s %5d %9.2f %9.2f %9.2f %7s %7s %12.0f %12.0f %12.0f %7s %7s\n", m.Policy, m.Jobs,
				m.JCTLive, m.JCTSim, m.JCTRep, mark(ratio(m.JCTSim, m.JCTLive)), mark(ratio(m.JCTRep, m.JCTLive)),
				m.CrossLive, m.CrossSim, m.CrossRep, mark(ratio(m.CrossSim, m.CrossLive)), mark(ratio(m.CrossRep, m.CrossLive)))
		}
		fmt.Fprintf(&b, "(means per job over the jobs that succeeded in all three; * off by more than %.0f%%)\n", 100*MeanTolerance)
	}
	return b.String()
}
