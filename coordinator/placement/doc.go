// Package placement builds a dataset placement policy by name, for the
// places a run is configured from text (campaign files, bench and datagen
// flags): "hdfs" (coordinator/placement/hdfs, HDFS's rack-aware rule with
// a tier mix) and "octopus" (coordinator/placement/octopus, one replica
// per tier, as OctopusFS in Trident's evaluation). It also reads tier
// mixes. The engine imports the placers themselves, never this package,
// so that this package may import the engine's interfaces.
package placement
