package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/internal/safefile"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/worker/agent"
)

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "bench",
		Short:         "run racklab experiments",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(simCmd(), localCmd(), runCmd(), reportCmd(), reproduceCmd(), checkCmd(), fidelityCmd())
	w := agent.Command()
	w.Hidden = true // how the emulator starts its workers
	root.AddCommand(w)
	return root
}

type simFlags struct {
	clusterFlags
	storageFlags
	workload    string
	datasets    string
	swim        string
	scale       float64
	blockSize   string
	reduceBytes string
	computeNs   float64
	maxJobs     int
	maxReducers int
	policies    string
	seeds       string
	out         string
	slowStart   float64
	maxSimTime  float64
	window      float64
	quiet       bool
	cpuProfile  string
	resolution  float64
	fullEvery   float64
	linkSample  float64
	network     string
	parallel    int
	// replay: bench sim --replay RUN_DIR (cmd_fidelity.go)
	replay    string
	campaign  string
	notBefore bool
}

func simCmd() *cobra.Command {
	var f simFlags
	c := &cobra.Command{
		Use:   "sim",
		Short: "simulate policies on a workload and compare them",
		Long: `sim runs each policy on the same workload, topology and seed in the
flow-level simulator, writes per-run records and summary.csv under --out,
and prints a comparison table. Identical flags give byte-identical records
(timing.csv, and summary.csv's wall-clock columns plan_wall_s and
decision_max_s, which measure this machine, aside).

Either give a workload (--workload, --datasets) or a SWIM trace (--swim),
and either a topology file (--topology) or a uniform cluster (--racks,
--hosts-per-rack, ...).`,
		Example: `  bench sim --swim traces/swim/FB-2009_samples_24_times_1hr_0.tsv \
      --racks 20 --hosts-per-rack 30 --slots 8 --oversubscription 5 \
      --policies fifo,fair,capacity --out results/fb2009`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.replay != "" {
				if !cmd.Flags().Changed("out") {
					f.out = "results/replay"
				}
				return runReplay(cmd, &f)
			}
			// options of a replay only: without --replay they would be
			// dropped unsaid
			for _, name := range []string{"campaign", "not-before"} {
				if cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s is an option of --replay, which is not given", name)
				}
			}
			return runSim(cmd, &f)
		},
	}
	fl := c.Flags()
	f.clusterFlags.add(fl, 20, 30)
	f.storageFlags.add(fl)
	fl.StringVar(&f.workload, "workload", "", "workload YAML file")
	fl.StringVar(&f.datasets, "datasets", "", "datasets YAML file")
	fl.StringVar(&f.swim, "swim", "", "SWIM trace to import instead of --workload")
	fl.Float64Var(&f.scale, "scale", 1, "byte scale factor for --swim")
	fl.StringVar(&f.blockSize, "block-size", "128MiB", "block size for --swim")
	fl.StringVar(&f.reduceBytes, "reduce-bytes", "1GiB", "shuffle bytes per reducer for --swim")
	fl.Float64Var(&f.computeNs, "compute-ns-per-byte", 5, "CPU cost per input byte for --swim")
	fl.IntVar(&f.maxReducers, "max-reducers", 999, "most reduce tasks a --swim job gets (Hive's reducers.max; 0: no cap)")
	fl.IntVar(&f.maxJobs, "max-jobs", 0, "import at most this many jobs of --swim (0: all)")
	fl.StringVar(&f.policies, "policies", "fifo,fair,capacity", "comma-separated policies")
	fl.StringVar(&f.seeds, "seeds", "1", "comma-separated seeds")
	fl.StringVar(&f.out, "out", "results/sim", "result directory")
	fl.Float64Var(&f.slowStart, "slowstart", 0, "reduce slow-start fraction (0: the policy's default, else the engine's 0.05)")
	fl.Float64Var(&f.maxSimTime, "max-sim-time", 0, "stop a run with an error after this many simulated seconds (0: a bound derived from the workload, sim.TimeBound)")
	fl.Float64Var(&f.window, "window", 0, "experiment window, simulated seconds: runs stop there, cleanly, and record the jobs left as unfinished (0: none)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.Float64Var(&f.resolution, "resolution", 0.01, "simulator time step, seconds")
	fl.Float64Var(&f.fullEvery, "full-recompute", 10, "seconds between exact max-min recomputations over all flows (negative: at every change)")
	fl.StringVar(&f.network, "network", sim.NetworkMaxMin, "how flows share the network: maxmin (TCP-like) or varys (coflow-aware: each stage's shuffle a coflow, smallest effective bottleneck first)")
	fl.Float64Var(&f.linkSample, "link-sample", 0, "seconds between rack-link samples in links.csv (0: adapt to the run, 0.1 to 10 s)")
	fl.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "runs to simulate at once (each needs its own memory)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the simulation to this file")
	fl.StringVar(&f.replay, "replay", "", "replay the decisions of this recorded run (a run directory of a campaign's results, e.g. a live run's): its campaign, workload, cluster and seed, each attempt on its recorded host and replica in the recorded order (default --out results/replay)")
	fl.StringVar(&f.campaign, "campaign", "", "with --replay: the campaign file the results were made with, for its relative input paths (default: the one its meta.json names, if unchanged, else the result directory's campaign.yaml)")
	fl.BoolVar(&f.notBefore, "not-before", false, "with --replay: hold each attempt back until its recorded start time too (it then launches at the simulator's next event or heartbeat)")
	return c
}

