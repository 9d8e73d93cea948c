package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/reproduce"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/spf13/cobra"
)

func reproduceCmd() *cobra.Command {
	var out, mode, dir, prefix string
	var parallel int
	var quiet, pageOnly bool
	var papers []string
	c := &cobra.Command{
		Use:   "reproduce PAPER|all",
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
The last line is '<paper>: N of M headlines reproduced'.

'reproduce all' does it for every paper (--papers; default the five), each
into <out>/<paper> (default out: results/all), and also simulates each
paper's emulated run sets (<out>/<paper>/twin: the same run set, workload,
policy and seed in the simulator). Then it writes one page from whatever
results are there, <out>/reproduction.html and .md: per paper its headline
rows (paper, simulation, emulation, verdicts), its key figure from the
paper's own report (<out>/<paper>/report), and the fidelity of its emulated
runs (mean JCT and cross-rack bytes, emulated against simulated, within 15%
or not). Run it once in each mode: each adds its mode's results and
rewrites the page. A paper that fails shows the failure in its section and
the others still run. --page-only rewrites the page without running
anything, from each paper's <out>/<paper>/campaign.yaml, the campaign its
runs were made with (--campaigns is not read): after editing a
campaign's headlines or found texts, 'reproduce PAPER --out
<out>/<paper>' (in a mode whose runs are all there, so it runs nothing)
takes them in first. The last line is, per paper, N of M reproduced in each mode.`,
		Example: `  bin/bench reproduce baselines                 # simulated; results in results/baselines
  sudo bin/bench reproduce demo --mode local
  bin/bench reproduce all                       # the five papers simulated, one page: results/all/reproduction.html
  sudo bin/bench reproduce all --mode local     # then emulated, into the same page
  bin/bench reproduce all --page-only           # the page again from the results there`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch mode {
			case campaign.ModeSim:
			case campaign.ModeLocal:
				if err := needRoot(); err != nil && !pageOnly {
					return fmt.Errorf("mode local: %w", err)
				}
			default:
				return fmt.Errorf("--mode %q: sim or local", mode)
			}
			if args[0] == "all" {
				return reproduceAll(cmd, reproduce.AllOptions{Campaigns: dir, Papers: papers, Out: out, Mode: mode}, prefix, parallel, quiet, pageOnly)
			}
			if pageOnly || cmd.Flags().Changed("papers") {
				return fmt.Errorf("--page-only and --papers are options of 'reproduce all'")
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
			if err := checkOut(out); err != nil {
				return err
			}
			opt, err := campaignOptions(cmd, out, prefix, parallel, quiet)
			if err != nil {
				return err
			}
			if quiet {
				opt.Logf = nil
			}
			stderr := cmd.ErrOrStderr()
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
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
	c.Flags().BoolVar(&pageOnly, "page-only", false, "reproduce all: rewrite the page from the results there, running nothing")
	c.Flags().StringSliceVar(&papers, "papers", reproduce.DefaultPapers, "reproduce all: the papers (their campaigns' names), in the page's order")
	return c
}

// reproduceAll is 'reproduce all': every paper's runs of a mode (unless
// pageOnly), then the page.
func reproduceAll(cmd *cobra.Command, opt reproduce.AllOptions, prefix string, parallel int, quiet, pageOnly bool) error {
	if opt.Out == "" {
		opt.Out = filepath.Join("results", "all")
	}
	if len(opt.Papers) == 0 {
		return fmt.Errorf("--papers names no paper")
	}
	if err := checkOut(opt.Out); err != nil {
		return err
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var failed []string
	if !pageOnly {
		copt, err := campaignOptions(cmd, "", prefix, parallel, quiet)
		if err != nil {
			return err
		}
		if quiet {
			copt.Logf = nil
		}
		opt.Options = copt
		ctx, stop := interrupt.Context(context.Background(), os.Stderr)
		defer stop()
		runs, err := reproduce.RunAll(ctx, opt)
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "interrupted: finished runs are kept in %s; run the same command to resume\n", opt.Out)
			return err
		}
		if err != nil {
			return err
		}
		for _, r := range runs {
			if r.Err != nil {
				failed = append(failed, r.Paper)
				fmt.Fprintf(stderr, "%s: %v\n", r.Paper, r.Err)
			}
		}
	}
	page := reproduce.Page(opt)
	htmlPath, mdPath, err := page.Write(opt.Out)
	if err != nil {
		return fmt.Errorf("the page: %w", err)
	}
	fmt.Fprintf(stdout, "page: %s\n      %s\n\n", htmlPath, mdPath)
	for _, p := range page.Papers {
		fmt.Fprintln(stdout, p.Headlines.Summary)
		if p.Fidelity.Summary != "" {
			fmt.Fprintln(stdout, "  "+p.Fidelity.Summary)
		}
		for _, f := range p.Failures {
			fmt.Fprintln(stdout, "  failed: "+firstLine(f))
		}
	}
	fmt.Fprintf(stdout, "\n%s\n%s\n", page.FidelitySummary, page.Summary)
	if len(failed) > 0 {
		return fmt.Errorf("%s failed (the page shows why)", strings.Join(failed, ", "))
	}
	return nil
}

// firstLine is the first line of a text, with "…" when there are more.
func firstLine(s string) string {
	if line, _, more := strings.Cut(s, "\n"); more {
		return line + " …"
	}
	return s
}
