package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/reproduce"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/spf13/cobra"
)

func runCmd() *cobra.Command {
	var out, prefix string
	var parallel int
	var quiet bool
	c := &cobra.Command{
		Use:   "run CAMPAIGN",
		Short: "run a campaign: policies × repetitions in simulation, on the emulated cluster, or on a lab cluster",
		Long: `run executes every run of a campaign file and writes a result directory:
the campaign as run (campaign.yaml), meta.json (versions, host facts), and per
mode (sim/, local/, remote/) a summary.csv and a directory of records per run;
with named workloads (workloads:), per mode and workload (sim/<workload>/);
a named run set's go to <mode>-<name>/ (sim-varys/).
Rerunning the same campaign into the same directory resumes it: finished runs
are kept, an interrupted one is redone. Ctrl-C stops cleanly.`,
		Example: `  bin/bench run campaigns/demo.yaml              # results in results/<name>
  sudo bin/bench run campaigns/demo.yaml --out results/demo`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, err := campaign.Load(args[0])
			if err != nil {
				return err
			}
			// a bad headline table fails now, not in the report at the end
			if _, err := reproduce.Parse(camp); err != nil {
				return err
			}
			for _, rs := range camp.Runs {
				if rs.Mode == campaign.ModeLocal {
					if err := needRoot(); err != nil {
						return fmt.Errorf("the campaign has local runs: %w", err)
					}
				}
			}
			if out == "" {
				out = filepath.Join("results", camp.Name)
			}
			if err := checkOut(out); err != nil {
				return err
			}
			opt, err := campaignOptions(cmd, out, prefix, parallel, quiet)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			err = campaign.Execute(ctx, camp, opt)
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "interrupted: finished runs are kept in %s; run the same command to resume\n", out)
				return err
			}
			if err != nil {
				return err
			}
			sets, rows := camp.Summaries(out)
			for _, m := range sets {
				fmt.Fprintf(cmd.OutOrStdout(), "\n%s:\n%s", m, metrics.Table(rows[m]))
				// a result set is <mode>[-<name>][/<workload>]
				set, _, _ := strings.Cut(m, "/")
				if mode, _, _ := strings.Cut(set, "-"); mode != campaign.ModeSim {
					fmt.Fprintf(cmd.OutOrStdout(), "%-10s %6s %16s %16s %16s\n", "policy", "seed", "engine cross B", "kernel cross B", "kernel/engine")
					for _, s := range rows[m] {
						fmt.Fprintf(cmd.OutOrStdout(), "%-10s %6d %16.0f %16.0f %16.4f\n", s.Policy, s.Seed, float64(s.Bytes.Cross()), s.MeasuredCrossRackBytes,
							s.MeasuredCrossRackBytes/max(1, float64(s.Bytes.Cross())))
					}
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\ncampaign %s: results in %s\n", camp.Name, out)
			return afterCampaign(cmd, out)
		},
	}
	c.Flags().StringVar(&out, "out", "", "result directory (default results/<campaign name>)")
	c.Flags().IntVar(&parallel, "parallel", runtime.NumCPU(), "simulated runs at once")
	c.Flags().StringVar(&prefix, "prefix", "rl", "name prefix of the emulated cluster (local runs)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bars")
	return c
}

// checkOut refuses a result directory that cannot be one (a file, or
// below one), naming the flag, before any work: the system's own error
// ("mkdir X: not a directory") comes later and names no flag.
func checkOut(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("--out %s is a file, not a directory", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// campaignOptions are what bench run and bench reproduce give a campaign:
// the result directory, this binary as the workers' command, and on a
// terminal progress bars (unless quiet) in place of the run log.
func campaignOptions(cmd *cobra.Command, out, prefix string, parallel int, quiet bool) (campaign.Options, error) {
	// campaign.Execute reads 0 or less as "every core": said so, not
	// taken silently, as bench sim does
	if parallel < 1 {
		return campaign.Options{}, fmt.Errorf("--parallel must be at least 1 (got %d)", parallel)
	}
	exe, err := os.Executable()
	if err != nil {
		return campaign.Options{}, err
	}
	stderr := cmd.ErrOrStderr()
	opt := campaign.Options{Out: out, Parallel: parallel, WorkerCommand: []string{exe, "worker"}, Prefix: prefix,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
		}}
	if !quiet && isTerminal(os.Stderr) {
		opt.Progress = stderr
		opt.Logf = func(string, ...any) {}
	}
	return opt, nil
}