// runEnd says when a simulated run ends at the latest: at its window,
// or as stalled at its time bound.
func runEnd(window, bound float64) string {
	at := func(t float64) string {
		if t < 1e15 {
			return fmt.Sprintf("%.0fs", t)
		}
		return fmt.Sprintf("%.3gs", t)
	}
	if window > 0 && window <= bound {
		return "the window ends it at t=" + at(window)
	}
	return "stops as stalled at t=" + at(bound)
}

func loadInputs(f *simFlags) (*cluster.Topology, *workload.Workload, *workload.Datasets, error) {
	topo, err := f.clusterFlags.load()
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case f.swim != "" && f.workload != "":
		return nil, nil, nil, fmt.Errorf("give either --swim or --workload, not both")
	case f.swim != "":
		opts, err := swimOptions(f)
		if err != nil {
			return nil, nil, nil, err
		}
		fh, err := os.Open(f.swim)
		if err != nil {
			return nil, nil, nil, err
		}
		defer fh.Close()
		w, ds, err := swim.Import(fh, f.swim, opts)
		if err == nil {
			if err = w.CheckRunnable(); err != nil {
				err = fmt.Errorf("%s: %w", f.swim, err)
			}
		}
		return topo, w, ds, err
	case f.workload != "":
		// the datasets first, so that a stage naming an unknown one is
		// reported with its line in the workload file
		var ds *workload.Datasets
		if f.datasets != "" {
			var err error
			if ds, err = workload.LoadDatasets(f.datasets, topo); err != nil {
				return nil, nil, nil, err
			}
		}
		w, err := workload.LoadRunnable(f.workload, ds)
		if err != nil {
			return nil, nil, nil, err
		}
		if ds == nil {
			ds = &workload.Datasets{}
		}
		return topo, w, ds, nil
	}
	return nil, nil, nil, fmt.Errorf("no workload: give --workload or --swim")
}

