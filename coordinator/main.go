// Command coordinator is the live racklab coordinator: it runs the
// scheduler under test on real workers over NATS (see coordinator/live).
package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

func main() {
	if err := command().Execute(); err != nil {
		os.Exit(1)
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
happen. With an embedded server and no credentials file, it generates one.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
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
			if cfg.Workload, err = workload.LoadWorkloadFor(wlPath, cfg.Datasets); err != nil {
				return err
			}
			if cfg.Creds, err = credentials(credsPath, cfg.NATSURL == ""); err != nil {
				return err
			}
			logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
			cfg.Logf = logger.Printf
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sink, err := metrics.NewRunSink(cfg.OutDir, cfg.Workload, cfg.Policy, cfg.Seed)
			if err != nil {
				return err
			}
			cfg.Sink = sink
			res, err := live.Run(ctx, cfg)
			if res != nil && sink.Summary.Jobs > 0 {
				fmt.Printf("jobs %d (failed %d), makespan %.2f s, mean JCT %.2f s; cross-rack bytes: engine %d, workers %d, kernel %.0f; records in %s\n",
					sink.Summary.Jobs, sink.Summary.FailedJobs, sink.Summary.MakespanS, sink.Summary.JCTMeanS,
					res.ExpectedCrossBytes, res.ReportedCrossBytes, res.KernelCrossBytes, res.Dir)
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
	f.StringVar(&credsPath, "credentials", "racklab-credentials.json", "credentials file (generated for an embedded server if missing)")
	f.StringVar(&cfg.Cluster, "cluster", "racklab", "cluster name (prefix of every subject)")
	f.StringVar(&cfg.MemberAddr, "member-addr", "", "join memberlist on this address to hear of dead workers")
	f.StringVar(&cfg.OutDir, "out", "results/live", "directory for the run's records")
	f.DurationVar(&cfg.RegisterTimeout, "register-timeout", time.Minute, "how long to wait for every host to register")
	f.DurationVar(&cfg.MaxRunTime, "max-run-time", 0, "give up on a run after this long (0: never)")
	f.DurationVar(&cfg.StallTimeout, "stall-timeout", 0, fmt.Sprintf("end a run that makes no progress for this long, saying why (0: %v; negative: never)", live.DefaultStallTimeout))
	f.BoolVar(&cfg.StopWorkers, "stop-workers", true, "tell the workers to exit when the run ends")
	f.StringVar(&cfg.MetricsAddr, "metrics-addr", "127.0.0.1:9464", "serve Prometheus metrics on this address (empty: off)")
	_ = cmd.MarkFlagRequired("topology")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// credentials loads the credentials file, or makes one for an embedded
// server.
func credentials(path string, embedded bool) (wire.Credentials, error) {
	c, err := wire.LoadCredentials(path)
	if err == nil || !embedded || !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	if c, err = wire.NewCredentials(); err != nil {
		return c, err
	}
	if err := wire.WriteCredentials(path, c); err != nil {
		return c, err
	}
	log.Printf("wrote new NATS credentials to %s; start the workers with --credentials %s", path, path)
	return c, nil
}
