package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/coflow"
	"github.com/racklab/racklab/datagen/recurring"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/internal/safefile"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/agent"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Options configure a campaign run.
type Options struct {
	// Out is the result directory; a rerun with the same campaign resumes
	// it.
	Out string
	// Parallel is how many simulated runs go at once (default: cores).
	Parallel int
	// WorkerCommand starts a worker for local runs (see bench/local).
	WorkerCommand []string
	// Prefix names the emulated cluster's namespaces.
	Prefix string
	// Progress is where the progress bars go (nil: none); Logf gets one
	// line per finished run and the live runs' events.
	Progress io.Writer
	Logf     func(format string, args ...any)
}

// Run is one cell of the matrix.
type Run struct {
	Mode string
	Set  RunSet
	// Workload is the named workload the run runs; "" in a campaign of
	// one workload.
	Workload string
	Policy   policy.Spec
	Seed     uint64
	// SetIndex is the run set's index in the campaign's runs.
	SetIndex int
	// Dir is <out>/<set>/<label>-seed<N>, or with named workloads
	// <out>/<set>/<workload>/<label>-seed<N>, where <set> is the run set's
	// Dir: its mode, or <mode>-<name> for a named run set.
	Dir string
}

// ID names the run by its run set (its mode, and name if any), workload
// (if named) and policy's label.
func (r Run) ID() string {
	return filepath.ToSlash(filepath.Join(r.Set.Dir(), r.Workload, fmt.Sprintf("%s-seed%d", r.Policy, r.Seed)))
}

// SetDir is the directory of one run set's (and named workload's) runs
// and their summary.csv: <out>/<set>, or <out>/<set>/<workload>, where set
// is RunSet.Dir (the mode for an unnamed run set).
func SetDir(out, set, workload string) string { return filepath.Join(out, set, workload) }

// setWorkloads are the workloads a run set runs: its named ones, or the
// campaign's one workload ("").
func setWorkloads(rs RunSet) []string {
	if len(rs.Workloads) == 0 {
		return []string{""}
	}
	return rs.Workloads
}

// resultSet is one summary.csv's worth of runs: a run set's directory
// (RunSet.Dir) and one of its workloads ("" for the campaign's one).
type resultSet struct{ runSet, workload string }

// resultSets lists the campaign's result sets in campaign order.
func (c *Campaign) resultSets() []resultSet {
	var out []resultSet
	for _, rs := range c.Runs {
		for _, wl := range setWorkloads(rs) {
			out = append(out, resultSet{rs.Dir(), wl})
		}
	}
	return out
}

const doneFile = "done.json"

// Matrix lists the campaign's runs in order: by run set, then workload,
// then repetition, then policy.
func (c *Campaign) Matrix(out string) []Run {
	var runs []Run
	for i, rs := range c.Runs {
		for _, wl := range setWorkloads(rs) {
			for _, seed := range c.Seeds(rs) {
				for _, p := range rs.Policies {
					runs = append(runs, Run{Mode: rs.Mode, Set: rs, SetIndex: i, Workload: wl, Policy: p, Seed: seed,
						Dir: sim.RunDir(SetDir(out, rs.Dir(), wl), p.String(), seed)})
				}
			}
		}
	}
	return runs
}

// inputs are one workload's jobs and data, as the runs take them.
type inputs struct {
	window float64 // the experiment's window (s), 0: none
	w      *workload.Workload
	ds     *workload.Datasets
	pred   *workload.Predicted // what a planner is told, if anything
}

// inputKey names a run's inputs: its workload, and its run set when that
// has its own cluster.
type inputKey struct {
	workload string
	set      int
}

func inputKeyOf(c *Campaign, r Run) inputKey {
	k := inputKey{workload: r.Workload, set: -1}
	if c.Runs[r.SetIndex].Uniform != nil {
		k.set = r.SetIndex
	}
	return k
}

// loadTopology is a run set's cluster: its own, else the campaign's.
func (c *Campaign) loadTopology(rs RunSet) (*cluster.Topology, error) {
	if rs.Uniform != nil {
		return cluster.Uniform(*rs.Uniform)
	}
	if c.TopologyFile != "" {
		return cluster.LoadTopology(c.TopologyFile)
	}
	return cluster.Uniform(*c.Uniform)
}

