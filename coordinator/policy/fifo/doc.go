// Package fifo is Hadoop's default FIFO scheduler: jobs in submission
// order; for each free slot the first job with work gets it, with a
// node-local map if it has one, else rack-local, else any map, and no
// waiting for locality. A job's released reducers are served before its
// maps, as Hadoop's slow-start does.
package fifo
