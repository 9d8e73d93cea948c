package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
	"github.com/spf13/cobra"
)

// ParseTier parses a tier flag: KIND:DIR[:READ[:WRITE[:CAPACITY]]], with
// rates in bytes per second ("200MB", "1GiB"; 0 or empty: unlimited).
func ParseTier(s string) (store.TierConfig, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || parts[1] == "" {
		return store.TierConfig{}, fmt.Errorf("tier %q: want KIND:DIR[:READ[:WRITE[:CAPACITY]]]", s)
	}
	kind, err := cluster.ParseTierKind(parts[0])
	if err != nil {
		return store.TierConfig{}, fmt.Errorf("tier %q: %w", s, err)
	}
	t := store.TierConfig{Kind: kind, Dir: parts[1]}
	vals := []*float64{&t.ReadBps, &t.WriteBps}
	for i, p := range parts[2:] {
		if p == "" {
			continue
		}
		n, err := units.ParseBytes(p)
		if err != nil {
			return store.TierConfig{}, fmt.Errorf("tier %q: field %d: %w", s, i+3, err)
		}
		switch {
		case i < 2:
			*vals[i] = float64(n)
		case i == 2:
			t.Capacity = n
		default:
			return store.TierConfig{}, fmt.Errorf("tier %q: too many fields", s)
		}
	}
	return t, nil
}

