package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/internal/safefile"
)

// movesGrace bounds how long the end of a run waits for workers to answer
// the replica moves still under way.
const movesGrace = 5 * time.Second

// finish completes the run's records. Its error is the records' (a
// summary, record file or result.json that could not be written): a run
// whose records did not reach the disk did not succeed, whatever the
// jobs did.
func (r *run) finish() error {
	if r.sink == nil {
		return nil
	}
	r.finished = true
	// the heartbeats that carry the last bytes' counts, and the answers
	// to replica moves still under way, so that the records are whole
	wait := time.Duration(0)
	if r.workerCounted {
		wait = 2 * heartbeatInterval
	}
	if len(r.moving) > 0 {
		wait = max(wait, movesGrace)
	}
	for deadline := time.After(wait); wait > 0; {
		select {
		case m := <-r.inbox:
			r.handle(m)
			if len(r.moving) == 0 && !r.workerCounted {
				wait = 0
			}
			continue
		case <-deadline:
		}
		break
	}
	for _, loc := range sortedReplicas(r.moving) {
		r.event("replica-move-unfinished", r.topo.Hosts[loc.host].Name, "%s: no answer by the end of the run; its bytes may still be on %s", loc.key, r.onDisk[loc])
	}
	for h := range r.topo.Hosts {
		for _, m := range r.heldMoves[cluster.HostID(h)] {
			r.event("replica-move-unsent", r.topo.Hosts[h].Name, "%s from %s to %s: held behind moves unanswered by the end of the run", r.objectKey(m.Object()), m.From, m.To)
		}
	}
	for _, id := range r.heldLaunches {
		if a := r.eng.Attempt(id); a != nil {
			r.event("launch-unsent", r.topo.Hosts[a.Host].Name, "attempt %d: its output waited for room in memory until the end of the run", id)
		}
	}
	var up, down []float64
	if r.cfg.Counters != nil {
		u, d, err := r.windowUp, r.windowDown, error(nil)
		if u == nil {
			u, d, err = r.cfg.Counters()
		}
		if err != nil {
			r.event("counters-failed", "", "%v", err)
		} else {
			nr := len(r.topo.Racks)
			up, down = make([]float64, nr), make([]float64, nr)
			r.res.KernelCrossBytes = 0
			for i := 0; i < nr && i < len(u); i++ {
				up[i] = u[i] - r.counter0[i]
				down[i] = d[i] - r.counter0[nr+i]
				r.res.KernelCrossBytes += up[i]
			}
		}
	}
	if r.cfg.PriorityOrder != nil {
		if c, in, err := r.cfg.PriorityOrder(); err != nil {
			r.event("priority-order-failed", "", "%v", err)
		} else if ps, ok := r.cfg.Sink.(interface {
			SetPriorityOrder(sharedS, inOrderS float64)
		}); ok {
			ps.SetPriorityOrder(c, in)
		}
	}
	r.eng.RecordPolicyFigures()
	var errs []error
	if err := r.sink.Finish(&r.eng.Stats, up, down); err != nil {
		errs = append(errs, fmt.Errorf("records: %w", err))
	}
	if err := r.sink.Close(); err != nil {
		errs = append(errs, fmt.Errorf("records: %w", err))
	}
	if err := writeJSON(filepath.Join(r.cfg.OutDir, "result.json"), &r.res); err != nil {
		errs = append(errs, fmt.Errorf("result: %w", err))
	}
	r.event("finished", "", "expected cross-rack %d B, workers reported %d B, kernel %.0f B", r.res.ExpectedCrossBytes, r.res.ReportedCrossBytes, r.res.KernelCrossBytes)
	return errors.Join(errs...)
}

type attemptRecord struct {
	ID       int64                              `json:"id"`
	Job      string                             `json:"job"`
	Stage    int                                `json:"stage"`
	Index    int                                `json:"index"`
	Host     string                             `json:"host"`
	Start    float64                            `json:"start"`
	End      float64                            `json:"end"`
	Outcome  string                             `json:"outcome"`
	Dup      bool                               `json:"duplicate,omitempty"`
	Locality string                             `json:"locality"`
	Expected map[string][engine.NumLevels]int64 `json:"expected_bytes"`
	Reported map[string][engine.NumLevels]int64 `json:"reported_bytes,omitempty"`
	Phases   *phases                            `json:"phases,omitempty"`
	// InputDoneS is when the worker said the attempt had its whole input,
	// in seconds after its start; Received the input bytes it reported.
	InputDoneS *float64 `json:"input_done_s,omitempty"`
	Received   int64    `json:"received"`
}

// phases are the worker's timing of an attempt, and why it failed.
type phases struct {
	Read    float64 `json:"read_s"`
	Compute float64 `json:"compute_s"`
	Write   float64 `json:"write_s"`
	Reason  string  `json:"reason,omitempty"`
}

func byClass(b *engine.ByteCounts) map[string][engine.NumLevels]int64 {
	out := map[string][engine.NumLevels]int64{}
	for c := range b {
		if b[c] != ([engine.NumLevels]int64{}) {
			out[engine.Class(c).String()] = b[c]
		}
	}
	return out
}

func attemptLine(t *cluster.Topology, rec *engine.AttemptRecord) attemptRecord {
	l := attemptRecord{ID: int64(rec.ID), Job: rec.JobName, Stage: int(rec.Task.Stage), Index: int(rec.Task.Index),
		Host: t.Hosts[rec.Host].Name, Start: rec.Start, End: rec.End, Outcome: rec.Outcome.String(), Dup: rec.Duplicate,
		Locality: rec.Locality.String(), Expected: byClass(&rec.Bytes)}
	if rec.Reported != nil {
		l.Reported = byClass(rec.Reported)
	}
	if rec.InputDone {
		s := rec.InputDoneAt - rec.Start
		l.InputDoneS = &s
	}
	l.Received = rec.Received
	return l
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'), 0o644)
}

// ended is err, the run's own reason to end, with the records' error when
// they could not be written (err itself when they were: callers compare
// it with context.Canceled).
func ended(err, records error) error {
	if records == nil {
		return err
	}
	return errors.Join(err, records)
}
