package cluster

import "fmt"

// The bounds on what a topology may describe, checked by Validate, Uniform
// and the file parser (with the line), so that a typo fails with the field
// and the limit instead of exhausting memory or stalling a simulation.
const (
	// MaxHosts bounds the hosts of a topology (and so its racks): the
	// engine and the simulator keep several arrays and network resources
	// per host, and 2^17 hosts are beyond any lab or simulated cluster
	// this testbed models.
	MaxHosts = 1 << 17
	// MaxSlots bounds a host's task slots.
	MaxSlots = 1 << 20
	// MinRateBps is the slowest link, NIC or tier rate (1 byte/s): a rate
	// near zero makes every transfer through it last for ages of
	// simulated time.
	MinRateBps = 1.0
	// MaxRateBps is the fastest rate (10^15 bytes/s, 8 Pbit/s, a thousand
	// times any real link): byte counts that grow by rate × time stay
	// exact in float64 well past a simulation's length.
	MaxRateBps = 1e15
	// MaxCapacityBytes bounds a tier's capacity (2^62, as
	// workload.MaxBytes), so that sums of capacities cannot wrap.
	MaxCapacityBytes = int64(1) << 62
)

// checkRate reports a rate outside [MinRateBps, MaxRateBps], NaN included.
func checkRate(what string, bps float64) error {
	if !(bps >= MinRateBps && bps <= MaxRateBps) {
		return fmt.Errorf("%s %g bytes/s is outside [%g, %g] bytes/s", what, bps, MinRateBps, MaxRateBps)
	}
	return nil
}
