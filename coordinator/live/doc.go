// Package live drives the engine on real workers: it runs (or connects
// to) the NATS server, admits workers that register with credentials,
// places and materializes the input blocks, advances the engine on the
// wall clock, dispatches attempts and their shuffle sources, ingests the
// workers' reports and counters, declares a host lost when its heartbeats
// stop or memberlist says it died, and writes every record as it happens.
package live
