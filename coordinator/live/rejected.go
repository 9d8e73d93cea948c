package live

import "time"

// Rejected messages are all counted, but only the first
// rejectedLogLimit of every rejectedLogInterval are logged in full; the
// rest are summed up in one line per interval, so that a flood of bad
// messages cannot grow the events file and the log without bound.
const (
	rejectedLogLimit    = 20
	rejectedLogInterval = 10 * time.Second
)

// rejectedLog is the state of that limit.
type rejectedLog struct {
	since  time.Time // start of the current interval
	logged int       // logged in full in it
	quiet  int       // counted but not logged in it
}

func (r *run) malformed(subject string, err error) {
	r.res.MalformedMessages++
	r.prom.rejected.Inc()
	now := time.Now()
	if now.Sub(r.rejected.since) >= rejectedLogInterval {
		r.summarizeRejected(now)
	}
	if r.rejected.logged >= rejectedLogLimit {
		r.rejected.quiet++
		return
	}
	r.rejected.logged++
	r.event("rejected-message", "", "on %s: %v", subject, err)
}

// summarizeRejected writes the line for the messages of the interval
// that were not logged, if any, and starts a new interval at now. It runs
// when an interval is over and when the run ends.
func (r *run) summarizeRejected(now time.Time) {
	if q := r.rejected.quiet; q > 0 {
		r.event("rejected-message", "", "%d more rejected in the last %.0f s (only the first %d of an interval are logged; all are counted)",
			q, now.Sub(r.rejected.since).Seconds(), rejectedLogLimit)
	}
	r.rejected = rejectedLog{since: now}
}

// flushRejected summarizes an interval that is over, so that a summary
// does not wait for the next rejected message.
func (r *run) flushRejected() {
	if r.rejected.quiet > 0 && time.Since(r.rejected.since) >= rejectedLogInterval {
		r.summarizeRejected(time.Now())
	}
}
