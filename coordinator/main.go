// Command coordinator is the live racklab coordinator: it runs the
// scheduler under test on real workers over NATS (see coordinator/live).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/interrupt"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

func main() {
	if err := command().Execute(); err != nil {
		os.Exit(interrupt.ExitStatus())
	}
}

func command() *cobra.Command {
	var cfg live.Config
	var topoPath, wlPath, dsPath, credsPath, policyArgs, label string
	cmd := &cobra.Command{
		Use:   "coordinator",
		Short: "Run a workload on live racklab workers with the scheduler under test",
		Long: `The coordinator embeds a NATS server (or connects to one with --nats), waits
for every host of the topology to register, writes the input blocks onto the
workers' tiers, runs the workload with the chosen policy on the wall clock, and
writes its records (attempts, jobs, links, events, summary) to --out as they
happen. With an embedded server, it admits the coordinator and one NATS user
per host, whose secrets are in the --credentials directory (coordinator.json,
worker-HOST.json); the files that are missing are generated. Give each worker
only its own worker-HOST.json ('coordinator credentials' makes them ahead).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// durations first: before anything is read or written
			for _, d := range []struct {
				flag string
				v    time.Duration
			}{{"--register-timeout", cfg.RegisterTimeout}, {"--max-run-time", cfg.MaxRunTime}, {"--window", cfg.Window}} {
				if d.v < 0 {
					return fmt.Errorf("%s %v is negative", d.flag, d.v)
				}
			}
			if cfg.RegisterTimeout == 0 {
				return fmt.Errorf("--register-timeout must be positive: the coordinator waits that long for every host")
			}
			// as live.Run refuses it, but before the secrets and the
			// records' directory are written
			if cfg.MaxRunTime > 0 && cfg.MaxRunTime < cfg.Window {
				return fmt.Errorf("--max-run-time %v is shorter than --window %v: the run would fail before the window ends it", cfg.MaxRunTime, cfg.Window)
			}
			var err error
			spec := policy.Spec{Name: cfg.Policy, Label: label}
			if policyArgs != "" {
				if err := yaml.Unmarshal([]byte(policyArgs), &spec.Args); err != nil {
					return fmt.Errorf("--policy-args: want a YAML mapping such as '{node_threshold: -1}': %v", err)
				}
			}
			if err := policy.CheckLabel(spec.String()); err != nil {
				return fmt.Errorf("--label: %v", err)
			}
			if cfg.PolicyImpl, err = policy.Build(spec); err != nil {
				return err
			}
			cfg.Policy = spec.String()
			if cfg.Topology, err = cluster.LoadTopology(topoPath); err != nil {
				return err
			}
			if dsPath != "" {
				if cfg.Datasets, err = workload.LoadDatasets(dsPath, cfg.Topology); err != nil {
					return err
				}
			}
			if cfg.Workload, err = workload.LoadRunnable(wlPath, cfg.Datasets); err != nil {
				return err
			}
			if cfg.Creds, err = credentials(credsPath, cfg.Topology, cfg.NATSURL == ""); err != nil {
				return err
			}
			logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
			cfg.Logf = logger.Printf
			ctx, stop := interrupt.Context(context.Background(), os.Stderr)
			defer stop()
			sink, err := metrics.NewRunSink(cfg.OutDir, cfg.Workload, cfg.Policy, cfg.Seed)
			if err != nil {
				return err
			}
			cfg.Sink = sink
			res, err := live.Run(ctx, cfg)
			if res != nil && sink.Summary.Jobs > 0 {
				// the kernel's count is negative when nobody counted (a
				// coordinator run by hand has no shaped links to read)
				kernel := "not counted"
				if res.KernelCrossBytes >= 0 {
					kernel = fmt.Sprintf("%.0f", res.KernelCrossBytes)
				}
				fmt.Printf("jobs %d (failed %d, unfinished %d), makespan %.2f s, mean JCT %.2f s; cross-rack bytes: engine %d, workers %d, kernel %s; records in %s\n",
					sink.Summary.Jobs, sink.Summary.FailedJobs, sink.Summary.UnfinishedJobs, sink.Summary.MakespanS, sink.Summary.JCTMeanS,
					res.ExpectedCrossBytes, res.ReportedCrossBytes, kernel, res.Dir)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&topoPath, "topology", "", "topology YAML (required)")
	f.StringVar(&wlPath, "workload", "", "workload YAML (required)")
	f.StringVar(&dsPath, "datasets", "", "datasets YAML (unplaced datasets are placed HDFS-style)")
	f.StringVar(&cfg.Policy, "policy", "fifo", fmt.Sprintf("scheduling policy: %v", policy.Names()))
	f.StringVar(&policyArgs, "policy-args", "", "the policy's args as a YAML mapping, e.g. '{node_threshold: -1}'")
	f.StringVar(&label, "label", "", "the name the records give the run (default: the policy's name)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the engine, the placement and the block contents")
	f.StringVar(&cfg.Listen, "listen", "127.0.0.1:4222", "embedded NATS server address")
	f.StringVar(&cfg.NATSURL, "nats", "", "external NATS server URL (instead of the embedded one)")
	f.StringVar(&credsPath, "credentials", "racklab-credentials", "credentials directory: coordinator.json and worker-HOST.json (generated for an embedded server if missing)")
	f.StringVar(&cfg.Cluster, "cluster", "racklab", "cluster name (prefix of every subject)")
	f.StringVar(&cfg.MemberAddr, "member-addr", "", "join memberlist on this address to hear of dead workers")
	f.StringVar(&cfg.OutDir, "out", "results/live", "directory for the run's records")
	f.DurationVar(&cfg.RegisterTimeout, "register-timeout", time.Minute, "how long to wait for every host to register")
	f.DurationVar(&cfg.MaxRunTime, "max-run-time", 0, "give up on a run after this long (0: never)")
	f.DurationVar(&cfg.Window, "window", 0, "experiment window from the run's start: the run ends there with success, its jobs left recorded as unfinished (0: none; at most --max-run-time)")
	f.DurationVar(&cfg.StallTimeout, "stall-timeout", 0, fmt.Sprintf("end a run that makes no progress for this long, saying why (0: %v; negative: never)", live.DefaultStallTimeout))
	f.BoolVar(&cfg.StopWorkers, "stop-workers", true, "tell the workers to exit when the run ends")
	f.StringVar(&cfg.MetricsAddr, "metrics-addr", "127.0.0.1:9464", "serve Prometheus metrics on this address (empty: off)")
	_ = cmd.MarkFlagRequired("topology")
	_ = cmd.MarkFlagRequired("workload")
	cmd.AddCommand(credentialsCommand())
	return cmd
}

// credentialsCommand issues a cluster's secrets ahead of its runs, for a
// deployment (such as the Ansible role) that hands each host its file.
func credentialsCommand() *cobra.Command {
	var dir, topoPath string
	var hosts []string
	cmd := &cobra.Command{
		Use:   "credentials",
		Short: "Write the NATS secrets of a cluster: the coordinator's and one per host",
		Long: `Writes --out/coordinator.json (the coordinator's secret, which stays on the
coordinator's machine) and --out/worker-HOST.json for every host of --topology
or --hosts (give each host only its own file). Files that exist are kept, so
that the command can run again when hosts are added; two files holding the
same password are refused.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if topoPath != "" {
				topo, err := cluster.LoadTopology(topoPath)
				if err != nil {
					return err
				}
				for _, h := range topo.Hosts {
					hosts = append(hosts, h.Name)
				}
			}
			if len(hosts) == 0 {
				return errors.New("name the hosts with --topology or --hosts")
			}
			// a host named twice would get two secrets, refused only after
			// they are written as "two files with the same password"
			seen := map[string]bool{}
			for _, h := range hosts {
				if seen[h] {
					return fmt.Errorf("host %s is named twice (--hosts, and the hosts of --topology): each host has one secret", h)
				}
				seen[h] = true
			}
			_, wrote, err := wire.EnsureCredentials(dir, hosts)
			for _, p := range wrote {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", p)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "out", "racklab-credentials", "credentials directory")
	f.StringVar(&topoPath, "topology", "", "topology YAML whose hosts get secrets")
	f.StringSliceVar(&hosts, "hosts", nil, "host names that get secrets (comma-separated)")
	return cmd
}

// credentials loads the coordinator's secret from dir and, for an
// embedded server, every host's, writing those that are missing.
func credentials(dir string, topo *cluster.Topology, embedded bool) (wire.Credentials, error) {
	if !embedded {
		// the external server admits the workers: only our own secret
		return wire.LoadCredentials(dir, nil)
	}
	var hosts []string
	for _, h := range topo.Hosts {
		hosts = append(hosts, h.Name)
	}
	c, wrote, err := wire.EnsureCredentials(dir, hosts)
	if len(wrote) > 0 {
		log.Printf("wrote %d new NATS secrets in %s; start each worker with --credentials %s", len(wrote), dir, wire.WorkerFile(dir, "HOST"))
	}
	return c, err
}
