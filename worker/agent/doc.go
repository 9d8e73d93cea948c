// Package agent is the worker process: it opens the tiered store, serves
// blocks and partitions on its data port, joins the memberlist cluster
// with its rack, registers with the coordinator over NATS, heartbeats with
// its running attempts, their input progress and its counters, runs the
// attempts it is sent (reporting each one's input done and end), and moves
// stored objects between its tiers on request.
// Malformed or unknown commands are logged, reported and dropped. With
// host shaping on, it keeps an HTB class per other rack on its data NIC,
// with u32 filters on the peers' data addresses learned from memberlist.
// and a dead-man guardian process (deadman.go) removes that shaping if
// the worker dies or stops refreshing it.
package agent
