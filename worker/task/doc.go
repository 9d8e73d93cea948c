// Package task runs one attempt of a synthetic map, reduce or generic
// task on a worker, moving real bytes: a map reads its input block from
// its tier or from the worker that holds it, burns CPU for its compute
// cost and writes its output to a local tier; a shuffling task fetches its
// partition of every upstream output with parallel fetchers as the
// coordinator announces them, computes, and writes its output while it
// pushes it to the replicas the engine chose, all at once. Every byte read
// is accounted by traffic class and by level (local, in-rack, cross-rack);
// the input received so far is the attempt's progress, and the moment it
// is all there is reported once, before compute.
package task
