package main

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/spf13/pflag"
)

// clusterFlags say which cluster to use: a topology file, or a uniform
// cluster. The simulator and the emulator differ only in the defaults.
type clusterFlags struct {
	topology     string
	racks, hosts int
	slots        int
	nicGbps      float64
	oversub      float64
}

func (f *clusterFlags) add(fl *pflag.FlagSet, def cluster.UniformSpec) {
	fl.StringVar(&f.topology, "topology", "", "topology YAML file")
	fl.IntVar(&f.racks, "racks", def.Racks, "racks of a uniform cluster (without --topology)")
	fl.IntVar(&f.hosts, "hosts-per-rack", def.HostsPerRack, "hosts per rack of a uniform cluster")
	fl.IntVar(&f.slots, "slots", def.Slots, "task slots per host of a uniform cluster")
	fl.Float64Var(&f.nicGbps, "nic-gbps", def.NICBps*8/1e9, "host NIC rate of a uniform cluster, Gbit/s")
	fl.Float64Var(&f.oversub, "oversubscription", def.Oversubscription, "rack oversubscription of a uniform cluster (host NIC sum / uplink)")
}

func (f *clusterFlags) load() (*cluster.Topology, error) {
	if f.topology != "" {
		return cluster.LoadTopology(f.topology)
	}
	return cluster.Uniform(cluster.UniformSpec{Racks: f.racks, HostsPerRack: f.hosts, Slots: f.slots,
		NICBps: f.nicGbps * 1e9 / 8, Oversubscription: f.oversub})
}
