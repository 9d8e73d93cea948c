// Package netmon is Dawn's network status monitor (dawn.md §2.4), which
// ShuffleWatcher shares (§4.2 SW-3: "same monitor and θ as Dawn"): each
// rack link's load averaged over the last W seconds, from the
// measurements the driver hands the engine, each over its own shorter
// window. A policy adds every measurement (engine.NetworkMeasuredHook)
// and reads the averaged loads when it decides.
package netmon
