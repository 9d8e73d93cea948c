package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/layout"
	"github.com/racklab/racklab/internal/units"
	"github.com/spf13/cobra"
)

type layoutFlags struct {
	topology, datasets, out, tierMix string
	block                            units.Bytes
	opts                             layout.Options
}

func layoutCmd() *cobra.Command {
	var fl layoutFlags
	cmd := &cobra.Command{
		Use:   "layout --topology T.yaml --datasets D.yaml --out PLACED.yaml [--placement hdfs|octopus] [--tier-mix mem=0.1,ssd=0.3,hdd=0.6]",
		Short: "Place unplaced datasets on a topology (HDFS rack-aware with a tier mix, or OctopusFS-like)",
		Long: `Place the unplaced datasets of a datasets file on a topology, as HDFS's default
policy does (first replica on a random host, second and third on two hosts of
another rack), and write the placed datasets. With --placement hdfs (the
default) each replica goes on a tier drawn from --tier-mix (weights; default
all HDD); with --placement octopus (OctopusFS in Trident's evaluation) a
block's first three replicas go one on each tier, memory, SSD and HDD, in a
random order, and further ones on HDD. A host lacking the tier drawn gets its
slowest. Placed datasets are kept; empty ones stay unplaced.
--block-size and --replication, when given, replace the datasets' own.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLayout(cmd.ErrOrStderr(), &fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.topology, "topology", "", "topology file")
	f.StringVar(&fl.datasets, "datasets", "", "datasets file to place")
	f.StringVar(&fl.out, "out", "", "placed datasets file to write")
	f.StringVar(&fl.opts.Placement, "placement", placement.HDFS, "block placement: "+strings.Join(placement.Names(), " or "))
	f.StringVar(&fl.tierMix, "tier-mix", "", "replica tier weights of the hdfs placement, e.g. memory=0.1,ssd=0.3,hdd=0.6 (default: all hdd)")
	f.Var(&fl.block, "block-size", "block size of the datasets placed (default: their own)")
	f.IntVar(&fl.opts.Replication, "replication", 0, "replication of the datasets placed (default: their own, or 3)")
	f.Uint64Var(&fl.opts.Seed, "seed", 1, "random seed")
	for _, name := range []string{"topology", "datasets", "out"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runLayout(stderr io.Writer, fl *layoutFlags) error {
	var err error
	if fl.opts.TierMix, err = layout.ParseTierMix(fl.tierMix); err != nil {
		return err
	}
	// checked before any file is read: the error is the flags', not a file's
	if _, err := placement.New(fl.opts.Placement, fl.opts.TierMix); err != nil {
		return err
	}
	fl.opts.BlockSize = int64(fl.block)
	topo, err := cluster.LoadTopology(fl.topology)
	if err != nil {
		return err
	}
	ds, err := workload.LoadDatasets(fl.datasets, topo)
	if err != nil {
		return err
	}
	out, st, err := layout.Place(topo, ds, fl.opts)
	if err != nil {
		return fmt.Errorf("%s: %w", fl.datasets, err)
	}
	var b bytes.Buffer
	if err := workload.WriteDatasets(&b, out, topo); err != nil {
		return err
	}
	if err := writeFile(fl.out, b.Bytes()); err != nil {
		return err
	}
	var tiers []string
	for k, n := range st.ReplicaBytes {
		tiers = append(tiers, fmt.Sprintf("%s %s", cluster.TierKind(k), units.Human(float64(n))))
	}
	over := ""
	if n := len(st.OverCapacity); n > 0 {
		over = fmt.Sprintf("; warning: %d host tiers over capacity (%s)", n, strings.Join(st.OverCapacity[:min(n, 5)], ", "))
	}
	fmt.Fprintf(stderr, "datagen layout: %s: placed %d datasets (%d blocks; replicas %s), kept %d placed, %d empty left unplaced%s -> %s\n",
		fl.datasets, st.Placed, st.Blocks, strings.Join(tiers, ", "), st.Kept, st.Empty, over, fl.out)
	return nil
}