// origin names where a workload comes from, for errors: its file, its
// trace, or its generator and where the campaign gives it.
func (spec WorkloadSpec) origin() string {
	switch {
	case spec.Generator != nil:
		return spec.Generator.At + ": workload generator " + spec.Generator.Name
	case spec.Swim != nil:
		return spec.Swim.Trace
	case spec.Coflow != nil:
		return spec.Coflow.Trace
	}
	return spec.File
}

// loadWorkload generates or reads a workload for a topology.
func loadWorkload(spec WorkloadSpec, topo *cluster.Topology) (*inputs, error) {
	in := &inputs{}
	var err error
	switch {
	case spec.Generator != nil:
		if in.w, in.ds, in.pred, err = generate(spec.Generator); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.origin(), err)
		}
	case spec.Swim != nil:
		s := spec.Swim
		o := s.options()
		f, err := os.Open(s.Trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in.w, in.ds, err = swim.Import(f, s.Trace, o)
		if err != nil {
			return nil, err
		}
	case spec.Coflow != nil:
		f, err := os.Open(spec.Coflow.Trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		// the datasets place the mappers' blocks on the topology's hosts
		opts := spec.Coflow.options()
		if spec.Coflow.InputFrom != "" {
			if opts.InputRatios, err = coflow.LoadRatios(spec.Coflow.InputFrom); err != nil {
				return nil, fmt.Errorf("input_from: %w", err)
			}
		}
		var st coflow.Stats
		if in.w, in.ds, st, err = coflow.ImportStats(f, spec.Coflow.Trace, topo, opts); err != nil {
			return nil, err
		}
		for i := range in.w.Jobs {
			in.w.Jobs[i].Queue = spec.Coflow.Queue
			if spec.Coflow.SmallQueue != "" && st.Coflows[i].ShuffleBytes < spec.Coflow.SmallBelow {
				in.w.Jobs[i].Queue = spec.Coflow.SmallQueue
			}
		}
	default:
		in.ds = &workload.Datasets{}
		if spec.Datasets != "" {
			if in.ds, err = workload.LoadDatasets(spec.Datasets, topo); err != nil {
				return nil, err
			}
		}
		if in.w, err = workload.LoadRunnable(spec.File, in.ds); err != nil {
			return nil, err
		}
		// an empty workload is said as such, before its predictions
		// would be found to name jobs it lacks
		if spec.Predicted != "" {
			if in.pred, err = recurring.LoadPredicted(spec.Predicted); err != nil {
				return nil, err
			}
			if err := in.pred.CheckAgainst(in.w); err != nil {
				return nil, err // with the file and line
			}
		}
	}
	if err := in.w.CheckRunnable(); err != nil {
		return nil, fmt.Errorf("%s: %w", spec.origin(), err)
	}
	return in, nil
}

