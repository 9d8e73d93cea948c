package metrics

import (
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/engine"
)

// JobColumns are the summary.csv columns that come from the jobs' records
// alone (jobs.csv): the ones a headline can also take over a class of
// jobs, one queue's (JobFigures).
var JobColumns = []string{"jobs", "failed_jobs", "unfinished_jobs", "makespan_s",
	"jct_mean_s", "jct_p50_s", "jct_p90_s", "jct_p95_s", "jct_p99_s"}

// JobTally folds job records into the figures of JobColumns, the same for
// a whole run (the Recorder's) and for a class of its jobs (a queue's, from
// jobs.csv). Its zero value is empty.
type JobTally struct {
	jobs, failed, unfinished int
	// first arrival and last finish of the jobs that ended (succeeded or
	// failed); ended says there was one
	first, last float64
	ended       bool
	jcts        []float64 // of the jobs that succeeded
}

// Add counts a job's record: its state, arrival and finish (seconds; the
// finish is unknown for a job a window left unfinished, which only counts).
func (t *JobTally) Add(state engine.JobState, arrival, finished float64) {
	t.jobs++
	switch state {
	case engine.JobUnfinished:
		t.unfinished++
		return
	case engine.JobFailed:
		t.failed++
	default:
		t.jcts = append(t.jcts, finished-arrival)
	}
	if !t.ended {
		t.first, t.last, t.ended = arrival, finished, true
	}
	t.first = math.Min(t.first, arrival)
	t.last = math.Max(t.last, finished)
}

// Jobs is how many records were added.
func (t *JobTally) Jobs() int { return t.jobs }

// Makespan is the last finish less the first arrival of the jobs that
// ended; 0 when none did.
func (t *JobTally) Makespan() float64 {
	if !t.ended || t.last <= t.first {
		return 0
	}
	return t.last - t.first
}

// JCTs are the completion times of the jobs that succeeded, sorted.
func (t *JobTally) JCTs() []float64 {
	sorted := append([]float64(nil), t.jcts...)
	sort.Float64s(sorted)
	return sorted
}

// Figures are the tally's values by JobColumns name: completion times
// (mean and nearest-rank percentiles) over the jobs that succeeded, 0 when
// none did, as summary.csv has them.
func (t *JobTally) Figures() map[string]float64 {
	sorted := t.JCTs()
	return map[string]float64{
		"jobs": float64(t.jobs), "failed_jobs": float64(t.failed), "unfinished_jobs": float64(t.unfinished),
		"makespan_s": t.Makespan(), "jct_mean_s": Mean(sorted),
		"jct_p50_s": Percentile(sorted, 50), "jct_p90_s": Percentile(sorted, 90),
		"jct_p95_s": Percentile(sorted, 95), "jct_p99_s": Percentile(sorted, 99),
	}
}