// Command is the worker's command line, shared by the worker binary and
// the emulator, which starts workers as `bench worker`.
func Command() *cobra.Command {
	var cfg Config
	var tiers []string
	var credsPath, shape string
	var cleanup, guard bool
	bypassCache := true
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run one racklab worker (one per host)",
		Long: `A worker registers with the coordinator over NATS, joins the memberlist
cluster with its rack, serves blocks and partitions on its data address, and
runs the attempts it is sent. It removes its objects and shaping on exit.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cleanup {
				return Cleanup(cmd.OutOrStdout(), cfg.DataDev, tiers)
			}
			if guard {
				return runGuard(cmd.ErrOrStderr(), cfg.DataDev, cfg.DeadMan)
			}
			for _, s := range tiers {
				t, err := ParseTier(s)
				if err != nil {
					return err
				}
				if !bypassCache {
					t.Cache = store.CacheKeep
				}
				cfg.Tiers = append(cfg.Tiers, t)
			}
			// the default tier's directory is the worker's own: removed at
			// the end (if empty: the store wipes what it wrote), where a
			// tier directory given to it is left
			var ownDir string
			if len(cfg.Tiers) == 0 {
				ownDir = filepath.Join(os.TempDir(), "racklab-"+cfg.Host)
				cfg.Tiers = []store.TierConfig{{Kind: cluster.Mem, Dir: ownDir}}
			}
			if credsPath != "" {
				pw, err := wire.LoadWorkerSecret(credsPath, cfg.Host)
				if err != nil {
					return err
				}
				cfg.Password = pw
			}
			if shape != "" {
				n, err := units.ParseBytes(shape)
				if err != nil {
					return fmt.Errorf("--shape: %w", err)
				}
				cfg.ShapeBps = float64(n)
			}
			if cfg.DeadMan != 0 && cfg.DeadMan < MinDeadMan {
				return fmt.Errorf("--deadman %v: want 0 (off) or at least %v", cfg.DeadMan, MinDeadMan)
			}
			cfg.GuardArgs = guardArgs(cmd)
			logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
			cfg.Logf = logger.Printf
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			err := Run(ctx, cfg)
			if ownDir != "" {
				_ = os.Remove(ownDir)
			}
			if err != nil && !(errors.Is(err, context.Canceled) && ctx.Err() != nil) {
				return err
			}
			return nil // also when a signal stopped it: a worker's normal end
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Host, "host", "", "this host's name in the topology (required)")
	f.StringVar(&cfg.Rack, "rack", "", "this host's rack (required)")
	f.IntVar(&cfg.Slots, "slots", 2, "task slots")
	f.StringVar(&cfg.NATSURL, "nats", "nats://127.0.0.1:4222", "NATS server URL")
	f.StringVar(&credsPath, "credentials", "", "this host's own secret, worker-HOST.json, from 'coordinator credentials'")
	f.StringVar(&cfg.Cluster, "cluster", "racklab", "cluster name (prefix of every subject)")
	f.StringVar(&cfg.DataAddr, "data-addr", "127.0.0.1:0", "data server address, on the data NIC")
	f.StringVar(&cfg.MemberAddr, "member-addr", "127.0.0.1", "memberlist bind address, on the management network")
	f.IntVar(&cfg.MemberPort, "member-port", 0, "memberlist port (0: any free one)")
	f.StringVar(&cfg.DataDev, "data-dev", "", "data NIC, for counters and host shaping")
	f.StringVar(&shape, "shape", "", "shape traffic to each other rack at this rate per second (host shaping), e.g. 12.5MB")
	f.DurationVar(&cfg.DeadMan, "deadman", 2*time.Second, "with --shape: a guardian process removes the shaping if this worker dies or stops refreshing it for this long (0: no guardian)")
	f.BoolVar(&cfg.ShapePriorities, "shape-priorities", false, "with --shape: one HTB leaf per priority band in each rack class, chosen by DSCP")
	f.IntVar(&cfg.Fetchers, "fetchers", 5, "parallel fetches per shuffling attempt")
	f.StringVar(&cfg.Congestion, "tcp-congestion", dataplane.DefaultCongestion, "TCP congestion control of the data plane's sockets (\"\": the system's default, net.ipv4.tcp_congestion_control)")
	f.BoolVar(&cfg.SleepCompute, "sleep-compute", false, "attempts wait their compute time out instead of burning CPU (hosts emulated on one machine)")
	ShareFlag(f, &cfg)
	f.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address (e.g. :9465)")
	f.StringArrayVar(&tiers, "tier", nil, "storage tier KIND:DIR[:READ[:WRITE[:CAPACITY]]], repeatable (default: one unlimited mem tier in the temp dir)")
	f.BoolVar(&bypassCache, "bypass-cache", true, "keep SSD and HDD tier objects out of the page cache (fdatasync and posix_fadvise DONTNEED after each write and read), so their reads come from the device, not RAM; tiers on tmpfs and the mem tier always use the cache; false: leave the cache alone")
	f.BoolVar(&cleanup, "cleanup", false, "remove what a crashed worker left (its qdisc on --data-dev, its objects in the --tier directories) and exit")
	// what a worker runs as its dead-man guardian (deadman.go)
	f.BoolVar(&guard, "guard", false, "watch a worker's refreshes on stdin; remove the shaping on --data-dev when they stop for --deadman")
	_ = f.MarkHidden("guard")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if !cleanup && !guard {
			for _, name := range []string{"host", "rack"} {
				if !cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s is required", name)
				}
			}
		}
		return nil
	}
	return cmd
}

// guardArgs are the arguments that make this binary run as a guardian:
// `worker --guard`, under whatever command runs the worker ("worker",
// "bench worker").
func guardArgs(worker *cobra.Command) []string {
	return append(strings.Fields(worker.CommandPath())[1:], "--guard")
}

// Cleanup removes what a worker that died without its own cleanup left:
// the root qdisc racklab made on dev, and every object and temporary file
// in the tier directories. It is what a service manager runs before a
// worker starts and after it stops.
func Cleanup(out io.Writer, dev string, tierFlags []string) error {
	var errs []error
	if dev != "" {
		removed, err := shaping.RemoveHostShaper(dev)
		if err != nil {
			errs = append(errs, err)
		} else if removed {
			fmt.Fprintf(out, "removed racklab's qdisc from %s\n", dev)
		}
	}
	for _, s := range tierFlags {
		t, err := ParseTier(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n, err := store.RemoveObjects(t.Dir, wire.DatasetObjects, wire.OutputObjects)
		if err != nil {
			errs = append(errs, err)
		}
		if n > 0 {
			fmt.Fprintf(out, "removed %d objects from %s\n", n, t.Dir)
		}
	}
	return errors.Join(errs...)
}
