// Package traffic is the one home of racklab's traffic classes and of its
// priority table, shared by the engine, the workers' data plane, the shaper
// and the bench.
//
// A Class says what a transfer is for (task input, shuffle, output
// replicas, background traffic, ...) and has a default DSCP, the mark a
// socket of that class carries until a scheduler says otherwise.
//
// The priority table maps an engine network priority (0 is the highest)
// to a Band: a DSCP codepoint and the HTB leaf of a shaped group that the
// codepoint selects. Its rows, highest first, are four job bands (engine
// priorities 0 to 3; larger priorities share the last), best effort (the
// unmarked traffic and any codepoint not in the table), a reserved lowest
// band (PushBox gives it to intra-rack flows and to the tasks of FIFO jobs
// that are not the queue's head) and a lower-effort band for background
// traffic. Every consumer reads the same table, so a priority the
// coordinator pushes lands in the leaf the shaper built for it.
package traffic
