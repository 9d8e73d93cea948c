package main

import (
	"os"
	"time"

	"github.com/racklab/racklab/datagen/tpch"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func tpchCmd() *cobra.Command {
	o := tpch.DefaultOptions()
	var plans string
	window := time.Duration(o.Window * float64(time.Second))
	reduce := units.Bytes(o.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "tpch --out-workload W.yaml --out-datasets D.yaml [--scale-factor 50] [--multistage]",
		Short: "Generate the 22 TPC-H queries as Hive job DAGs (or Tez-like multi-stage jobs)",
		Long: `Generate the 22 TPC-H queries as Hive would run them on MapReduce: each query a
DAG of jobs whose children read their parents' outputs, over one unplaced dataset
per table sized by --scale-factor (Dawn used SF 50, Corral SF 200). With
--multistage each query is one Tez-like job of generic stages.

The trace arrivals are Dawn's and Corral's: each query uniformly at random over
--window (10m for Dawn's physical cluster, 25m for its virtual cluster and for
Corral), again in each of --rounds windows. See package datagen/tpch for the
plans, their depths and the table sizes; --plans replaces the built-in plans.`,
		Args: cobra.NoArgs,
		RunE: nil,
	}
	g := addGenFlags(cmd, &o.Options)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		g.apply()
		o.Window, o.ReduceBytes = window.Seconds(), int64(reduce)
		if plans != "" {
			f, err := os.Open(plans)
			if err != nil {
				return err
			}
			defer f.Close()
			if o.Plans, err = tpch.ParsePlans(f, plans); err != nil {
				return err
			}
		}
		w, ds, err := tpch.Generate(o)
		if err != nil {
			return err
		}
		return g.write(cmd.ErrOrStderr(), "tpch", w, ds, "")
	}
	f := cmd.Flags()
	f.Float64Var(&o.ScaleFactor, "scale-factor", o.ScaleFactor, "TPC-H scale factor (about 1.1 GB of tables per unit)")
	f.BoolVar(&o.MultiStage, "multistage", false, "one Tez-like multi-stage job per query instead of a DAG of MapReduce jobs")
	f.IntSliceVar(&o.Queries, "queries", nil, "queries to generate, e.g. 2,5,8 (default: all)")
	f.IntVar(&o.Rounds, "rounds", o.Rounds, "submit the query set this many times, one window after another")
	f.DurationVar(&window, "window", window, "trace arrivals: each round's queries arrive uniformly over this span")
	f.StringVar(&plans, "plans", "", "query plan file replacing the built-in plans (format of datagen/tpch/plans.txt)")
	f.Var(&reduce, "reduce-bytes", "shuffle bytes per reduce task (Hive's hive.exec.reducers.bytes.per.reducer)")
	f.IntVar(&o.MaxReducers, "max-reducers", o.MaxReducers, "most reduce tasks a job gets (0: no cap)")
	f.Float64Var(&o.ComputeNsPerByte, "compute-ns-per-byte", o.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	return cmd
}
