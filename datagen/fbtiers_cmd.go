package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/racklab/racklab/datagen/fbtiers"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func fbtiersCmd() *cobra.Command {
	o := fbtiers.DefaultOptions()
	duration := time.Duration(o.Duration * float64(time.Second))
	total := units.Bytes(o.TotalInput)
	reduce := units.Bytes(o.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "fbtiers --out-workload W.yaml --out-datasets D.yaml",
		Short: "Generate Trident's Facebook-derived workload: Table 2's input-size bins, shared inputs with Zipf popularity",
		Long: `Generate the Facebook-derived MapReduce workload Trident evaluates tiered
storage on (its §6.1): --jobs jobs over --duration, binned by input size as its
Table 2 (A 0-128 MB 74.4% of the jobs, B 128-512 MB 16.2%, C 0.5-1 GB 4%,
D 1-2 GB 3%, E 2-5 GB 1.6%, F 5-10 GB 0.8%), reading a pool of input files of
--total-input bytes in all: each bin's jobs read its files by Zipf popularity
(--zipf), every file at least once, so popular files are read again and an LRU
memory tier smaller than the input matters. Each job's shuffle and output
follow a job of its size in the SWIM trace --trace (FB-2010 by default). The
trace arrivals are uniform over --duration (a Poisson process of --jobs
arrivals). The datasets are unplaced. See package datagen/fbtiers.`,
		Args: cobra.NoArgs,
	}
	g := addGenFlags(cmd, &o.Options)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		g.apply()
		o.Duration, o.TotalInput, o.ReduceBytes = duration.Seconds(), int64(total), int64(reduce)
		w, ds, st, err := fbtiers.GenerateStats(o)
		if err != nil {
			return err
		}
		if err := g.write(cmd.ErrOrStderr(), "fbtiers", w, ds, ""); err != nil {
			return err
		}
		var bins []string
		for b, bin := range fbtiers.Bins {
			bins = append(bins, fmt.Sprintf("%s %d jobs on %d files (%s)", bin.Name, st.BinJobs[b], st.BinFiles[b], units.Human(float64(st.BinDistinct[b]))))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "datagen fbtiers: %s; distinct input %s, read %s; the %d files read most take %.1f%% of the reads (%.1f%% of the bytes read); %d map-only jobs\n",
			strings.Join(bins, ", "), units.Human(float64(st.DistinctBytes)), units.Human(float64(st.ReadBytes)),
			st.TopTenthFiles, 100*st.TopTenthReads, 100*st.TopTenthRead, st.MapOnly)
		return nil
	}
	f := cmd.Flags()
	f.StringVar(&o.Trace, "trace", o.Trace, "SWIM trace whose jobs give the shuffle and output ratios")
	f.IntVar(&o.Jobs, "jobs", o.Jobs, "number of jobs")
	f.DurationVar(&duration, "duration", duration, "trace arrivals: the jobs arrive uniformly over this span")
	f.Var(&total, "total-input", "distinct input: all the input files together (before --scale)")
	f.Float64Var(&o.Zipf, "zipf", o.Zipf, "Zipf exponent of the files' popularity within a bin (0: all as popular)")
	f.Var(&reduce, "reduce-bytes", "shuffle bytes per reduce task (before --scale)")
	f.IntVar(&o.MaxReducers, "max-reducers", o.MaxReducers, "most reduce tasks a job gets (0: no cap)")
	f.Float64Var(&o.ComputeNsPerByte, "compute-ns-per-byte", o.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	return cmd
}
