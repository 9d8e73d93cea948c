package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/racklab/racklab/bench/check"
	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/racklab/racklab/shaping"
	"github.com/spf13/cobra"
)

func checkCmd() *cobra.Command {
	var cf clusterFlags
	var network, prefix string
	var measure time.Duration
	var verbose bool
	c := &cobra.Command{
		Use:   "check",
		Short: "check an emulated cluster's shaped rates, tier rates and priority order (needs root)",
		Long: `check brings up an emulated cluster as 'bench local' does, with priority
leaves on every shaped bottleneck and shaped host NICs, and measures with the
kernel's counters: the shaped rack rate, the shaped host NIC rate, each tier's
read rate, and two flows of different priorities through one bottleneck (the
higher must get at least 90% while both send, the lower must keep its
guarantee). It prints one line per check and 'check: N of M passed', exits
non-zero if one fails, and removes everything it made, also on a signal.`,
		Example: `  sudo bin/bench check --network switched
  sudo bin/bench check --network flat`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode, err := shaping.ParseMode(network)
			if err != nil {
				return fmt.Errorf("--network: %w", err)
			}
			if measure <= 0 {
				return fmt.Errorf("--measure must be positive (got %v)", measure)
			}
			if err := needRoot(); err != nil {
				return err
			}
			topo, err := cf.load()
			if err != nil {
				return err
			}
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			opt := check.Options{Prefix: prefix, Mode: mode, Topology: topo, Dir: local.ClusterDir(prefix), Measure: measure}
			if verbose {
				opt.Logf = func(format string, args ...any) { fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", args...) }
			}
			out := cmd.OutOrStdout()
			opt.OnLine = func(l check.Line) { fmt.Fprintln(out, l) }
			fmt.Fprintf(out, "check: %d racks × %d hosts, %s network, NIC %.0f Mbit/s, rack 0 uplink %.0f Mbit/s\n",
				len(topo.Racks), len(topo.Racks[0].Hosts), mode, topo.Hosts[0].NICBps*8/1e6, topo.Racks[0].UplinkBps*8/1e6)
			lines, err := check.Run(ctx, opt)
			if err != nil {
				return err
			}
			passed := check.Passed(lines)
			fmt.Fprintf(out, "check: %d of %d passed\n", passed, len(lines))
			if passed < len(lines) {
				return fmt.Errorf("%d of %d checks failed", len(lines)-passed, len(lines))
			}
			return nil
		},
	}
	fl := c.Flags()
	cf.add(fl, 2, 2)
	fl.StringVar(&network, "network", "switched", "switched (shaped rack links) or flat (each host shapes its own cross-rack traffic)")
	fl.StringVar(&prefix, "prefix", "rlck", "name prefix of every namespace and link (1-6 of [a-z0-9])")
	fl.DurationVar(&measure, "measure", 2*time.Second, "how long each rate is measured")
	fl.BoolVarP(&verbose, "verbose", "v", false, "print each line as it is measured")
	return c
}
