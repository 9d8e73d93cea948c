package neat

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/policy/netprio"
)

// Config is NEAT's args; the yaml tags name them as a campaign writes
// them. The defaults are pushbox.md §4.4's.
type Config struct {
	// Network is the network policy flows get and the predictor assumes:
	// "scf" (smallest coflow first, §4.4 N2), "fair" (one class) or
	// "job_fifo" (job FIFO, §4.5).
	Network string `yaml:"network"`
	// Classes is the number of priority classes, as PushBox's (4).
	Classes int `yaml:"classes"`
	// Order is the job order of slot-change decisions (N5): "fair"
	// (Hadoop's Fair scheduler) or "fifo" (submission order, §4.5).
	Order string `yaml:"order"`
}

// The network policies.
const (
	NetworkSCF     = "scf"
	NetworkFair    = "fair"
	NetworkJobFIFO = netprio.JobFIFO
)

// DefaultConfig is §4.4's NEAT under a Fair slot policy.
func DefaultConfig() Config {
	return Config{Network: NetworkSCF, Classes: netprio.DefaultClasses, Order: "fair"}
}

// Validate checks the args after decoding.
func (c Config) Validate() error {
	switch {
	case c.Network != NetworkSCF && c.Network != NetworkFair && c.Network != NetworkJobFIFO:
		return fmt.Errorf("neat: network %q: want %s, %s or %s", c.Network, NetworkSCF, NetworkFair, NetworkJobFIFO)
	case c.Classes < 1 || c.Classes > 32:
		return fmt.Errorf("neat: classes %d: want 1 to 32", c.Classes)
	case c.Order != "fair" && c.Order != "fifo":
		return fmt.Errorf("neat: order %q: want fair or fifo", c.Order)
	}
	return nil
}
