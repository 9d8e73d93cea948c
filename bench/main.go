// Command bench runs racklab experiments: simulations, campaigns in
// simulation, on the emulated cluster and on a lab, their reports, the
// papers' reproductions and the simulator's fidelity checks.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/racklab/racklab/internal/interrupt"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		if s, ok := interrupt.Caught(); ok && errors.Is(err, context.Canceled) {
			if err.Error() == context.Canceled.Error() {
				fmt.Fprintf(os.Stderr, "bench: stopped by %v\n", s)
			} else {
				fmt.Fprintf(os.Stderr, "bench: stopped by %v: %v\n", s, err)
			}
		} else {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
		os.Exit(interrupt.ExitStatus())
	}
}
