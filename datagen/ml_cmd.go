package main

import (
	"time"

	"github.com/racklab/racklab/datagen/ml"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func mlCmd() *cobra.Command {
	o := ml.DefaultOptions()
	duration := time.Duration(o.Duration * float64(time.Second))
	reduce := units.Bytes(o.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "ml --out-workload W.yaml --out-datasets D.yaml [--workloads 581]",
		Short: "Generate iterative ML job DAGs like Dawn's B1–B15 (K-means, Bayes, PageRank, MF, LDA)",
		Long: `Generate Dawn's ML workloads: --workloads submissions, each one of the benchmarks
B1–B15 drawn uniformly (or among --labels), a DAG of MapReduce jobs of the
benchmark's depth (K-means 11, Bayes 8, PageRank 11, MF 21, LDA 18) over its
input (Dawn's Table 2 sizes), shared by its submissions.

The trace arrivals stand in for Dawn's 4 hours of Google-trace submissions: 581
workloads (physical cluster) or 310 (virtual) over --duration, bursty. Dawn's
sensitivity runs use --arrivals poisson --rate 0.05 … 0.007 (20 to 140 s apart).
See package datagen/ml for the DAG templates and sizes.`,
		Args: cobra.NoArgs,
	}
	g := addGenFlags(cmd, &o.Options)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		g.apply()
		o.Duration, o.ReduceBytes = duration.Seconds(), int64(reduce)
		w, ds, err := ml.Generate(o)
		if err != nil {
			return err
		}
		return g.write(cmd.ErrOrStderr(), "ml", w, ds, "")
	}
	f := cmd.Flags()
	f.IntVar(&o.Workloads, "workloads", o.Workloads, "number of workload submissions (Dawn: 581 physical, 310 virtual)")
	f.DurationVar(&duration, "duration", duration, "trace arrivals: the span the submissions arrive over")
	f.StringSliceVar(&o.Labels, "labels", nil, "draw among these benchmarks only, e.g. B1,B10 (default: B1–B15)")
	f.Float64Var(&o.Ratio, "ratio", o.Ratio, "dependent plus intermediate bytes per input byte (Dawn: about 12)")
	f.Var(&reduce, "reduce-bytes", "shuffle bytes per reduce task")
	f.IntVar(&o.MaxReducers, "max-reducers", o.MaxReducers, "most reduce tasks a job gets (0: no cap)")
	f.Float64Var(&o.ComputeNsPerByte, "compute-ns-per-byte", o.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	return cmd
}
