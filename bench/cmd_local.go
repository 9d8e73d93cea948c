package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/racklab/racklab/shaping"
	"github.com/spf13/cobra"
)

type localFlags struct {
	clusterFlags
	storageFlags
	mode       string
	prefix     string
	workload   string
	datasets   string
	policies   string
	seed       uint64
	out        string
	natsPort   int
	maxRunTime time.Duration
	verbose    bool
	priorities bool
	shapeNICs  bool
	shareLinks bool
}

func localCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "local",
		Short: "run racklab on an emulated cluster on this machine (needs root or CAP_NET_ADMIN)",
		Long: `local emulates racks with network namespaces: a namespace per host, and
either a bridge per rack joined to a core by HTB-shaped veth pairs (switched
mode) or one segment where each worker shapes its own cross-rack traffic
(flat mode). NATS and memberlist run on a separate, unshaped management
network. Everything made is removed on exit, on a signal, and by
'bench local down'.`,
	}
	c.AddCommand(localRunCmd(), localUpCmd(), localDownCmd(), localStatusCmd())
	return c
}

func addClusterFlags(c *cobra.Command, f *localFlags) {
	fl := c.Flags()
	f.clusterFlags.add(fl, 3, 3)
	fl.StringVar(&f.mode, "mode", "switched", "switched (shaped rack links) or flat (workers shape their own NIC)")
	fl.StringVar(&f.prefix, "prefix", "rl", "name prefix of every namespace and link (1-6 of [a-z0-9])")
	fl.IntVar(&f.natsPort, "nats-port", 4222, "port of the coordinator's NATS server on the management network")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log the coordinator's events")
	fl.BoolVar(&f.priorities, "priorities", false, "one HTB leaf per priority band (chosen by DSCP) on every shaped bottleneck")
	fl.BoolVar(&f.shapeNICs, "shape-nics", false, "shape every host's NIC at the topology's rate")
	fl.BoolVar(&f.shareLinks, "share-links", false, "flat mode: the workers share each rack's links by demand (worker --shape-share) rather than split its uplink equally among its hosts")
}

func (f *localFlags) topologyAndMode() (*cluster.Topology, shaping.Mode, error) {
	mode, err := shaping.ParseMode(f.mode)
	if err != nil {
		return nil, 0, fmt.Errorf("--mode: %w", err)
	}
	t, err := f.clusterFlags.load()
	return t, mode, err
}

// checkCluster refuses the emulated cluster's flags that cannot work
// (local run and local up), naming the flag, and returns the cluster:
// all before anything is set up, so that a bad --prefix or a cluster
// larger than the emulator's addressing plan leaves no records
// directory or tmpfs behind, and needs no root to be told.
func (f *localFlags) checkCluster() (*cluster.Topology, shaping.Mode, error) {
	if f.topology == "" {
		if err := f.clusterFlags.check(); err != nil {
			return nil, 0, err
		}
	}
	if f.natsPort < 1 || f.natsPort > 65535 {
		return nil, 0, fmt.Errorf("--nats-port must be between 1 and 65535 (got %d)", f.natsPort)
	}
	topo, mode, err := f.topologyAndMode()
	if err != nil {
		return nil, 0, err
	}
	spec := local.NetworkSpec(local.Options{Prefix: f.prefix, Mode: mode, Topology: topo, Priorities: f.priorities, ShapeHostNICs: f.shapeNICs})
	if err := spec.Validate(); err != nil {
		return nil, 0, fmt.Errorf("the emulated cluster (--prefix, its size and rates): %w", err)
	}
	return topo, mode, nil
}

// needRoot explains what an emulated cluster needs when it is missing.
func needRoot() error {
	if os.Geteuid() == 0 {
		return nil
	}
	return errors.New("an emulated cluster makes network namespaces, veth pairs and tc qdiscs, which needs root " +
		"or CAP_NET_ADMIN and CAP_SYS_ADMIN: run the same command under sudo, " +
		"or use 'bench sim' for a simulation without privileges")
}

func (f *localFlags) options(topo *cluster.Topology, mode shaping.Mode, logf func(string, ...any)) (local.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return local.Options{}, err
	}
	return local.Options{Prefix: f.prefix, Mode: mode, Topology: topo, WorkerCommand: []string{exe, "worker"},
		Dir: local.ClusterDir(f.prefix), NATSPort: f.natsPort, Cluster: "racklab", Logf: logf, Priorities: f.priorities, ShapeHostNICs: f.shapeNICs, ShareRackLinks: f.shareLinks}, nil
}

