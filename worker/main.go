// Command worker is the racklab worker, one per host: see worker/agent.
package main

import (
	"os"

	"github.com/racklab/racklab/internal/interrupt"
	"github.com/racklab/racklab/worker/agent"
)

func main() {
	if err := agent.Command().Execute(); err != nil {
		os.Exit(interrupt.ExitStatus())
	}
}
