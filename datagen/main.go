package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "datagen:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "datagen",
		Short:         "Import traces and generate workloads as racklab workload and dataset files",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(swimCmd(), coflowCmd(), tpchCmd(), mlCmd(), recurringCmd(), mixCmd(), fbtiersCmd(), layoutCmd(), describeCmd())
	return root
}
