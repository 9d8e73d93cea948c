// Command bench runs racklab experiments: simulations today; campaigns on
// the emulated and lab clusters build on it.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
