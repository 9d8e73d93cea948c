package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/racklab/racklab/datagen/recurring"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func recurringCmd() *cobra.Command {
	o := recurring.DefaultOptions()
	var outP string
	window := time.Duration(o.Window * float64(time.Second))
	shift := time.Duration(o.ArrivalShift * float64(time.Second))
	reduce := units.Bytes(o.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "recurring --workload w1|w2|w3 --out-workload W.yaml --out-datasets D.yaml [--out-predicted P.yaml]",
		Short: "Generate recurring job sets like Corral's W1–W3, with predicted and actual sizes and arrivals",
		Long: `Generate a set of recurring MapReduce jobs like Corral's workloads: W1 (Quantcast-
derived, 100 jobs, small/medium/large by task count), W2 (SWIM Yahoo, 400 jobs,
90% tiny, 2 of 5.5 TB) or W3 (Microsoft Cosmos, 200 jobs, Table 1's medians and
95th percentiles). See package datagen/recurring.

The workload file holds the actual sizes and arrivals; --out-predicted writes
what a planner predicts (arrival, input, shuffle and output bytes, task counts),
since the workload format has no field for predictions. --size-error is the
largest relative error of the actual sizes (uniform; 0.13 gives Corral's 6.5%
mean); --arrival-error moves that fraction of the jobs by up to --arrival-shift.
The trace arrivals are Corral's online scenario (uniform over --window); use
--arrivals once for its batch scenario. --adhoc adds unpredicted W1 jobs in
queue "adhoc" at time 0.`,
		Args: cobra.NoArgs,
	}
	g := addGenFlags(cmd, &o.Options)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		// a flag the chosen workload does not read would change nothing,
		// silently
		switch f := cmd.Flags(); {
		case f.Changed("reduce-bytes") && o.Workload != "w2":
			return fmt.Errorf("--reduce-bytes sets W2's shuffle bytes per reduce task; %s's reduce task counts come with its jobs", o.Workload)
		case f.Changed("block-size") && o.Workload == "w3":
			return fmt.Errorf("--block-size: W3's map task counts come from Table 1 and set its blocks; it does not apply")
		}
		g.apply()
		o.Window, o.ArrivalShift, o.ReduceBytes = window.Seconds(), shift.Seconds(), int64(reduce)
		w, ds, p, err := recurring.Generate(o)
		if err != nil {
			return err
		}
		extra := ""
		if outP != "" {
			var b bytes.Buffer
			if err := recurring.WritePredicted(&b, p); err != nil {
				return err
			}
			if err := writeFile(outP, b.Bytes()); err != nil {
				return err
			}
			extra = fmt.Sprintf("; %d predictions in %s", len(p.Jobs), outP)
		}
		return g.write(cmd.ErrOrStderr(), "recurring "+o.Workload, w, ds, extra)
	}
	f := cmd.Flags()
	f.StringVar(&o.Workload, "workload", o.Workload, "w1, w2 or w3")
	f.IntVar(&o.Jobs, "jobs", 0, "number of recurring jobs (0: the workload's own, 100, 400 or 200)")
	f.DurationVar(&window, "window", window, "trace arrivals: predicted arrivals uniform over this span (Corral: 60m online, 15m simulated)")
	f.Float64Var(&o.SizeError, "size-error", o.SizeError, "largest relative error of actual sizes against predicted ones")
	f.Float64Var(&o.ArrivalError, "arrival-error", o.ArrivalError, "fraction of jobs whose arrival moves from the predicted one")
	f.DurationVar(&shift, "arrival-shift", shift, "largest move of a moved arrival, either way")
	f.IntVar(&o.AdHoc, "adhoc", 0, "add this many ad hoc W1 jobs (queue adhoc, at time 0, unpredicted)")
	f.Var(&reduce, "reduce-bytes", "W2: shuffle bytes per reduce task")
	f.IntVar(&o.OutputReplicas, "output-replicas", 0, "every job output's replication, as HDFS's dfs.replication (0: none set, one replica on the writer)")
	f.Float64Var(&o.TaskScale, "task-scale", o.TaskScale, "W1: multiply every job's task count by this (at least 2 a job; blocks stay, so bytes follow), for a cluster with fewer slots per rack")
	f.Float64Var(&o.ComputeNsPerByte, "compute-ns-per-byte", o.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	f.StringVar(&outP, "out-predicted", "", "file for the predicted sizes and arrivals")
	return cmd
}
