package main

import (
	"fmt"

	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/bench/reproduce"
	"github.com/spf13/cobra"
)

func reportCmd() *cobra.Command {
	var opt report.Options
	c := &cobra.Command{
		Use:   "report DIR",
		Short: "turn a campaign's (or a bench sim's) result directory into an HTML and Markdown report",
		Long: `report reads a result directory — a campaign's (sim/, local/, remote/ result
sets) or one result set such as 'bench sim --out' writes — and writes
report.html (one self-contained page), report.md and every figure as SVG and
PNG: per metric, each policy against a baseline with the mean and a 95%
confidence interval over repetitions; JCT CDF, makespan and throughput,
cross-rack bytes by category, locality by tier, rack-link utilisation over
time, and link-load skew. When the campaign has a headline table (a
headlines section, see 'bench reproduce'), the report checks it too.`,
		Example: `  bin/bench report results/demo
  bin/bench report results/fb2009 --baseline fifo --out /tmp/fb2009-report`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.OutDir != "" {
				if err := checkOut(opt.OutDir); err != nil {
					return err
				}
			}
			dirOpt, err := reproduce.ReportOptions(args[0])
			if err != nil {
				return err
			}
			dirOpt.Baseline, dirOpt.OutDir, dirOpt.Title = opt.Baseline, opt.OutDir, opt.Title
			// records changed since their run are reported as they are
			// now, and said to be so, here and in the report's header
			for _, p := range dirOpt.Problems {
				fmt.Fprintf(cmd.ErrOrStderr(), "report: warning: %s; the report reads the records as they are now ('bench run' of the campaign would redo the run)\n", p)
			}
			r, err := report.Generate(args[0], dirOpt)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n        %s\n", r.HTMLPath, r.MarkdownPath)
			return nil
		},
	}
	c.Flags().StringVar(&opt.Baseline, "baseline", "", "policy the others are compared with (default: the first of each summary)")
	c.Flags().StringVar(&opt.OutDir, "out", "", "where the report goes (default DIR/report)")
	c.Flags().StringVar(&opt.Title, "title", "", "the report's title")
	return c
}

// afterCampaign writes the report of a finished campaign and says where
// it is.
func afterCampaign(cmd *cobra.Command, dir string) error {
	r, err := reproduce.PaperReport(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n        %s\n", r.HTMLPath, r.MarkdownPath)
	return nil
}
