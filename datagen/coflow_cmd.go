package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/coflow"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

type coflowFlags struct {
	trace, topology, outW, outD string
	racks, hostsPerRack         int
	tier, reducerSizes          string
	inputFrom                   string
}

func coflowCmd() *cobra.Command {
	opts := coflow.DefaultOptions()
	fl := coflowFlags{hostsPerRack: 1, tier: opts.Tier.String(), reducerSizes: opts.ReducerSizes.String()}
	cmd := &cobra.Command{
		Use:   "coflow --trace FILE [--racks N --hosts-per-rack M | --topology FILE] --out-workload W.yaml --out-datasets D.yaml",
		Short: "Import a coflow-benchmark trace (rack-level mappers and per-reducer shuffle MB)",
		Long: `Import a coflow trace (github.com/coflow/coflow-benchmark, e.g. FB2010-1Hr-150-0.txt):
line 1 "<ports> <coflows>", then one coflow a line: id, arrival (ms), mapper count,
mapper ports, reducer count, then port:MB for each reducer (MB = 2^20 bytes).

Port p goes to rack p mod the topology's rack count. The topology is --topology,
or else a uniform one of --racks racks (default: one per trace port) of
--hosts-per-rack hosts named r<rack>h<host>; the datasets file names those
hosts, so runs must use a topology with the same names.

Each coflow becomes job "coflow<id>": a map stage over a placed dataset of one
block per mapper (input = shuffle × --input-ratio, or with --input-from a
SWIM trace the median input/shuffle ratio of its jobs in the coflow's decade of
shuffle size, as PushBox's simulation synthesises mappers from production
ratios; on the mapper's rack) whose output is the shuffle, and a reduce stage of one task per reducer. With
--reducer-sizes trace (the default) each reducer fetches its own size from the
trace (the stage's partition weights, "shares"); with mean every reducer of a
coflow fetches shuffle/R. See package datagen/coflow.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tier, err := cluster.ParseTierKind(fl.tier)
			if err != nil {
				return err
			}
			opts.Tier = tier
			if opts.ReducerSizes, err = coflow.ParseReducerSizes(fl.reducerSizes); err != nil {
				return err
			}
			if fl.inputFrom != "" {
				if opts.InputRatios, err = coflow.LoadRatios(fl.inputFrom); err != nil {
					return fmt.Errorf("--input-from: %w", err)
				}
			}
			return runCoflow(cmd.ErrOrStderr(), fl, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.trace, "trace", "", "coflow trace file")
	f.StringVar(&fl.topology, "topology", "", "topology file (instead of --racks and --hosts-per-rack)")
	f.IntVar(&fl.racks, "racks", 0, "racks of a uniform topology (0: one per trace port)")
	f.IntVar(&fl.hostsPerRack, "hosts-per-rack", fl.hostsPerRack, "hosts per rack of a uniform topology")
	f.StringVar(&fl.outW, "out-workload", "", "workload file to write")
	f.StringVar(&fl.outD, "out-datasets", "", "datasets file to write")
	f.Float64Var(&opts.Scale, "scale", opts.Scale, "multiply every size by this")
	f.Float64Var(&opts.InputRatio, "input-ratio", opts.InputRatio, "map input bytes per shuffle byte")
	f.StringVar(&fl.inputFrom, "input-from", "", "a SWIM trace: each coflow's map input bytes per shuffle byte is the median of that trace's jobs of its decade of shuffle size (instead of --input-ratio)")
	f.Float64Var(&opts.OutputRatio, "output-ratio", opts.OutputRatio, "reduce output bytes per shuffle byte")
	f.Float64Var(&opts.ComputeNsPerByte, "compute-ns-per-byte", opts.ComputeNsPerByte, "CPU time per input byte of every stage (ns)")
	f.StringVar(&fl.tier, "tier", fl.tier, "tier of the input replicas: mem, ssd or hdd")
	f.IntVar(&opts.MaxCoflows, "max-coflows", 0, "import at most this many coflows (0: all)")
	f.StringVar(&fl.reducerSizes, "reducer-sizes", fl.reducerSizes, "how a coflow's shuffle is split among its reducers: trace (each its own size) or mean (evenly)")
	for _, name := range []string{"trace", "out-workload", "out-datasets"} {
		_ = cmd.MarkFlagRequired(name)
	}
	cmd.MarkFlagsMutuallyExclusive("topology", "racks")
	cmd.MarkFlagsMutuallyExclusive("input-ratio", "input-from")
	cmd.MarkFlagsMutuallyExclusive("topology", "hosts-per-rack")
	return cmd
}

func runCoflow(stderr io.Writer, fl coflowFlags, opts coflow.Options) error {
	data, err := os.ReadFile(fl.trace)
	if err != nil {
		return err
	}
	var topo *cluster.Topology
	if fl.topology != "" {
		if topo, err = cluster.LoadTopology(fl.topology); err != nil {
			return err
		}
	} else {
		racks := fl.racks
		if racks == 0 {
			if racks, _, err = coflow.Header(bytes.NewReader(data), fl.trace); err != nil {
				return err
			}
		}
		// Only the host names and tiers reach the datasets file; the
		// rates here are placeholders.
		topo, err = cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: fl.hostsPerRack, Slots: 1, NICBps: 1.25e9, Oversubscription: 1})
		if err != nil {
			return err
		}
	}
	w, ds, st, err := coflow.ImportStats(bytes.NewReader(data), fl.trace, topo, opts)
	if err != nil {
		return err
	}
	var wb, db bytes.Buffer
	if err := workload.WriteWorkload(&wb, w); err != nil {
		return err
	}
	if err := workload.WriteDatasets(&db, ds, topo); err != nil {
		return err
	}
	if err := writeFile(fl.outW, wb.Bytes()); err != nil {
		return err
	}
	if err := writeFile(fl.outD, db.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "datagen coflow: %s: %d coflows on %d ports -> %d racks, %d hosts; %d map and %d reduce tasks; input %d B (%s), shuffle %d B (%s), output %d B (%s) -> %s, %s\n",
		fl.trace, len(st.Coflows), st.Ports, len(topo.Racks), len(topo.Hosts), st.MapTasks, st.ReduceTasks,
		st.InputBytes, units.Human(float64(st.InputBytes)),
		st.ShuffleBytes, units.Human(float64(st.ShuffleBytes)),
		st.OutputBytes, units.Human(float64(st.OutputBytes)), fl.outW, fl.outD)
	return nil
}
