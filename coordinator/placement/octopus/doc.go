// Package octopus is an OctopusFS-like tiered block placement, the one
// Trident's evaluation runs on (spec trident.md §7.3 (b)): a block's d
// replicas (its dataset's Replication, default 3) go to d distinct hosts
// chosen by HDFS's rack-aware rule (coordinator/placement/hdfs's Hosts),
// and its first three replicas to the three tier kinds, memory, SSD and
// HDD, one each, in a random order; replicas beyond the third go to HDD.
// A host lacking the tier drawn for its replica gets its slowest tier, as
// with the HDFS placer. With fewer than three replicas the tiers are the
// first ones of the random order, so they still differ.
//
// Job outputs written through it (PlaceReplicas, the engine's output
// placer under the campaign key placement: octopus) get their tiers the
// same way, on the hosts of HDFS's write pipeline: the first replica on
// the writer.
//
// The paper does not give OctopusFS's placement; this default follows its
// observations that Default finds data-local tasks spread evenly over the
// three tiers and that its examples mix tiers within one block.
//
// The placer does not enforce tier capacities: the engine's MemoryLRU
// (engine.Config), a separate mechanism, holds each memory tier to its
// capacity, outputs' memory replicas included; without it every tier is unbounded, as with the HDFS placer.
// Randomness comes only from the rng passed in: the same rng state gives
// the same layout.
package octopus
