package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/engine"
)

// NoQueueError says that no job of a run is in the queue asked for.
type NoQueueError struct {
	File  string // the run's jobs.csv
	Queue string
	// Queues are the queues the run's jobs are in, in file order.
	Queues []string
}

func (e *NoQueueError) Error() string {
	return fmt.Sprintf("%s: no job is in queue %q (the run's jobs are in %s)", e.File, e.Queue, strings.Join(e.Queues, ", "))
}

// endStates are the states a job's record in jobs.csv may have, by name.
var endStates = map[string]engine.JobState{}

func init() {
	for _, s := range []engine.JobState{engine.JobSucceeded, engine.JobFailed, engine.JobUnfinished} {
		endStates[s.String()] = s
	}
}

// LoadQueueFigures reads a run's jobs.csv and computes the figures of
// metrics.JobColumns over the jobs of one queue, as summary.csv has them
// over all of the run's (its makespan is the queue's: its last finish
// less its first arrival). A queue none of the run's jobs is in is a
// *NoQueueError.
func LoadQueueFigures(runDir, queue string) (map[string]float64, error) {
	path := filepath.Join(runDir, "jobs.csv")
	c, err := openCSV(path, []string{"queue", "state", "arrival_s", "finished_s"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var tally metrics.JobTally
	var queues []string
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		q := c.str(rec, "queue")
		if !slices.Contains(queues, q) {
			queues = append(queues, q)
		}
		if q != queue {
			continue
		}
		if err := tallyJob(&tally, c, rec, path, line); err != nil {
			return nil, err
		}
	}
	if tally.Jobs() == 0 {
		return nil, &NoQueueError{File: path, Queue: queue, Queues: queues}
	}
	return tally.Figures(), nil
}

// jobState is a jobs.csv record's state: a misspelt one is refused,
// not taken for a job that finished.
func jobState(c *csvFile, rec []string, line int) (engine.JobState, error) {
	state, ok := endStates[c.str(rec, "state")]
	if !ok {
		return 0, inputErr(c.path, line, "column state: %q is not a job's end (succeeded, failed or unfinished)", c.str(rec, "state"))
	}
	return state, nil
}

// tallyJob adds a jobs.csv record (its state, arrival_s and finished_s)
// to a tally; path and line name the record in errors.
func tallyJob(tally *metrics.JobTally, c *csvFile, rec []string, path string, line int) error {
	state, err := jobState(c, rec, line)
	if err != nil {
		return err
	}
	arrival, err := c.num(rec, line, "arrival_s")
	if err != nil {
		return err
	}
	finished := 0.0
	if state != engine.JobUnfinished {
		if finished, err = c.num(rec, line, "finished_s"); err != nil {
			return err
		}
	}
	tally.Add(state, arrival, finished)
	return nil
}
