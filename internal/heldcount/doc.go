// Package heldcount keeps kernel class counters cumulative across the
// classes' lives. Flat mode counts cross-rack traffic in HTB classes on
// the hosts' own NICs, in qdiscs their workers own: a worker's dead-man
// guardian removes its shaping when the worker dies or starves, and a
// worker shaping again starts its classes from 0. Read raw, a rack's sum
// then falls (a negative link utilisation) and a run's kernel-counted
// cross-rack bytes lose what the removed classes counted. Held, a class
// that vanished keeps its last count, and one that came back (or whose
// count went backwards) counts on from it.
//
// The emulated cluster's counters (package shaping) and the live
// coordinator's sums of its workers' reported counters both hold theirs.
package heldcount
