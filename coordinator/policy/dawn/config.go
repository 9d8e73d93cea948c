package dawn

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/policy/internal/netmon"
)

// Config is Dawn's parameters (§2.9) and the ambiguity register's choices
// (§2.11); the yaml tags name them as a campaign's policy args.
type Config struct {
	// Balance is the balancing factor b: rack i is balanced iff
	// P_i <= b·P_max (ambiguity 2). 0 balances only racks no job prefers.
	Balance float64 `yaml:"balance"`
	// BalanceAll adds rack i to every hotspot job instead of to the one
	// cheapest at i (ambiguity 3; default false: one job per call).
	BalanceAll bool `yaml:"balance_all"`
	// LookAhead is the plan's depth in job levels: 2 (the job and its
	// children, the paper's) or 1 (no dep_reduce).
	LookAhead int `yaml:"look_ahead"`
	// SaturationThreshold is θ, the link load (share of nominal capacity)
	// at which a rack counts as saturated.
	SaturationThreshold float64 `yaml:"saturation_threshold"`
	// SaturationScope is rack (the bit of the rack receiving the task),
	// global (any rack's bit) or aggregate (all racks' load together).
	SaturationScope string `yaml:"saturation_scope"`
	// MonitorWindow is W, the seconds over which a rack's load is
	// averaged (§2.4, §2.9: 2 s): the driver's measurements, each over
	// its own shorter window, weighted by their overlap with the last W
	// seconds. 0 takes the driver's latest measurement alone.
	MonitorWindow float64 `yaml:"monitor_window"`
	// Variant is the selection variant of §2.5: C (rack-cost), A (prose)
	// or B (pseudo-code).
	Variant string `yaml:"variant"`
	// Epsilon is the byte tolerance under which two keys are equal (A1-24).
	Epsilon int64 `yaml:"epsilon"`
	// StarveAfter, in seconds, puts a job whose stage has waited longer
	// first in the list (§2.8's optional guard); 0 disables it.
	StarveAfter float64 `yaml:"starve_after"`
	// DependencyUnaware runs the case study's dependency-unaware
	// scheduler instead (§4.3): maps node-local only, reducers on
	// whichever container frees.
	DependencyUnaware bool `yaml:"dependency_unaware"`
}

// DefaultConfig is the spec's configuration (§2.9).
func DefaultConfig() Config {
	return Config{LookAhead: 2, SaturationThreshold: 0.8, SaturationScope: "rack", MonitorWindow: netmon.DefaultWindow, Variant: "C"}
}

// Validate checks the args after decoding.
func (c Config) Validate() error {
	switch {
	case !(c.Balance >= 0 && c.Balance <= 1):
		return fmt.Errorf("balance %g is outside [0,1]", c.Balance)
	case c.LookAhead != 1 && c.LookAhead != 2:
		return fmt.Errorf("look_ahead %d: want 1 or 2", c.LookAhead)
	case !(c.SaturationThreshold > 0):
		return fmt.Errorf("saturation_threshold %g: want > 0", c.SaturationThreshold)
	case c.SaturationScope != "rack" && c.SaturationScope != "global" && c.SaturationScope != "aggregate":
		return fmt.Errorf("saturation_scope %q: want rack, global or aggregate", c.SaturationScope)
	case c.Variant != "A" && c.Variant != "B" && c.Variant != "C":
		return fmt.Errorf("variant %q: want A, B or C", c.Variant)
	case c.Epsilon < 0:
		return fmt.Errorf("epsilon %d: want >= 0", c.Epsilon)
	case c.StarveAfter < 0:
		return fmt.Errorf("starve_after %g: want >= 0", c.StarveAfter)
	}
	return netmon.Validate(c.MonitorWindow)
}
