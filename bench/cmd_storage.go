package main

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/spf13/pflag"
)

// storageFlags choose where the unplaced datasets go and whether the
// memory tier is an LRU cache: a campaign's placement, tier_mix and
// memory_lru keys, for bench sim and bench local run.
type storageFlags struct {
	placement string
	tierMix   string
	memoryLRU bool
}

func (f *storageFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.placement, "placement", placement.HDFS, "placement of unplaced datasets: "+strings.Join(placement.Names(), " or ")+
		" (octopus: one replica per tier, memory, ssd and hdd)")
	fl.StringVar(&f.tierMix, "tier-mix", "", "replica tier weights of the hdfs placement, e.g. memory=1,ssd=1,hdd=1 (default: all hdd)")
	fl.BoolVar(&f.memoryLRU, "memory-lru", false, "hold each host's memory tier to its capacity by LRU (default: tiers unbounded)")
}

// placer builds the placer the flags name; errors name the flags.
func (f *storageFlags) placer() (engine.DatasetPlacer, error) {
	mix, err := placement.ParseTierMix(f.tierMix)
	if err != nil {
		return nil, fmt.Errorf("--tier-mix: %w", err)
	}
	p, err := placement.New(f.placement, mix)
	if err != nil {
		return nil, fmt.Errorf("--placement %s: %w", f.placement, err)
	}
	return p, nil
}
