package main

import (
	"fmt"
	"os"

	"github.com/racklab/racklab/datagen/mix"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func mixCmd() *cobra.Command {
	o := mix.DefaultOptions()
	var preset, file string
	reduce := units.Bytes(o.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "mix (--preset NAME | --mix FILE) --out-workload W.yaml --out-datasets D.yaml",
		Short: "Generate PUMA/HiBench benchmark mixes (terasort, wordcount, grep, teragen, join, ...)",
		Long: `Generate a mix of benchmark applications, each with its own selectivities and CPU
cost per byte. --preset is one of pushbox-w1, pushbox-w2 (PushBox's testbed
workloads), hibench-small, hibench-large, hibench-huge (Trident's HiBench runs)
and puma; --mix reads a file of lines "<count> <app> <input size> [skew=<x>]"
and an optional "pattern sequential|batch". With the trace arrivals a sequential
mix runs one application at a time (chained by parents) and a batch mix starts
at time 0. A preset's block size (1 GiB for PushBox) applies unless
--block-size is given. See package datagen/mix for the applications.`,
		Args: cobra.NoArgs,
	}
	g := addGenFlags(cmd, &o.Options)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		g.apply()
		o.ReduceBytes = int64(reduce)
		var m *mix.Mix
		var err error
		name := file
		if preset != "" {
			name = preset
			if m, err = mix.Preset(preset); err != nil {
				return err
			}
			if !cmd.Flags().Changed("block-size") {
				o.BlockSize = mix.PresetBlockSize[preset]
			}
		} else {
			f, err := os.Open(file)
			if err != nil {
				return err
			}
			defer f.Close()
			if m, err = mix.ParseMix(f, file); err != nil {
				return err
			}
		}
		w, ds, err := mix.Generate(m, o)
		if err != nil {
			// the error names a line of the mix; say which mix
			return fmt.Errorf("%s: %w", name, err)
		}
		return g.write(cmd.ErrOrStderr(), "mix "+name, w, ds, "")
	}
	f := cmd.Flags()
	f.StringVar(&preset, "preset", "", "a built-in mix: pushbox-w1, pushbox-w2, hibench-small, hibench-large, hibench-huge, puma")
	f.StringVar(&file, "mix", "", "mix file")
	f.Var(&reduce, "reduce-bytes", "shuffle bytes per reduce task")
	f.IntVar(&o.MaxReducers, "max-reducers", o.MaxReducers, "most reduce tasks a job gets (0: no cap)")
	f.Float64Var(&o.Ratio, "ratio", o.Ratio, "iterative applications: dependent plus intermediate bytes per input byte")
	f.IntVar(&o.OutputReplicas, "output-replicas", o.OutputReplicas, "replicas of every job's output, as HDFS's dfs.replication (0: none set, one replica)")
	f.Float64Var(&o.ComputeScale, "compute-scale", o.ComputeScale, "multiply every stage's CPU cost per byte (1/n keeps compute and transfer in proportion on NICs n× the source's)")
	cmd.MarkFlagsMutuallyExclusive("preset", "mix")
	cmd.MarkFlagsOneRequired("preset", "mix")
	return cmd
}