func localRunCmd() *cobra.Command {
	var f localFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "run policies one after another on a fresh emulated cluster each, and compare them",
		Example: `  sudo bin/bench local run --workload examples/local/workload.yaml \
      --datasets examples/local/datasets.yaml --policies fifo,fair`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLocal(cmd, &f) },
	}
	addClusterFlags(c, &f)
	fl := c.Flags()
	fl.StringVar(&f.workload, "workload", "", "workload YAML file (required)")
	fl.StringVar(&f.datasets, "datasets", "", "datasets YAML file")
	fl.StringVar(&f.policies, "policies", "fifo,fair", "comma-separated policies")
	fl.Uint64Var(&f.seed, "seed", 1, "seed")
	fl.StringVar(&f.out, "out", "results/local", "result directory (one subdirectory per policy)")
	fl.DurationVar(&f.maxRunTime, "max-run-time", 10*time.Minute, "give up on a run after this long")
	f.storageFlags.add(fl)
	_ = c.MarkFlagRequired("workload")
	return c
}

// check refuses flag values of local run that cannot work, naming the
// flag, before anything is set up, and returns the cluster.
func (f *localFlags) check() (*cluster.Topology, shaping.Mode, error) {
	if f.maxRunTime <= 0 {
		return nil, 0, fmt.Errorf("--max-run-time must be positive (got %v)", f.maxRunTime)
	}
	if _, err := f.placer(); err != nil {
		return nil, 0, err
	}
	return f.checkCluster()
}

func runLocal(cmd *cobra.Command, f *localFlags) error {
	topo, mode, err := f.check()
	if err != nil {
		return err
	}
	if err := needRoot(); err != nil {
		return err
	}
	policies, err := parsePolicies(f.policies)
	if err != nil {
		return err
	}
	var ds *workload.Datasets
	if f.datasets != "" {
		if ds, err = workload.LoadDatasets(f.datasets, topo); err != nil {
			return err
		}
	}
	ctx, stop := interrupt.Context(context.Background(), os.Stderr)
	defer stop()
	out := cmd.OutOrStdout()
	logf := func(format string, args ...any) {
		if f.verbose {
			fmt.Fprintf(cmd.ErrOrStderr(), time.Now().Format("15:04:05.000 ")+format+"\n", args...)
		}
	}
	var rows []metrics.Summary
	var results []*live.Result
	for _, p := range policies {
		impl, err := policy.Build(p)
		if err != nil {
			return err
		}
		w, err := workload.LoadRunnable(f.workload, ds)
		if err != nil {
			return err
		}
		opt, err := f.options(topo, mode, logf)
		if err != nil {
			return err
		}
		dir := filepath.Join(f.out, fmt.Sprintf("%s-seed%d", p, f.seed))
		fmt.Fprintf(cmd.ErrOrStderr(), "local: %s on %d racks × %d hosts (%s)…\n", p, len(topo.Racks), len(topo.Hosts)/len(topo.Racks), mode)
		t0 := time.Now()
		sink, err := metrics.NewRunSink(dir, w, p.String(), f.seed)
		if err != nil {
			return err
		}
		placer, err := f.placer()
		if err != nil {
			return err
		}
		res, err := local.Run(ctx, opt, live.Config{Workload: w, Datasets: ds, Policy: p.String(), PolicyImpl: impl, Seed: f.seed, OutDir: dir,
			Placer: placer, MemoryLRU: f.memoryLRU, OutputPipeline: f.pipeline, MaxRunTime: f.maxRunTime, Logf: logf, Sink: sink})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "local: %s done in %.1f s; records in %s\n", p, time.Since(t0).Seconds(), dir)
		rows = append(rows, sink.Summary)
		results = append(results, res)
	}
	if err := metrics.WriteSummaries(filepath.Join(f.out, "summary.csv"), rows); err != nil {
		return err
	}
	fmt.Fprint(out, metrics.Table(rows))
	fmt.Fprintln(out)
	fmt.Fprintf(out, "%-10s %16s %16s %16s %9s\n", "policy", "engine cross B", "workers cross B", "kernel cross B", "kernel/eng")
	for i, r := range results {
		ratio := 0.0
		if r.ExpectedCrossBytes > 0 {
			ratio = r.KernelCrossBytes / float64(r.ExpectedCrossBytes)
		}
		fmt.Fprintf(out, "%-10s %16d %16d %16.0f %9.4f\n", rows[i].Policy, r.ExpectedCrossBytes, r.ReportedCrossBytes, r.KernelCrossBytes, ratio)
	}
	return nil
}

