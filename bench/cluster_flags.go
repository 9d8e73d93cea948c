package main

import (
	"fmt"
	"math"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/spf13/pflag"
)

// clusterFlags say which cluster to use: a topology file, or a uniform
// cluster. Slots, NIC rate and oversubscription default to
// cluster.DefaultUniform, as in topology files and campaigns; each command
// picks its own default size.
type clusterFlags struct {
	topology     string
	racks, hosts int
	slots        int
	reduceSlots  int
	nicGbps      float64
	oversub      float64
}

func (f *clusterFlags) add(fl *pflag.FlagSet, racks, hostsPerRack int) {
	def := cluster.DefaultUniform()
	fl.StringVar(&f.topology, "topology", "", "topology YAML file")
	fl.IntVar(&f.racks, "racks", racks, "racks of a uniform cluster (without --topology)")
	fl.IntVar(&f.hosts, "hosts-per-rack", hostsPerRack, "hosts per rack of a uniform cluster")
	fl.IntVar(&f.slots, "slots", def.Slots, "task slots per host of a uniform cluster (its map slots with --reduce-slots)")
	fl.IntVar(&f.reduceSlots, "reduce-slots", def.ReduceSlots, "reduce slots per host of a uniform cluster, a pool of their own for reduce and generic tasks (0: one pool)")
	fl.Float64Var(&f.nicGbps, "nic-gbps", def.NICBps*8/1e9, "host NIC rate of a uniform cluster, Gbit/s")
	fl.Float64Var(&f.oversub, "oversubscription", def.Oversubscription, "rack oversubscription of a uniform cluster (host NIC sum / uplink)")
}

func (f *clusterFlags) load() (*cluster.Topology, error) {
	if f.topology != "" {
		return cluster.LoadTopology(f.topology)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	spec := cluster.DefaultUniform()
	spec.Racks, spec.HostsPerRack, spec.Slots, spec.ReduceSlots = f.racks, f.hosts, f.slots, f.reduceSlots
	spec.NICBps, spec.Oversubscription = f.nicGbps*1e9/8, f.oversub
	t, err := cluster.Uniform(spec)
	if err != nil {
		return nil, fmt.Errorf("--racks, --hosts-per-rack, --slots, --nic-gbps, --oversubscription: %w", err)
	}
	return t, nil
}

// check holds the uniform cluster's flags to cluster's limits, naming
// the flag.
func (f *clusterFlags) check() error {
	const gbps = 1e9 / 8 // bytes/s per Gbit/s
	switch {
	case f.racks < 1 || f.racks > cluster.MaxHosts:
		return fmt.Errorf("--racks must be between 1 and %d (got %d)", cluster.MaxHosts, f.racks)
	case f.hosts < 1 || f.hosts > cluster.MaxHosts:
		return fmt.Errorf("--hosts-per-rack must be between 1 and %d (got %d)", cluster.MaxHosts, f.hosts)
	case f.racks*f.hosts > cluster.MaxHosts:
		return fmt.Errorf("--racks × --hosts-per-rack must be at most %d hosts (got %d × %d)", cluster.MaxHosts, f.racks, f.hosts)
	case f.slots < 1 || f.slots > cluster.MaxSlots:
		return fmt.Errorf("--slots must be between 1 and %d (got %d)", cluster.MaxSlots, f.slots)
	case f.reduceSlots < 0 || f.reduceSlots > cluster.MaxSlots:
		return fmt.Errorf("--reduce-slots must be between 0 (one pool) and %d (got %d)", cluster.MaxSlots, f.reduceSlots)
	case !(f.nicGbps*gbps >= cluster.MinRateBps && f.nicGbps*gbps <= cluster.MaxRateBps):
		return fmt.Errorf("--nic-gbps must be between %g and %g (got %g)", cluster.MinRateBps/gbps, cluster.MaxRateBps/gbps, f.nicGbps)
	case !(f.oversub > 0) || math.IsInf(f.oversub, 0):
		return fmt.Errorf("--oversubscription must be positive and finite (got %g)", f.oversub)
	}
	return nil
}

// uniformLine is the topology file of the uniform flags' cluster, for a
// command (a coordinator) that takes the cluster as a file; its tiers are
// cluster.DefaultTiers, as load's.
func (f *clusterFlags) uniformLine() string {
	return fmt.Sprintf("uniform: {racks: %d, hosts_per_rack: %d, slots: %d, reduce_slots: %d, nic_gbps: %g, oversubscription: %g}\n",
		f.racks, f.hosts, f.slots, f.reduceSlots, f.nicGbps, f.oversub)
}
