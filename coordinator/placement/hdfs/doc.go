// Package hdfs is HDFS's default block placement, rack-aware: the first
// replica on a random host (the writer), the second on a host of another
// rack, the third on another host of the second's rack, further ones on
// random hosts; never two replicas on one host. Replicas go to one tier,
// or to tiers drawn from a mix (Trident's setup).
//
// As HDFS, it places fewer replicas than asked when the cluster has
// fewer hosts. It does not enforce tier capacities (nor does the
// OctopusFS-like placer): the engine's MemoryLRU, when a campaign turns
// it on, holds each memory tier to its capacity; otherwise every tier is
// unbounded.
package hdfs
