package shadow

import (
	"fmt"
	"math"
)

// Reducer placements (the reduce_placement arg, §2.3 and A10).
const (
	// PlaceRoundRobin deals reducers over the racks holding the job's
	// maps, by planned map count descending, ties by rack index (§2.3).
	PlaceRoundRobin = "round_robin"
	// PlaceRandom deals each reducer to a rack drawn uniformly (seeded)
	// among the racks holding the job's maps.
	PlaceRandom = "random"
	// PlaceHadoop puts a reducer on whichever host is offered with a free
	// reduce slot (Hadoop 1.x: effectively random, from the seeded offer
	// order).
	PlaceHadoop = "hadoop"
)

// Config is the policy's args: every ambiguity of §2.10 the spec makes a
// switch, with the spec's defaults (DefaultConfig).
type Config struct {
	// Theta is the duplicate budget θ as a fraction of the job's maps:
	// at most ⌈Theta·s⌉ duplicates (A3). 0 means unlimited (θ = ∞; an
	// arg cannot hold an infinite number).
	Theta float64 `yaml:"theta"`
	// AcceptTies accepts a duplicate at T when its estimated total only
	// equals the best (≤); the paper's "shorter" is strict (A8).
	AcceptTies bool `yaml:"accept_ties"`
	// ShuffleModel is Eq. 12's bound: "up" (the paper: uplinks only) or
	// "up_and_down".
	ShuffleModel string `yaml:"shuffle_model"`
	// KillLocalOriginal kills the original of a rack-local duplicate as
	// soon as the duplicate launches (A5, the paper's "can be removed");
	// false keeps the pair undecided like a remote one.
	KillLocalOriginal bool `yaml:"kill_local_original"`
	// ReducePlacement is round_robin (§2.3, on planned counts, A11),
	// random or hadoop.
	ReducePlacement string `yaml:"reduce_placement"`
	// RackLocalityDelay is the base delay scheduler's wait, in seconds,
	// before a job takes a map slot in a rack holding none of its pending
	// maps' input (§4.2; node-locality delay 0).
	RackLocalityDelay float64 `yaml:"rack_locality_delay"`
	// DeterministicPick makes RandomPick take the lowest split id (the
	// spec's test mode) instead of drawing from the run's seeded source.
	DeterministicPick bool `yaml:"deterministic_pick"`
}

// DefaultConfig is the spec's defaults (§2.10, Appendix A).
func DefaultConfig() Config {
	return Config{
		Theta:             0.15,
		ShuffleModel:      ShuffleUp,
		KillLocalOriginal: true,
		ReducePlacement:   PlaceRoundRobin,
		RackLocalityDelay: 4.5,
	}
}

// Validate checks the args, naming the one at fault.
func (c Config) Validate() error {
	if !(c.Theta >= 0) || math.IsInf(c.Theta, 0) {
		return fmt.Errorf("theta %g: want a fraction of the job's maps ≥ 0 (0: unlimited)", c.Theta)
	}
	switch c.ShuffleModel {
	case ShuffleUp, ShuffleUpAndDown:
	default:
		return fmt.Errorf("shuffle_model %q: want %s or %s", c.ShuffleModel, ShuffleUp, ShuffleUpAndDown)
	}
	switch c.ReducePlacement {
	case PlaceRoundRobin, PlaceRandom, PlaceHadoop:
	default:
		return fmt.Errorf("reduce_placement %q: want %s, %s or %s", c.ReducePlacement, PlaceRoundRobin, PlaceRandom, PlaceHadoop)
	}
	if !(c.RackLocalityDelay >= 0) || math.IsInf(c.RackLocalityDelay, 0) {
		return fmt.Errorf("rack_locality_delay %g: want seconds ≥ 0", c.RackLocalityDelay)
	}
	return nil
}
