package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

func swimCmd() *cobra.Command {
	opts := swim.DefaultOptions()
	var trace, outW, outD string
	block := units.Bytes(opts.BlockSize)
	reduce := units.Bytes(opts.ReduceBytes)
	cmd := &cobra.Command{
		Use:   "swim --trace FILE --out-workload W.yaml --out-datasets D.yaml",
		Short: "Import a SWIM trace (job id, submit s, gap s, input, shuffle, output bytes[, input path, output path])",
		Long: `Import a SWIM trace: one job a line, tab-separated job id, submit time (s),
gap (s), map input bytes, shuffle bytes and reduce output bytes; SWIM's traces
"withInputPaths" add an input path, an output path and an empty field.

Each job gets an unplaced input dataset "in-<id>", a map stage reading it and,
when it shuffles, a reduce stage with one task per --reduce-bytes of shuffle,
at most --max-reducers (Hive's hive.exec.reducers.max). With input paths, the
jobs that read one path share one dataset, named after the first of them and as
large as the most any of them read; SWIM's anonymised names (inputPath<N>) are
decoded by WorkloadSynthesis.pl's numbering unless --literal-paths is given.
Output paths are read but make no job dependencies (see package datagen/swim).
Sizes take units: 128MiB, 1GiB, 1.5GB.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.BlockSize, opts.ReduceBytes = int64(block), int64(reduce)
			return runSwim(cmd.ErrOrStderr(), trace, outW, outD, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&trace, "trace", "", "SWIM trace file (tab-separated)")
	f.StringVar(&outW, "out-workload", "", "workload file to write")
	f.StringVar(&outD, "out-datasets", "", "datasets file to write")
	f.Float64Var(&opts.Scale, "scale", opts.Scale, "multiply every size (input, shuffle, output) by this")
	f.Var(&block, "block-size", "block size of the input datasets")
	f.IntVar(&opts.Replication, "replication", opts.Replication, "replication of the input datasets")
	f.Var(&reduce, "reduce-bytes", "shuffle bytes per reduce task")
	f.IntVar(&opts.MaxReducers, "max-reducers", opts.MaxReducers, "most reduce tasks a job gets (0: no cap)")
	f.Float64Var(&opts.ComputeNsPerByte, "compute-ns-per-byte", opts.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	f.IntVar(&opts.MaxJobs, "max-jobs", 0, "import at most this many jobs (0: all)")
	f.IntVar(&opts.Sample, "sample", 0, "import this many jobs drawn at random, each keeping its own gap to the job before it (0: all)")
	f.Uint64Var(&opts.SampleSeed, "sample-seed", 1, "random seed of --sample")
	f.BoolVar(&opts.LiteralPaths, "literal-paths", false, "take input paths as written, not as SWIM's numbered inputPath<N>")
	for _, name := range []string{"trace", "out-workload", "out-datasets"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runSwim(stderr io.Writer, trace, outW, outD string, opts swim.Options) error {
	in, err := os.Open(trace)
	if err != nil {
		return err
	}
	defer in.Close()
	w, ds, st, err := swim.ImportStats(in, trace, opts)
	if err != nil {
		return err
	}
	var wb, db bytes.Buffer
	if err := workload.WriteWorkload(&wb, w); err != nil {
		return err
	}
	if err := workload.WriteDatasets(&db, ds, nil); err != nil {
		return err
	}
	if err := writeFile(outW, wb.Bytes()); err != nil {
		return err
	}
	if err := writeFile(outD, db.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "datagen swim: %s: %d jobs (%d map-only, %d with empty input); input %d B (%s), shuffle %d B (%s), output %d B (%s) -> %s, %s\n",
		trace, st.Jobs, st.MapOnly, st.EmptyInput,
		st.InputBytes, units.Human(float64(st.InputBytes)),
		st.ShuffleBytes, units.Human(float64(st.ShuffleBytes)),
		st.OutputBytes, units.Human(float64(st.OutputBytes)), outW, outD)
	if st.WithPaths {
		fmt.Fprintf(stderr, "datagen swim: %s: input paths: %d datasets of %d B (%s); %d jobs read a dataset that another job reads; %d read an earlier job's output path (not made dependencies)\n",
			trace, st.Datasets, st.DatasetBytes, units.Human(float64(st.DatasetBytes)), st.SharedInputJobs, st.InputWasOutput)
	}
	return nil
}

// writeFile writes data to path through a temporary file in the same
// directory, so that a failed run leaves no half-written file.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
