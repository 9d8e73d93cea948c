package recurring

import (
	"io"
	"os"
	"strconv"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/yamlfile"
)

// The predicted-jobs file format, one job a line:
//
//	# what the planner predicts (arrival in seconds, sizes in bytes)
//	jobs:
//	  - {id: w1-j001, recurring: w1-j001, arrival_s: 12.5, input_bytes: 134217728, shuffle_bytes: 2e8, output_bytes: 1e8, map_tasks: 1, reduce_tasks: 3}
//
// Every field but recurring is required. Unknown fields are errors, and
// errors give the file and the line.

// Prediction and Predicted live in the workload package, so that the
// engine can hand them to an offline planner.
type (
	Prediction = workload.Prediction
	Predicted  = workload.Predicted
)

// WritePredicted writes p in the format ParsePredicted reads.
func WritePredicted(w io.Writer, p *Predicted) error {
	e := yamlfile.NewEmitter(w)
	e.Raw("# Predicted arrivals (s) and sizes (bytes) of the recurring jobs; the workload file has the actual ones.\n")
	if len(p.Jobs) == 0 {
		e.Raw("jobs: []\n")
		return e.Flush()
	}
	e.Raw("jobs:\n")
	for _, j := range p.Jobs {
		e.Raw("  - {id: ")
		e.Str(j.ID)
		if j.Recurring != "" {
			e.Raw(", recurring: ")
			e.Str(j.Recurring)
		}
		e.Raw(", arrival_s: ")
		e.Float(j.Arrival)
		for _, f := range []struct {
			k string
			v int64
		}{{"input_bytes", j.InputBytes}, {"shuffle_bytes", j.ShuffleBytes}, {"output_bytes", j.OutputBytes},
			{"map_tasks", int64(j.MapTasks)}, {"reduce_tasks", int64(j.ReduceTasks)}} {
			e.Raw(", " + f.k + ": ")
			e.Int(f.v)
		}
		e.Raw("}\n")
	}
	return e.Flush()
}

// LoadPredicted reads a predicted-jobs file.
func LoadPredicted(path string) (*Predicted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePredicted(path, data)
}

// ParsePredicted reads predictions from YAML text; name is the file name
// for error messages.
func ParsePredicted(name string, data []byte) (*Predicted, error) {
	d, top, err := yamlfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	m := d.Map(top, "")
	m.Known("jobs")
	m.Require("jobs")
	p := &Predicted{File: name}
	lines := map[string]int{}
	for i, n := range m.Seq("jobs") {
		jm := d.Map(n, "job #"+strconv.Itoa(i+1))
		j := Prediction{ID: jm.Str("id")}
		if j.ID != "" {
			jm.Where = "job " + strconv.Quote(j.ID)
		}
		jm.Known("id", "recurring", "arrival_s", "input_bytes", "shuffle_bytes", "output_bytes", "map_tasks", "reduce_tasks")
		jm.Require("id", "arrival_s", "input_bytes", "shuffle_bytes", "output_bytes", "map_tasks", "reduce_tasks")
		if d.Err() != nil {
			break
		}
		if first, dup := lines[j.ID]; dup {
			jm.Fail("id", "job id %q is used twice (first at line %d)", j.ID, first)
			break
		}
		lines[j.ID] = jm.Line
		j.Line = jm.Line
		j.Recurring = jm.Str("recurring")
		if j.Arrival = jm.Float("arrival_s"); j.Arrival < 0 {
			jm.Fail("arrival_s", "arrival_s must not be negative")
		}
		for _, f := range []struct {
			k string
			v *int64
		}{{"input_bytes", &j.InputBytes}, {"shuffle_bytes", &j.ShuffleBytes}, {"output_bytes", &j.OutputBytes}} {
			if *f.v = jm.Int(f.k); *f.v < 0 {
				jm.Fail(f.k, "%s must not be negative", f.k)
			}
		}
		for _, f := range []struct {
			k string
			v *int
		}{{"map_tasks", &j.MapTasks}, {"reduce_tasks", &j.ReduceTasks}} {
			x := jm.Int(f.k)
			if x < 0 || x > 1<<31-1 {
				jm.Fail(f.k, "%s must be between 0 and 2147483647", f.k)
			}
			*f.v = int(x)
		}
		if d.Err() != nil {
			break
		}
		p.Jobs = append(p.Jobs, j)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return p, nil
}
