package workload

import "fmt"

// Prediction is what an offline planner knows of a recurring job ahead of
// time: its predicted arrival and sizes, which may differ from the actual
// ones in the workload (Corral's prediction errors, injected by datagen's
// recurring generator).
type Prediction struct {
	ID                                    string
	Recurring                             string
	Arrival                               float64
	InputBytes, ShuffleBytes, OutputBytes int64
	MapTasks, ReduceTasks                 int
	// Line is the prediction's line in its file, for errors (0: not read
	// from a file).
	Line int
}

// Predicted is the predictions of a workload's recurring jobs.
type Predicted struct {
	Jobs []Prediction
	// File is the file the predictions were read from, for errors ("":
	// generated).
	File string
}

// CheckAgainst reports a prediction for a job the workload does not have.
func (p *Predicted) CheckAgainst(w *Workload) error {
	ids := make(map[string]bool, len(w.Jobs))
	for _, j := range w.Jobs {
		ids[j.ID] = true
	}
	for _, j := range p.Jobs {
		if ids[j.ID] {
			continue
		}
		if p.File != "" && j.Line > 0 {
			return fmt.Errorf("%s:%d: prediction for job %q, which the workload does not have", p.File, j.Line, j.ID)
		}
		if p.File != "" {
			return fmt.Errorf("%s: prediction for job %q, which the workload does not have", p.File, j.ID)
		}
		return fmt.Errorf("prediction for job %q, which the workload does not have", j.ID)
	}
	return nil
}
