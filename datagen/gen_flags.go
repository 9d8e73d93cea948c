package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

// genFlags are the flags every generator takes.
type genFlags struct {
	opts       *gen.Options
	block      units.Bytes
	outW, outD string
}

func addGenFlags(cmd *cobra.Command, o *gen.Options) *genFlags {
	g := &genFlags{opts: o, block: units.Bytes(o.BlockSize)}
	f := cmd.Flags()
	f.StringVar(&g.outW, "out-workload", "", "workload file to write")
	f.StringVar(&g.outD, "out-datasets", "", "datasets file to write")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "random seed")
	f.Float64Var(&o.Scale, "scale", o.Scale, "multiply every byte count (block sizes included) by this; task counts and ratios stay")
	f.Var(&o.Arrivals, "arrivals", "arrival process: trace (the source's pattern), poisson (--rate) or once (all at 0)")
	f.Float64Var(&o.Rate, "rate", 0, "poisson arrivals: submissions per second")
	f.Var(&g.block, "block-size", "block size of the input datasets (before --scale)")
	f.IntVar(&o.Replication, "replication", o.Replication, "replication of the input datasets")
	for _, name := range []string{"out-workload", "out-datasets"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return g
}

// apply copies flag values that need converting into the options.
func (g *genFlags) apply() { g.opts.BlockSize = int64(g.block) }

// write writes the workload and datasets files and a one-line summary.
func (g *genFlags) write(stderr io.Writer, name string, w *workload.Workload, ds *workload.Datasets, extra string) error {
	var wb, db bytes.Buffer
	if err := workload.WriteWorkload(&wb, w); err != nil {
		return err
	}
	if err := workload.WriteDatasets(&db, ds, nil); err != nil {
		return err
	}
	if err := writeFile(g.outW, wb.Bytes()); err != nil {
		return err
	}
	if err := writeFile(g.outD, db.Bytes()); err != nil {
		return err
	}
	s := describe.Describe(w, ds)
	fmt.Fprintf(stderr, "datagen %s: %d jobs (%d tasks, job DAG depth %d), %d datasets; input %d B (%s), shuffle %d B (%s), dependent %d B (%s)%s -> %s, %s\n",
		name, s.Jobs, s.Tasks, s.JobDAGDepth, len(ds.Datasets),
		s.InputBytes, units.Human(float64(s.InputBytes)), s.ShuffleBytes, units.Human(float64(s.ShuffleBytes)),
		s.DependentBytes, units.Human(float64(s.DependentBytes)), extra, g.outW, g.outD)
	return nil
}