func swimOptions(f *simFlags) (swim.Options, error) {
	bs, err := units.ParseBytes(f.blockSize)
	if err != nil {
		return swim.Options{}, fmt.Errorf("--block-size: %w", err)
	}
	rb, err := units.ParseBytes(f.reduceBytes)
	if err != nil {
		return swim.Options{}, fmt.Errorf("--reduce-bytes: %w", err)
	}
	o := swim.DefaultOptions()
	o.Scale, o.BlockSize, o.ReduceBytes, o.ComputeNsPerByte, o.MaxJobs, o.MaxReducers = f.scale, bs, rb, f.computeNs, f.maxJobs, f.maxReducers
	return o, nil
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds: %q is not a seed", p)
		}
		if slices.Contains(out, n) {
			// a run is named by its policy and seed: two would write one directory
			return nil, fmt.Errorf("--seeds: seed %d is given twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// parsePolicies reads a --policies flag: comma-separated policy names,
// each run with its defaults.
func parsePolicies(flag string) ([]policy.Spec, error) {
	var specs []policy.Spec
	for _, name := range strings.Split(flag, ",") {
		specs = append(specs, policy.Spec{Name: strings.TrimSpace(name)})
	}
	if err := policy.CheckSet(specs); err != nil {
		return nil, fmt.Errorf("--policies: %w", err)
	}
	return specs, nil
}

// check refuses flag values that would crash or hang a run, naming the
// flag; the limits are sim's, engine's and workload's.
func (f *simFlags) check() error {
	if !(f.slowStart >= 0 && f.slowStart <= 1) {
		return fmt.Errorf("--slowstart must be between 0 and 1 (got %g)", f.slowStart)
	}
	for _, o := range []struct {
		flag string
		opt  sim.Options
	}{
		{"--max-sim-time", sim.Options{MaxSimTime: f.maxSimTime}},
		{"--window", sim.Options{Window: f.window}},
		{"--max-sim-time and --window", sim.Options{MaxSimTime: f.maxSimTime, Window: f.window}},
		{"--resolution", sim.Options{Resolution: f.resolution}},
		{"--full-recompute", sim.Options{FullRecompute: f.fullEvery}},
		{"--link-sample", sim.Options{Sample: f.linkSample}},
		{"--network", sim.Options{Network: f.network}},
	} {
		if err := o.opt.Validate(); err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	if _, err := f.placer(); err != nil {
		return err
	}
	if f.resolution == 0 {
		return fmt.Errorf("--resolution must be positive (got 0)")
	}
	if f.parallel < 1 {
		return fmt.Errorf("--parallel must be at least 1 (got %d)", f.parallel)
	}
	if !(f.scale > 0) || math.IsInf(f.scale, 0) {
		return fmt.Errorf("--scale must be positive and finite (got %g)", f.scale)
	}
	if !(f.computeNs >= 0 && f.computeNs <= workload.MaxComputeNsPerByte) {
		return fmt.Errorf("--compute-ns-per-byte must be between 0 and %g (got %g)", float64(workload.MaxComputeNsPerByte), f.computeNs)
	}
	if f.maxReducers < 0 || f.maxReducers > workload.MaxTasksPerStage {
		return fmt.Errorf("--max-reducers must be between 0 and %d (got %d)", workload.MaxTasksPerStage, f.maxReducers)
	}
	if f.maxJobs < 0 {
		return fmt.Errorf("--max-jobs must not be negative (got %d)", f.maxJobs)
	}
	return nil
}

func runSim(cmd *cobra.Command, f *simFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return err
	}
	policies, err := parsePolicies(f.policies)
	if err != nil {
		return err
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	topo, w, ds, err := loadInputs(f)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "loaded %d jobs on %d racks × %d hosts in %.1fs\n", len(w.Jobs), len(topo.Racks), len(topo.Hosts)/len(topo.Racks), time.Since(t0).Seconds())
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	type job struct {
		policy policy.Spec
		seed   uint64
	}
	var jobs []job
	for _, seed := range seeds {
		for _, spec := range policies {
			jobs = append(jobs, job{spec, seed})
		}
	}
	par := max(1, min(f.parallel, len(jobs)))
	rows := make([]*metrics.Summary, len(jobs))
	timings := make([]*sim.Timing, len(jobs))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, par)
	)
	for i, jb := range jobs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			opt := sim.Options{MaxSimTime: f.maxSimTime, Window: f.window, Resolution: f.resolution, FullRecompute: f.fullEvery, Sample: f.linkSample, Network: f.network}
			if !f.quiet {
				last := time.Now()
				opt.Progress = func(now, bound float64, done, total int) {
					if time.Since(last) > 5*time.Second || done == total {
						last = time.Now()
						mu.Lock()
						fmt.Fprintf(stderr, "%-10s seed %d: t=%9.0fs  jobs %6d/%d  (%s)\n", jb.policy, jb.seed, now, done, total, runEnd(f.window, bound))
						mu.Unlock()
					}
				}
			}
			// checked by f.check; a placer of each run's own
			placer, _ := f.placer()
			sum, tm, err := sim.RunOne(sim.Spec{
				Topology: topo, Workload: w, Datasets: ds, Policy: jb.policy, Seed: jb.seed,
				SlowStart: f.slowStart, Placer: placer, MemoryLRU: f.memoryLRU, OutputPipeline: f.pipeline,
				Dir: sim.RunDir(f.out, jb.policy.String(), jb.seed), Options: opt,
			})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			rows[i], timings[i] = &sum, &tm
			fmt.Fprintf(stderr, "%s, max RSS so far %.0f MiB\n", sim.FormatTiming(tm), maxRSSMiB())
			// summary.csv is rewritten after every run, so that an
			// interrupted comparison keeps the runs it finished
			if err := writeResults(f.out, rows, timings); err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	done, _ := finished(rows, timings)
	fmt.Fprint(cmd.OutOrStdout(), metrics.Table(done))
	fmt.Fprintf(cmd.OutOrStdout(), "records: %s\n", f.out)
	return nil
}

// finished lists the runs that have finished, in campaign order.
func finished(rows []*metrics.Summary, timings []*sim.Timing) ([]metrics.Summary, []sim.Timing) {
	var rs []metrics.Summary
	var ts []sim.Timing
	for i := range rows {
		if rows[i] != nil {
			rs = append(rs, *rows[i])
			ts = append(ts, *timings[i])
		}
	}
	return rs, ts
}

func writeResults(dir string, rows []*metrics.Summary, timings []*sim.Timing) error {
	rs, ts := finished(rows, timings)
	if err := metrics.WriteSummaries(filepath.Join(dir, "summary.csv"), rs); err != nil {
		return err
	}
	return writeTimings(filepath.Join(dir, "timing.csv"), ts)
}

func writeTimings(path string, ts []sim.Timing) error {
	var b strings.Builder
	b.WriteString("policy,seed,wall_s,sim_s,events,events_per_s,decisions,decision_mean_us,decision_p50_us,decision_p99_us,plan_s\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "%s,%d,%.3f,%.3f,%d,%.0f,%d,%.2f,%.2f,%.2f,%.6f\n", t.Policy, t.Seed, t.WallS, t.SimS, t.Events, t.EventsPerS, t.Decisions, t.DecisionMeanUs, t.DecisionP50Us, t.DecisionP99Us, t.PlanS)
	}
	return safefile.WriteFile(path, []byte(b.String()), 0o644)
}

// maxRSSMiB is the process's peak resident memory.
func maxRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}
