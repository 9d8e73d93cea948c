package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/fidelity"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func fidelityCmd() *cobra.Command {
	var from, out, prefix string
	var notBefore, quiet bool
	c := &cobra.Command{
		Use:   "fidelity [CAMPAIGN]",
		Short: "compare the simulator with the emulated cluster: each live run, simulated and replayed, per job",
		Long: `fidelity runs a campaign's live run sets (mode local: needs root), then for
each live run simulates the same run (the policy choosing for itself) and
replays the live run's decisions in the simulator (each attempt on its
recorded host, reading its recorded replica, in the recorded order; policy
replay). It writes per job the JCT and the cross-rack bytes (the engine's
accounting, attempts.csv) live, simulated and replayed, with their ratios, to
fidelity.csv in the result directory, the simulations and replays under its
fidelity/, and prints a summary: the share of jobs whose replayed JCT is
within 15% of live, of jobs whose replayed bytes are within 1%, and per policy
the mean JCT and bytes of each. The report draws fidelity.csv.

With --from, the live runs are those already in a result directory (a
campaign's, run before with bench run): nothing runs live, and no root is
needed. CAMPAIGN, the campaign file, is then optional: without it the
campaign file the results were made from is read (meta.json names it), if
it is still there unchanged; else the result directory's copy,
campaign.yaml, whose relative input paths then resolve against the result
directory.`,
		Example: `  sudo bin/bench fidelity campaigns/demo.yaml --out results/demo-fidelity --prefix rp
  bin/bench fidelity --from results/demo campaigns/demo.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			root := from
			if from != "" {
				// the comparison goes into the --from directory: an --out
				// taken silently left the recorded directory's report
				// overwritten by one who asked for it elsewhere
				for _, name := range []string{"out", "prefix"} {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("--%s is an option of a live run; with --from nothing runs live, and the comparison is written into %s (fidelity.csv, fidelity/, report/)", name, from)
					}
				}
			}
			if from == "" {
				if path == "" {
					return errors.New("give a campaign file, or --from a result directory")
				}
				var err error
				if root, err = runLive(ctx, cmd, path, out, prefix, quiet); err != nil {
					return err
				}
			}
			camp, err := fidelity.OpenCampaign(root, path)
			if err != nil {
				return err
			}
			return compareFidelity(ctx, cmd, camp, root, notBefore)
		},
	}
	c.Flags().StringVar(&from, "from", "", "compare the live runs of this result directory instead of running them")
	c.Flags().StringVar(&out, "out", "", "result directory (default results/<campaign name>)")
	c.Flags().StringVar(&prefix, "prefix", "rl", "name prefix of the emulated cluster (local runs)")
	c.Flags().BoolVar(&notBefore, "not-before", false, "replays hold each attempt back until its recorded start time too (it then launches at the simulator's next event or heartbeat: on live records, up to a heartbeat late)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bars")
	return c
}

// runLive runs the campaign's live run sets into its result directory,
// which it returns.
func runLive(ctx context.Context, cmd *cobra.Command, path, out, prefix string, quiet bool) (string, error) {
	camp, err := campaign.Load(path)
	if err != nil {
		return "", err
	}
	live := *camp
	live.Runs = nil
	for _, rs := range camp.Runs {
		if rs.Mode != campaign.ModeSim {
			live.Runs = append(live.Runs, rs)
		}
	}
	if len(live.Runs) == 0 {
		return "", fmt.Errorf("%s has no live run set (mode local or remote) to compare with the simulator", path)
	}
	for _, rs := range live.Runs {
		if rs.Mode == campaign.ModeLocal {
			if err := needRoot(); err != nil {
				return "", fmt.Errorf("the campaign has local runs: %w", err)
			}
		}
	}
	if out == "" {
		out = filepath.Join("results", camp.Name)
	}
	if err := checkOut(out); err != nil {
		return "", err
	}
	opt, err := campaignOptions(cmd, out, prefix, 1, quiet)
	if err != nil {
		return "", err
	}
	if err := campaign.Execute(ctx, &live, opt); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(cmd.ErrOrStderr(), "interrupted: finished runs are kept in %s; run the same command to resume\n", out)
		}
		return "", err
	}
	return out, nil
}

// compareFidelity simulates and replays every finished live run of the
// result directory root, writes root/fidelity.csv and prints the summary.
func compareFidelity(ctx context.Context, cmd *cobra.Command, camp *campaign.Campaign, root string, notBefore bool) error {
	runs := fidelity.LiveRuns(camp, root)
	if len(runs) == 0 {
		return fmt.Errorf("%s holds no finished live run of campaign %s", root, camp.Name)
	}
	stdout := cmd.OutOrStdout()
	var rows []fidelity.Row
	for _, r := range runs {
		p, err := fidelity.Simulate(r, filepath.Join(root, "fidelity"), notBefore, ctx.Done())
		if err != nil {
			return fmt.Errorf("run %s: %w", r.Rel(), err)
		}
		fmt.Fprintf(stdout, "%s: %s\n", r.Rel(), p.Placed)
		rs, err := fidelity.Compare(r, p.SimDir, p.ReplayDir)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	path := filepath.Join(root, "fidelity.csv")
	if err := fidelity.WriteCSV(path, rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s", fidelity.Summarize(rows).Format())
	fmt.Fprintf(stdout, "per job: %s\n", path)
	// the report draws fidelity.csv beside the campaign's results
	return afterCampaign(cmd, root)
}

// runReplay is `bench sim --replay RUN_DIR`: the live (or any recorded)
// run's decisions replayed in the simulator, a result directory of one
// run under out.
func runReplay(cmd *cobra.Command, f *simFlags) error {
	run, err := fidelity.Locate(f.replay, f.campaign)
	if err != nil {
		return err
	}
	spec, err := run.ReplaySpec(f.out, f.notBefore)
	if err != nil {
		return err
	}
	if err := replayOptions(cmd, f, &spec.Options); err != nil {
		return err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	sum, tm, err := sim.RunOne(spec)
	if err != nil {
		return err
	}
	if err := writeResults(f.out, []*metrics.Summary{&sum}, []*sim.Timing{&tm}); err != nil {
		return err
	}
	stdout := cmd.OutOrStdout()
	fmt.Fprint(stdout, metrics.Table([]metrics.Summary{sum}))
	placed, err := fidelity.Placements(run.Run.Dir, spec.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, placed)
	rec, err := fidelity.LoadJobs(run.Run.Dir)
	if err != nil {
		return err
	}
	rep, err := fidelity.LoadJobs(spec.Dir)
	if err != nil {
		return err
	}
	var rows []fidelity.Row
	for job, l := range rec {
		r, ok := rep[job]
		if !ok {
			r.JCT = math.NaN()
		}
		rows = append(rows, fidelity.Row{Policy: run.Run.Policy.String(), Job: job, Live: l, Sim: l, Replay: r})
	}
	s := fidelity.Summarize(rows)
	fmt.Fprintf(stdout, "replayed JCT within %.0f%% of the recorded: %d of %d jobs; cross-rack bytes within %.0f%%: %d of %d jobs\n",
		100*fidelity.JCTTolerance, s.ReplayWithin, s.Jobs, 100*fidelity.BytesTolerance, s.BytesEqual, s.BytesJobs)
	fmt.Fprintf(stdout, "records: %s\n", spec.Dir)
	return nil
}

// replayModelFlags are the simulator's model flags (the time step, the
// flow model, the link samples, the limits): those a replay takes from
// the command line, each setting its option.
var replayModelFlags = []struct {
	name string
	set  func(*sim.Options, *simFlags)
}{
	{"resolution", func(o *sim.Options, f *simFlags) { o.Resolution = f.resolution }},
	{"full-recompute", func(o *sim.Options, f *simFlags) { o.FullRecompute = f.fullEvery }},
	{"network", func(o *sim.Options, f *simFlags) { o.Network = f.network }},
	{"link-sample", func(o *sim.Options, f *simFlags) { o.Sample = f.linkSample }},
	{"max-sim-time", func(o *sim.Options, f *simFlags) { o.MaxSimTime = f.maxSimTime }},
	{"window", func(o *sim.Options, f *simFlags) { o.Window = f.window }},
}

// replayOptions applies to a replay the model flags given on the command
// line and refuses the others: the workload, cluster, policies and seed
// of a replay are the recorded run's.
func replayOptions(cmd *cobra.Command, f *simFlags, opt *sim.Options) error {
	if err := f.check(); err != nil {
		return err
	}
	own := map[string]bool{"replay": true, "campaign": true, "out": true, "not-before": true, "quiet": true, "cpuprofile": true}
	var model []string
	for _, m := range replayModelFlags {
		model = append(model, "--"+m.name)
	}
	var refused error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		for _, m := range replayModelFlags {
			if m.name == fl.Name {
				m.set(opt, f)
				return
			}
		}
		if !own[fl.Name] && refused == nil {
			refused = fmt.Errorf("--%s: a replay takes its workload, cluster, policy and seed from the recorded run; only the simulator's model flags (%s) apply",
				fl.Name, strings.Join(model, ", "))
		}
	})
	if refused != nil {
		return refused
	}
	return opt.Validate()
}
