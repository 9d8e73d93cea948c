package main

import (
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
	nicGbps      float64
	oversub      float64
}

func (f *clusterFlags) add(fl *pflag.FlagSet, racks, hostsPerRack int) {
	def := cluster.DefaultUniform()
	fl.StringVar(&f.topology, "topology", "", "topology YAML file")
	fl.IntVar(&f.racks, "racks", racks, "racks of a uniform cluster (without --topology)")
	fl.IntVar(&f.hosts, "hosts-per-rack", hostsPerRack, "hosts per rack of a uniform cluster")
	fl.IntVar(&f.slots, "slots", def.Slots, "task slots per host of a uniform cluster")
	fl.Float64Var(&f.nicGbps, "nic-gbps", def.NICBps*8/1e9, "host NIC rate of a uniform cluster, Gbit/s")
	fl.Float64Var(&f.oversub, "oversubscription", def.Oversubscription, "rack oversubscription of a uniform cluster (host NIC sum / uplink)")
}

func (f *clusterFlags) load() (*cluster.Topology, error) {
	if f.topology != "" {
		return cluster.LoadTopology(f.topology)
	}
	spec := cluster.DefaultUniform()
	spec.Racks, spec.HostsPerRack, spec.Slots = f.racks, f.hosts, f.slots
	spec.NICBps, spec.Oversubscription = f.nicGbps*1e9/8, f.oversub
	return cluster.Uniform(spec)
}
