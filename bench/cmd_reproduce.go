package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/reproduce"
	"github.com/spf13/cobra"
)

func reproduceCmd() *cobra.Command {
	var out, mode, dir, prefix string
	var parallel int
	var quiet bool
	c := &cobra.Command{
		Use:   "reproduce PAPER",
		Short: "run a paper's campaign in one mode and check its headline table: paper vs measured, with a verdict per row",
		Long: `reproduce runs the runs of one mode (sim or local; all its run sets, named
or not) of the paper's campaign, campaigns/<PAPER>.yaml, as 'bench run' does
(same result directory, resumed when rerun), then checks the campaign's headlines section against the
results. Per row it prints the paper's effect, the measured one (from the means
over repetitions, with their 95% confidence intervals) and the verdict:
reproduced when the direction matches the paper's and the effect lies within
½× to 2× of the paper's; otherwise not reproduced (wrong direction, too small,
too large); a row whose figure is a bound (≤, ≥) is reproduced when the
policy's mean keeps it; not measured when a run is missing or has failed jobs.
The last line is '<paper>: N of M headlines reproduced'.`,
		Example: `  bin/bench reproduce baselines                 # simulated; results in results/baselines
  sudo bin/bench reproduce demo --mode local`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch mode {
			case campaign.ModeSim:
			case campaign.ModeLocal:
				if err := needRoot(); err != nil {
					return fmt.Errorf("mode local: %w", err)
				}
			default:
				return fmt.Errorf("--mode %q: sim or local", mode)
			}
			path := reproduce.CampaignPath(dir, args[0])
			if _, err := os.Stat(path); os.IsNotExist(err) {
				return fmt.Errorf("no campaign for paper %s: %s does not exist (campaigns with headlines: %s)",
					args[0], path, strings.Join(reproduce.Papers(dir), ", "))
			}
			camp, table, err := reproduce.Prepare(path, mode)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", camp.Name)
			}
			opt, err := campaignOptions(cmd, out, prefix, parallel, quiet)
			if err != nil {
				return err
			}
			if quiet {
				opt.Logf = nil
			}
			stderr := cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			check, err := reproduce.Run(ctx, camp, table, mode, opt)
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "interrupted: finished runs are kept in %s; run the same command to resume\n", out)
				return err
			}
			if check == nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "results in %s ('bench report %s' shows this table too)\n\n", out, out)
			if werr := check.WriteText(cmd.OutOrStdout()); werr != nil {
				return werr
			}
			return err
		},
	}
	c.Flags().StringVar(&mode, "mode", campaign.ModeSim, "the campaign's runs to run and check: sim or local (local needs root)")
	c.Flags().StringVar(&out, "out", "", "result directory (default results/<campaign name>, as 'bench run')")
	c.Flags().StringVar(&dir, "campaigns", "campaigns", "where the papers' campaign files are")
	c.Flags().IntVar(&parallel, "parallel", runtime.NumCPU(), "simulated runs at once")
	c.Flags().StringVar(&prefix, "prefix", "rl", "name prefix of the emulated cluster (local runs)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bars or run log")
	return c
}