// Execute runs the campaign's matrix, skipping the runs an earlier
// invocation finished (with their records as done.json lists them; the
// others are redone, and the log says why). It stops cleanly when ctx is
// cancelled: finished runs stay, the interrupted one is redone next time.
// The result directory is locked while Execute runs (see Lock).
func Execute(ctx context.Context, c *Campaign, opt Options) error {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.NumCPU()
	}
	if err := c.CheckInputs(); err != nil {
		return err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	release, err := Lock(opt.Out)
	if err != nil {
		return err
	}
	defer release()
	retabled, err := prepareDir(c, opt.Out)
	if err != nil {
		return err
	}
	if err := removeTemps(c, opt.Out, opt.Logf); err != nil {
		return err
	}
	if retabled {
		opt.Logf("%s: the campaign file changed only in its headlines, comments or layout since these runs: recorded the new one, runs kept", opt.Out)
	}
	// one topology per run set; the inputs of a workload depend on its
	// run set's topology only through datasets files that place blocks
	topos := make([]*cluster.Topology, len(c.Runs))
	for i, rs := range c.Runs {
		if topos[i], err = c.loadTopology(rs); err != nil {
			if rs.Uniform != nil {
				return fmt.Errorf("runs[%d] cluster: %w", i, err)
			}
			return err
		}
		if err := rs.writerRacksBeyond(len(topos[i].Racks)); err != nil {
			return fmt.Errorf("%s:%d: runs[%d] %w (topology %s)", c.Path, rs.writerRacksLine, i, err, c.TopologyFile)
		}
	}
	runs := c.Matrix(opt.Out)
	var todo []Run
	done := map[string]metrics.Summary{}
	for _, r := range runs {
		s, err := CheckDone(r)
		switch {
		case err == nil:
			done[r.Dir] = s
			continue
		case !errors.Is(err, fs.ErrNotExist):
			opt.Logf("%s: redone: its records do not match its done.json: %v", r.ID(), err)
		}
		todo = append(todo, r)
	}
	if len(todo) < len(runs) {
		// said even when progress bars replace the log: numbers from an
		// older build are kept, and the user must know how to start over
		msg := fmt.Sprintf("resuming: %d of %d runs already done in %s are kept; remove it to start over", len(runs)-len(todo), len(runs), opt.Out)
		if opt.Progress != nil {
			fmt.Fprintln(opt.Progress, msg)
		}
		opt.Logf("%s", msg)
	}
	ex := &executor{c: c, opt: opt, topos: topos, runs: runs, done: done}
	// before a run is redone, its row leaves summary.csv: a crash while it
	// runs again must not leave its old figures beside its new, partial
	// records, where a report would take them for a finished run's
	if err := ex.writeSummaries(); err != nil {
		return err
	}
	// each workload once, for all its runs; only those a run still needs
	loaded := map[inputKey]*inputs{}
	for _, r := range todo {
		key := inputKeyOf(c, r)
		if _, ok := loaded[key]; ok {
			continue
		}
		spec, ok := c.spec(r.Workload)
		if !ok {
			return fmt.Errorf("run %s: the campaign has no workload %q", r.ID(), r.Workload)
		}
		in, err := loadWorkload(spec, topos[r.SetIndex])
		if err != nil {
			if r.Workload != "" {
				return fmt.Errorf("workload %s: %w", r.Workload, err)
			}
			return err
		}
		if r.Workload != "" {
			opt.Logf("workload %s: %d jobs", r.Workload, len(in.w.Jobs))
		}
		in.window = spec.Window
		loaded[key] = in
	}
	// once the inputs are known good: a resumption refused for its
	// workload ran nothing and is not recorded, nor is one with nothing
	// left to run (whose meta.json is still checked, and made if gone)
	// the kept runs are also those of run sets this execution leaves out
	// (bench reproduce runs one mode's at a time into one directory)
	finished, err := finishedRuns(opt.Out)
	if err != nil {
		return err
	}
	if err := writeMeta(c, opt.Out, max(len(runs)-len(todo), finished), len(todo) > 0); err != nil {
		return err
	}
	var progress *mpb.Progress
	var overall *mpb.Bar
	if opt.Progress != nil {
		progress = mpb.NewWithContext(ctx, mpb.WithOutput(opt.Progress), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
		overall = progress.AddBar(int64(len(runs)),
			mpb.PrependDecorators(decor.Name("campaign "+c.Name, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d runs", decor.WCSyncSpace)),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Name(" ETA "), decor.EwmaETA(decor.ET_STYLE_GO, 30)))
		overall.SetCurrent(int64(len(runs) - len(todo)))
		defer progress.Wait()
	}
	ex.inputs, ex.progress, ex.overall = loaded, progress, overall
	// simulated runs share the cores; live runs own the machine (or the
	// lab), one at a time
	var sims, lives []Run
	for _, r := range todo {
		if r.Mode == ModeSim {
			sims = append(sims, r)
		} else {
			lives = append(lives, r)
		}
	}
	err = ex.runSims(ctx, sims)
	if err == nil {
		for _, r := range lives {
			if err = ex.runOne(ctx, r); err != nil {
				break
			}
		}
	}
	if overall != nil && err != nil {
		overall.Abort(false)
	}
	if serr := ex.writeSummaries(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// writeSummaries rewrites every result set's summary.csv from the runs
// finished so far: also when they were all done before (a crash between
// a run's mark and its summary), and without the runs about to be redone.
func (ex *executor) writeSummaries() error {
	var err error
	for _, set := range ex.c.resultSets() {
		if serr := ex.writeSummary(set.runSet, set.workload); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

type executor struct {
	c   *Campaign
	opt Options
	// topos are the run sets' clusters, by index in the campaign
	topos []*cluster.Topology
	// inputs are the workloads of the runs to do
	inputs   map[inputKey]*inputs
	progress *mpb.Progress
	overall  *mpb.Bar
	runs     []Run
	mu       sync.Mutex
	// done holds the summaries of the finished runs, by directory
	done map[string]metrics.Summary
}

func (ex *executor) runSims(ctx context.Context, sims []Run) error {
	var wg sync.WaitGroup
	slots := make(chan struct{}, ex.opt.Parallel)
	errs := make([]error, len(sims))
	for i, r := range sims {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return interrupted(ctx.Err(), errs)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			errs[i] = ex.runOne(ctx, r)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return interrupted(ctx.Err(), errs)
	}
	return errors.Join(errs...)
}

// interrupted is the error of runs stopped by ctx: its error, with the
// failures of runs that had failed for their own reasons first (a
// Ctrl-C while waiting for a slot said only "interrupted", and hid
// them). The runs it stopped say only that.
func interrupted(ctxErr error, errs []error) error {
	out := []error{ctxErr}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			out = append(out, err)
		}
	}
	return errors.Join(out...)
}

func (ex *executor) bar(r Run) *mpb.Bar {
	if ex.progress == nil {
		return nil
	}
	return ex.progress.AddBar(int64(len(ex.inputs[inputKeyOf(ex.c, r)].w.Jobs)),
		mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(r.ID(), decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d jobs", decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Name(" ETA "), decor.EwmaETA(decor.ET_STYLE_GO, 30)))
}

func (ex *executor) runOne(ctx context.Context, r Run) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// a run interrupted earlier left partial records: start it afresh
	if err := ex.clearRunDir(r); err != nil {
		return err
	}
	ex.opt.Logf("%s: started", r.ID())
	bar := ex.bar(r)
	start := time.Now()
	var last time.Time
	jobsDone := func(done int) {
		if bar != nil {
			bar.EwmaSetCurrent(int64(done), time.Since(last))
			last = time.Now()
		}
	}
	last = start
	var sum metrics.Summary
	var err error
	switch r.Mode {
	case ModeSim:
		sum, err = ex.sim(ctx, r, jobsDone)
	default:
		sum, err = ex.live(ctx, r, jobsDone)
	}
	if bar != nil {
		if err != nil {
			bar.Abort(true)
		} else {
			bar.SetTotal(-1, true)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("run %s: %w", r.ID(), err)
	}
	if err := ex.finish(r, sum); err != nil {
		return err
	}
	ex.opt.Logf("%s: done in %.1f s (mean JCT %.2f s, %d/%d jobs)", r.ID(), time.Since(start).Seconds(), sum.JCTMeanS, sum.Jobs-sum.FailedJobs-sum.UnfinishedJobs, sum.Jobs)
	if sum.HostsLost > 0 {
		// said even above progress bars: such a run is not one more clean
		// repetition (summary.csv's hosts_lost keeps it)
		msg := fmt.Sprintf("%s: lost %d host(s) during the run (events.jsonl says which and when); its figures include the reruns", r.ID(), sum.HostsLost)
		if ex.progress != nil {
			fmt.Fprintln(ex.progress, msg)
		}
		ex.opt.Logf("%s", msg)
	}
	if ex.overall != nil {
		ex.overall.EwmaIncrement(time.Since(start))
	}
	return nil
}

// clearRunDir makes way for a run to be redone. A simulated run's
// records are removed: the run makes them again, the same. A live run's
// are measurements no rerun repeats (partial, or with a done.json that
// no longer matches them): they are moved aside, as DIR.before-TIME,
// and the log says where.
func (ex *executor) clearRunDir(r Run) error {
	if r.Mode == ModeSim {
		return os.RemoveAll(r.Dir)
	}
	entries, err := os.ReadDir(r.Dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && onlyEmptyFiles(entries) {
		return os.RemoveAll(r.Dir)
	}
	if err != nil {
		return err
	}
	aside := r.Dir + ".before-" + time.Now().UTC().Format("20060102T150405.000Z")
	if err := os.Rename(r.Dir, aside); err != nil {
		return fmt.Errorf("run %s: moving its earlier records aside: %w", r.ID(), err)
	}
	ex.opt.Logf("%s: its earlier records are kept in %s", r.ID(), aside)
	return nil
}

// onlyEmptyFiles tells whether a run directory holds no measurement: a run
// that failed as it started (a cluster that could not be set up) leaves
// its record files created and empty, and a directory of those kept
// aside at every retry would only bury the ones that hold data.
func onlyEmptyFiles(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return false
		}
		info, err := e.Info()
		if err != nil || info.Size() > 0 {
			return false
		}
	}
	return true
}

func (ex *executor) sim(ctx context.Context, r Run, jobsDone func(int)) (metrics.Summary, error) {
	in := ex.inputs[inputKeyOf(ex.c, r)]
	reported := 0
	opt := sim.Options{MaxSimTime: ex.c.Limits.MaxSimTime, Window: in.window, Network: r.Set.Network, FullRecompute: r.Set.FullRecompute, Resolution: r.Set.Resolution, Cancel: ctx.Done(), Background: ex.c.Background,
		Progress: func(_, _ float64, done, _ int) {
			// the bar's rate counts finished jobs: calls between them
			// would pull its estimate down
			if done != reported {
				reported = done
				jobsDone(done)
			}
		}}
	placer, outputs, err := placers(r.Set)
	if err != nil {
		return metrics.Summary{}, err
	}
	sum, _, err := sim.RunOne(sim.Spec{Topology: ex.topos[r.SetIndex], Workload: in.w, Datasets: in.ds,
		Policy: r.Policy, Seed: r.Seed, SlowStart: ex.c.SlowStartOf(r.Set), Queues: ex.c.Queues, Predicted: in.pred,
		Placer: placer, OutputPlacer: outputs, MemoryLRU: r.Set.MemoryLRU, OutputPipeline: r.Set.OutputPipeline, Dir: r.Dir, Options: opt})
	return sum, err
}

func (ex *executor) live(ctx context.Context, r Run, jobsDone func(int)) (metrics.Summary, error) {
	// the live driver takes the policy built, and names its records by
	// Policy, the label
	p, err := policy.Build(r.Policy)
	if err != nil {
		return metrics.Summary{}, err
	}
	placer, outputs, err := placers(r.Set)
	if err != nil {
		return metrics.Summary{}, err
	}
	done := 0
	in := ex.inputs[inputKeyOf(ex.c, r)]
	sink, err := metrics.NewRunSink(r.Dir, in.w, r.Policy.String(), r.Seed)
	if err != nil {
		return metrics.Summary{}, err
	}
	cfg := live.Config{Sink: sink, Background: ex.c.Background, Topology: ex.topos[r.SetIndex], Workload: in.w, Datasets: in.ds,
		Policy: r.Policy.String(), PolicyImpl: p, Seed: r.Seed, Queues: ex.c.Queues, Predicted: in.pred, Placer: placer, OutputPlacer: outputs, MemoryLRU: r.Set.MemoryLRU, OutputPipeline: r.Set.OutputPipeline,
		SlowStart: ex.c.SlowStartOf(r.Set), OutDir: r.Dir, MaxRunTime: ex.c.Limits.MaxRunTime, Window: time.Duration(in.window * float64(time.Second)), StallTimeout: ex.c.Limits.StallTimeout, Logf: func(string, ...any) {}, // events.jsonl has them
		OnEvent: func(ev live.Event) {
			if strings.HasPrefix(ev.Kind, "job-") {
				done++
				jobsDone(done)
			}
		}}
	switch r.Mode {
	case ModeLocal:
		mode, perr := shaping.ParseMode(r.Set.Network)
		if perr != nil {
			return metrics.Summary{}, perr
		}
		lopt := local.Options{Prefix: ex.opt.Prefix, Mode: mode, Topology: ex.topos[r.SetIndex], WorkerCommand: ex.opt.WorkerCommand,
			Cluster: "racklab", Logf: ex.opt.Logf, Background: ex.c.Background, Priorities: r.Set.Priorities, ShapeHostNICs: r.Set.ShapeNICs, ShareRackLinks: r.Set.ShareLinks, SleepCompute: r.Set.SleepCompute, Congestion: r.Set.Congestion}
		_, err = local.Run(ctx, lopt, cfg)
	case ModeRemote:
		cfg.NATSURL, cfg.Listen, cfg.MemberAddr, cfg.StopWorkers = r.Set.NATS, r.Set.Listen, r.Set.MemberAddr, false
		if r.Set.Credentials != "" {
			// the embedded server admits every host with its own secret;
			// an external one needs only the coordinator's
			var hosts []string
			if cfg.NATSURL == "" {
				for _, h := range ex.topos[r.SetIndex].Hosts {
					hosts = append(hosts, h.Name)
				}
			}
			if cfg.Creds, err = wire.LoadCredentials(r.Set.Credentials, hosts); err != nil {
				return metrics.Summary{}, fmt.Errorf("credentials: %w", err)
			}
		}
		_, err = live.Run(ctx, cfg)
	}
	if err != nil {
		return metrics.Summary{}, err
	}
	return sink.Summary, nil
}

// finish marks a run done and rewrites its result set's summary.csv
// from every run of it done so far, in matrix order.
func (ex *executor) finish(r Run, sum metrics.Summary) error {
	if err := markDone(r, sum); err != nil {
		return err
	}
	ex.mu.Lock()
	ex.done[r.Dir] = sum
	ex.mu.Unlock()
	return ex.writeSummary(r.Set.Dir(), r.Workload)
}

// writeSummary rewrites the summary.csv of a run set (by its Dir) and
// named workload from its finished runs, in matrix order.
func (ex *executor) writeSummary(set, wl string) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var rows []metrics.Summary
	for _, o := range ex.runs {
		if o.Set.Dir() != set || o.Workload != wl {
			continue
		}
		if s, ok := ex.done[o.Dir]; ok {
			rows = append(rows, s)
		}
	}
	dir := SetDir(ex.opt.Out, set, wl)
	path := filepath.Join(dir, "summary.csv")
	if len(rows) == 0 {
		// rows of runs no longer finished (being redone) go with the file
		if err := safefile.Remove(path); err != nil {
			return fmt.Errorf("result set %s: %w", path, err)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := metrics.WriteSummaries(path, rows); err != nil {
		return fmt.Errorf("result set %s: %w", path, err)
	}
	return nil
}

// removeTemps removes the temporary files a campaign killed while it
// replaced a file (campaign.yaml, meta.json, a summary.csv) left in the
// result directory; run directories are removed whole when their run is
// redone.
func removeTemps(c *Campaign, out string, logf func(string, ...any)) error {
	dirs := []string{out}
	for _, set := range c.resultSets() {
		dirs = append(dirs, SetDir(out, set.runSet, set.workload))
	}
	for _, dir := range dirs {
		removed, err := safefile.RemoveTemps(dir)
		if err != nil {
			return err
		}
		for _, f := range removed {
			logf("%s: removed, left by an interrupted write", f)
		}
	}
	return nil
}

// prepareDir checks that the result directory belongs to this campaign
// when resuming (a campaign that differs only in its headlines does:
// SameRuns), and that its run sets' directories are directories of
// its own (a runs' directory is removed and rewritten: through a link, that
// would be outside).
func prepareDir(c *Campaign, out string) (retabled bool, err error) {
	for _, rs := range c.Runs {
		dirs := []string{filepath.Join(out, rs.Dir())}
		for _, wl := range rs.Workloads {
			dirs = append(dirs, SetDir(out, rs.Dir(), wl))
		}
		for _, dir := range dirs {
			st, err := os.Lstat(dir)
			if err == nil && !st.IsDir() {
				return false, fmt.Errorf("%s is not a directory (a symbolic link?): remove it", dir)
			}
		}
	}
	path := filepath.Join(out, "campaign.yaml")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Equal(old, c.Source) && SameRuns(old, c.Source):
		// only the headlines changed: the runs are this campaign's, and
		// the copy becomes the file a reproduction reads its table from
		return true, safefile.WriteFile(path, c.Source, 0o644)
	case err == nil && !bytes.Equal(old, c.Source):
		finished, err := finishedRuns(out)
		if err != nil {
			return false, err
		}
		if finished > 0 {
			return false, fmt.Errorf("%s holds the results of a different campaign (its campaign.yaml differs from %s): choose another result directory or remove it", out, c.Path)
		}
		// no run of the other campaign finished (it failed before any
		// did, or was stopped): nothing is lost by taking the directory
		return false, safefile.WriteFile(path, c.Source, 0o644)
	case err == nil:
		return false, nil
	case !os.IsNotExist(err):
		return false, err
	}
	return false, safefile.WriteFile(path, c.Source, 0o644)
}

// RecordedCampaignFile is the campaign file the result directory dir was
// made from, as its meta.json names it, if that file is still there and
// still the campaign of dir/campaign.yaml; "" otherwise.
func RecordedCampaignFile(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return ""
	}
	var m Meta
	if json.Unmarshal(b, &m) != nil || m.CampaignFile == "" {
		return ""
	}
	recorded, err := os.ReadFile(filepath.Join(dir, "campaign.yaml"))
	if err != nil {
		return ""
	}
	if src, err := os.ReadFile(m.CampaignFile); err != nil || !bytes.Equal(src, recorded) {
		return ""
	}
	return m.CampaignFile
}

// finishedRuns counts the runs in the result directory out (a twin's
// below it too) that have written their done.json.
func finishedRuns(out string) (int, error) {
	n := 0
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() == doneFile { // not a planted link
			n++
		}
		return nil
	})
	return n, err
}

// Meta is meta.json: what a result directory was made with.
type Meta struct {
	Campaign string `json:"campaign"`
	// CampaignFile is the campaign file's absolute path, whose directory
	// its relative input paths resolve against: campaign.yaml, the copy
	// in the result directory, is not beside them.
	CampaignFile string `json:"campaign_file,omitempty"`
	Started      string `json:"started"`
	// Resumed lists each resumption: its time and the racklab version
	// that ran it ("2026-11-28T05:00:00Z racklab 1fc3ce1…").
	Resumed   []string       `json:"resumed,omitempty"`
	GoVersion string         `json:"go_version"`
	Racklab   string         `json:"racklab_version"`
	Modified  bool           `json:"racklab_modified,omitempty"`
	Command   string         `json:"command"`
	Host      wire.HostFacts `json:"host"`
	// Inputs are the sha256 of the files the campaign's workloads and
	// topology read, by their path from the campaign file's directory:
	// a resumption whose inputs changed would set runs of two workloads
	// side by side, and is refused.
	Inputs map[string]string `json:"inputs,omitempty"`
}

// writeMeta writes out/meta.json: afresh for a new result directory; on
// resuming one (alreadyDone runs kept), the recorded start and earlier
// resumptions are kept and this one is added, with the racklab version
// it runs (the one at the top is the latest's, and the kept runs may be
// an older one's). A meta.json that cannot be read is refused, not
// replaced: it is the only record of how the kept runs were made.
func writeMeta(c *Campaign, out string, alreadyDone int, runs bool) error {
	path := filepath.Join(out, "meta.json")
	inputs := inputDigests(c)
	m := Meta{Campaign: c.Name, Started: time.Now().UTC().Format(time.RFC3339), Inputs: inputs}
	version, modified := racklabVersion()
	if alreadyDone > 0 {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			var old Meta
			err := json.Unmarshal(b, &old)
			if err == nil && old.Started == "" {
				err = errors.New("it has no start time")
			}
			if err != nil {
				return fmt.Errorf("%s: %v: this result directory's record of how its %d finished runs were made is damaged; repair it, or move it away to record this run afresh (the finished runs are kept either way)", path, err, alreadyDone)
			}
			if !runs {
				return nil // nothing to record: it stays as it is
			}
			if err := sameInputs(old.Inputs, inputs, path); err != nil {
				return err
			}
			m = old
			for k, v := range inputs { // recorded from here on if it was not
				if m.Inputs == nil {
					m.Inputs = map[string]string{}
				}
				m.Inputs[k] = v
			}
			if version == "" {
				version = "(version unknown)"
			}
			entry := time.Now().UTC().Format(time.RFC3339) + " racklab " + version
			if modified {
				entry += " (modified)"
			}
			m.Resumed = append(m.Resumed, entry)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	if abs, err := filepath.Abs(c.Path); err == nil && c.Path != "" {
		m.CampaignFile = abs
	}
	m.GoVersion = runtime.Version()
	m.Command = strings.Join(os.Args, " ")
	m.Host = agent.Facts()
	m.Racklab, m.Modified = version, modified
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'), 0o644)
}

// inputDigests are the sha256 of the files the campaign's workloads and
// topology name, by path from the campaign file's directory; a file that
// cannot be read (one only another mode's run sets use, gone) is left
// out: the runs that need it fail on their own.
func inputDigests(c *Campaign) map[string]string {
	paths := []*string{&c.TopologyFile}
	paths = append(paths, c.Workload.inputPaths()...)
	for i := range c.Workloads {
		paths = append(paths, c.Workloads[i].Spec.inputPaths()...)
	}
	out := map[string]string{}
	for _, p := range paths {
		if *p == "" {
			continue
		}
		f, err := os.Open(*p)
		if err != nil {
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			continue
		}
		key := *p
		if rel, err := filepath.Rel(filepath.Dir(c.Path), *p); err == nil && c.Path != "" {
			key = rel
		}
		out[filepath.ToSlash(key)] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// sameInputs refuses a resumption whose input files differ from those the
// kept runs were made with (meta is the record's file, for the error).
func sameInputs(was, now map[string]string, meta string) error {
	var changed []string
	for k, v := range was {
		if n, ok := now[k]; ok && n != v {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	sort.Strings(changed)
	return fmt.Errorf("%s: the kept runs were made from other contents of %s (sha256 recorded there): restore the file, or choose another result directory, so that no table sets runs of two workloads side by side", meta, strings.Join(changed, ", "))
}

// racklabVersion is the running build's VCS revision (its module version
// without one) and whether its tree had uncommitted changes.
func racklabVersion() (version string, modified bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	version = bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			version = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return version, modified
}

// Summaries returns the summaries of the finished runs of each result
// set, in matrix order, and the result sets in campaign order. A result
// set is a run set ("sim", or "sim-varys" for a named one; see
// RunSet.Dir), or with named workloads a run set and a workload
// ("sim/ml"): the path of its summary.csv's directory under out, with
// slashes.
func (c *Campaign) Summaries(out string) (sets []string, rows map[string][]metrics.Summary) {
	rows = map[string][]metrics.Summary{}
	for _, r := range c.Matrix(out) {
		if s, ok := Done(r); ok {
			set := r.Set.Dir()
			if r.Workload != "" {
				set += "/" + r.Workload
			}
			if _, seen := rows[set]; !seen {
				sets = append(sets, set)
			}
			rows[set] = append(rows[set], s)
		}
	}
	return sets, rows
}

// placers builds a run set's dataset placer and, when its placement was
// given explicitly (RunSet.OutputPlacement), the same placer as the
// engine's output placer, if it is one; else nil, the engine's default.
func placers(rs RunSet) (engine.DatasetPlacer, engine.ReplicaPlacer, error) {
	placer, err := placement.New(rs.Placement, rs.TierMix)
	if err != nil {
		return nil, nil, err
	}
	if hp, ok := placer.(*hdfs.Placer); ok {
		hp.WriterRacks = rs.WriterRacks
	}
	var outputs engine.ReplicaPlacer
	if rp, ok := placer.(engine.ReplicaPlacer); ok && rs.OutputPlacement {
		outputs = rp
	}
	return placer, outputs, nil
}