func localUpCmd() *cobra.Command {
	var f localFlags
	c := &cobra.Command{
		Use:   "up",
		Short: "bring up an emulated cluster with its workers and keep it until interrupted",
		Long: `up builds the network and starts a worker per host; the workers wait for a
coordinator on the management network. It prints the coordinator command to
run, and removes everything on Ctrl-C or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topo, mode, err := f.checkCluster()
			if err != nil {
				return err
			}
			if err := needRoot(); err != nil {
				return err
			}
			opt, err := f.options(topo, mode, nil)
			if err != nil {
				return err
			}
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			e, err := local.Start(opt)
			if err != nil {
				return err
			}
			creds, topoPath := local.UpFiles(f.prefix)
			if err := writeCoordinatorCreds(creds, e); err != nil {
				return errors.Join(err, e.Stop())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cluster %s is up: %d hosts; worker logs in %s (removed with the cluster)\n", f.prefix, len(topo.Hosts), opt.Dir)
			// the coordinator needs the cluster as a file: the uniform
			// flags' cluster goes beside the credentials
			topoFile, written := f.topology, ""
			if topoFile == "" {
				written = topoPath
				if err := os.WriteFile(written, []byte(f.uniformLine()), 0o644); err != nil {
					return errors.Join(err, e.Stop(), os.RemoveAll(creds))
				}
				topoFile = written
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run a coordinator with:\n  coordinator --listen %s --credentials %s --member-addr %s --topology %s --workload WORKLOAD --datasets DATASETS --policy POLICY\n",
				e.NATSListen(), creds, e.Net.MgmtIP, topoFile)
			<-ctx.Done()
			fmt.Fprintln(cmd.ErrOrStderr(), "local: taking the cluster down")
			err = errors.Join(e.Stop(), os.RemoveAll(creds))
			if written != "" {
				err = errors.Join(err, os.Remove(written))
			}
			return err
		},
	}
	addClusterFlags(c, &f)
	return c
}

func localDownCmd() *cobra.Command {
	var prefix string
	c := &cobra.Command{
		Use:   "down",
		Short: "remove every namespace, link and qdisc an emulated cluster left behind",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needRoot(); err != nil {
				return err
			}
			if err := local.Cleanup(prefix); err != nil {
				var inUse *shaping.InUseError
				if errors.As(err, &inUse) {
					return fmt.Errorf("cluster %s is running in %s: stop that process (Ctrl-C, or kill %d), and it removes its cluster itself", prefix, inUse.Holder(), inUse.PID)
				}
				return err
			}
			left, err := local.Leftovers(prefix)
			if err != nil {
				return err
			}
			if len(left) > 0 {
				return fmt.Errorf("still present after cleanup: %v", left)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "nothing of cluster %s is left\n", prefix)
			return nil
		},
	}
	c.Flags().StringVar(&prefix, "prefix", "rl", "name prefix of the cluster")
	return c
}

func localStatusCmd() *cobra.Command {
	var prefix string
	c := &cobra.Command{
		Use:   "status",
		Short: "list the namespaces and links of an emulated cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needRoot(); err != nil {
				return err
			}
			left, err := local.Leftovers(prefix)
			if err != nil {
				return err
			}
			owner := "left by no running process: bench local down removes it"
			var inUse *shaping.InUseError
			if err := shaping.InUse(prefix); errors.As(err, &inUse) {
				owner = "running in " + inUse.Holder()
			} else if err != nil {
				return err
			}
			if len(left) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "cluster %s: nothing present\n", prefix)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cluster %s: %d objects, %s\n", prefix, len(left), owner)
			for _, n := range left {
				fmt.Fprintln(cmd.OutOrStdout(), "  "+n)
			}
			return nil
		},
	}
	c.Flags().StringVar(&prefix, "prefix", "rl", "name prefix of the cluster")
	return c
}

// writeCoordinatorCreds writes the directory a coordinator started by
// hand reads: its own secret and every host's, for its embedded server.
func writeCoordinatorCreds(dir string, e *local.Emulator) error {
	return wire.WriteCredentials(dir, e.CoordinatorCredentials())
}
