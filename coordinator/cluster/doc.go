// Package cluster is racklab's model of the cluster a run schedules onto:
// racks behind top-of-rack switches with shared uplinks and downlinks,
// hosts with task slots, a NIC rate and memory/SSD/HDD storage tiers, and
// an optional core rate. A Topology is built in code (Uniform) or read from
// a YAML file (LoadTopology, ParseTopology) and written back with
// WriteTopology; see yaml.go for the file format.
package cluster
