package main

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/spf13/pflag"
)

// storageFlags choose where the unplaced datasets go, whether the memory
// tier is an LRU cache and how job outputs' replicas are written: a
// campaign's placement, tier_mix, memory_lru and output_pipeline keys, for
// bench sim and bench local run.
type storageFlags struct {
	placement string
	tierMix   string
	memoryLRU bool
	pipeline  bool
}

func (f *storageFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.placement, "placement", placement.HDFS, "placement of unplaced datasets: "+strings.Join(placement.Names(), " or ")+
		" (octopus: one replica per tier, memory, ssd and hdd)")
	fl.StringVar(&f.tierMix, "tier-mix", "", "replica tier weights of the hdfs placement, e.g. memory=1,ssd=1,hdd=1 (default: all hdd)")
	fl.BoolVar(&f.memoryLRU, "memory-lru", false, "hold each host's memory tier to its capacity by LRU (default: tiers unbounded)")
	fl.BoolVar(&f.pipeline, "output-pipeline", false, "write job outputs' replicas as HDFS's pipeline, each from the one before it (default: each from the writer)")
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
