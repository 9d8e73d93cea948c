package main

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/spf13/cobra"
)

func describeCmd() *cobra.Command {
	var datasets, topology string
	cmd := &cobra.Command{
		Use:   "describe WORKLOAD.yaml [--datasets D.yaml] [--topology T.yaml]",
		Short: "Summarise a workload: sizes, PushBox and Trident size bins, DAG shape, bytes by category",
		Long: `Summarise a workload file: job count, the distribution of job input and shuffle
sizes, the job-size bins of Trident (by input) and PushBox (by shuffle), the depth
and width of the job and stage DAGs, and the input, shuffle, dependent and output
bytes (estimated from the stage specs; see package datagen/describe).

Without --datasets, the datasets that map stages read count as empty. Placed
datasets name hosts, so they need the --topology they were made for.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var topo *cluster.Topology
			var ds *workload.Datasets
			var err error
			if topology != "" {
				if topo, err = cluster.LoadTopology(topology); err != nil {
					return err
				}
			}
			if datasets != "" {
				if ds, err = workload.LoadDatasets(datasets, topo); err != nil {
					return err
				}
			}
			w, err := workload.LoadWorkloadFor(args[0], ds)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), describe.Format(describe.Describe(w, ds)))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&datasets, "datasets", "", "datasets file that the workload's map stages read")
	f.StringVar(&topology, "topology", "", "topology file, for placed datasets")
	return cmd
}
