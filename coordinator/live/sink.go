package live

import "github.com/racklab/racklab/coordinator/engine"

// Sink receives what a live run records, as it happens. The caller makes
// it (bench's metrics.RunSink writes the result directory's files); the
// run flushes it after every step, so that a crash keeps what was
// measured, and finishes and closes it at the end.
type Sink interface {
	Attempt(r *engine.AttemptRecord) error
	Job(r *engine.JobRecord) error
	// LinkSample gives the kernel-counted utilisation (0..1) of every
	// rack's uplink and downlink over the period that ends at t.
	LinkSample(t float64, up, down []float64) error
	// Flush makes what was recorded so far durable.
	Flush() error
	// Finish completes the records with the engine's counters and the
	// rack links' kernel-counted bytes (nil without counters). It is not
	// called for a run that ends early.
	Finish(stats *engine.Stats, up, down []float64) error
	Close() error
}

// discard is the Sink of a run that records nothing.
type discard struct{}

func (discard) Attempt(*engine.AttemptRecord) error            { return nil }
func (discard) Job(*engine.JobRecord) error                    { return nil }
func (discard) LinkSample(float64, []float64, []float64) error { return nil }
func (discard) Flush() error                                   { return nil }
func (discard) Finish(*engine.Stats, []float64, []float64) error {
	return nil
}
func (discard) Close() error { return nil }
