// Package layout places unplaced datasets on a topology ahead of a run, so
// that every scheduler compared sees the same input layout. The placement
// is HDFS's default rack-aware one (coordinator/placement/hdfs: first
// replica on a random host, the second and third on two hosts of one other
// rack), with each replica's tier drawn from a tier mix (Trident's
// memory/SSD/HDD setup), or OctopusFS-like (coordinator/placement/octopus:
// the same hosts, one replica on each tier).
//
// Datasets already placed are kept as they are. An empty dataset has no
// block to place and stays unplaced. Options can override the block size
// and replication of the datasets placed. Randomness comes from Seed: the
// same inputs give the same layout.
package layout
