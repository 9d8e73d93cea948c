package gen

import (
	"fmt"
	"math"

	"github.com/racklab/racklab/coordinator/workload"
)

// Hive's defaults for the reduce task count: hive.exec.reducers.bytes.per.reducer
// (256,000,000 since Hive 0.14) and hive.exec.reducers.max (1009 since Hive 0.14).
const (
	HiveReduceBytes = 256e6
	HiveMaxReducers = 1009
)

// Input is what one map stage of a DAG node reads: a dataset of Bytes
// bytes (already scaled), or the whole output of an earlier node (Node,
// when Dataset is ""). Fraction of it is left after the map's filter,
// projection or combiner (the map stage's selectivity).
type Input struct {
	Dataset  string
	Bytes    int64
	Node     int
	Fraction float64
}

// Node is one MapReduce job of a job DAG (a Hive query, an ML pipeline).
type Node struct {
	Name   string
	Inputs []Input
	// Reduce says the job has a reduce stage; Sel is its selectivity
	// (output bytes per shuffled byte). A map-only node reads datasets
	// only, and its output is what its maps keep.
	Reduce bool
	Sel    float64
	// OneReducer gives the reduce stage a single task (a global ORDER BY
	// or an aggregate without GROUP BY); otherwise one task per
	// DAGOptions.ReduceBytes of shuffle.
	OneReducer bool
	// ComputeNsPerByte is the CPU cost of every stage of the node.
	ComputeNsPerByte float64
}

// DAG is a job DAG: nodes in an order where every node comes after the
// nodes it reads.
type DAG struct {
	Nodes []Node
}

// DAGOptions say how a DAG becomes workload jobs.
type DAGOptions struct {
	// ID names the jobs: node jobs are ID + "-" + node name, and the
	// multi-stage job is ID itself.
	ID          string
	Arrival     float64
	Queue       string
	Recurring   string
	ReduceBytes int64 // shuffle bytes per reduce task (scaled)
	MaxReducers int   // 0: no cap
	// MultiStage makes one Tez-like job of generic stages instead of a
	// job per node (see Jobs).
	MultiStage bool
}

// Check reports a malformed DAG.
func (d *DAG) Check() error {
	seen := map[string]bool{}
	for i, n := range d.Nodes {
		if n.Name == "" || seen[n.Name] {
			return fmt.Errorf("node #%d: name %q is empty or used twice", i+1, n.Name)
		}
		seen[n.Name] = true
		if len(n.Inputs) == 0 {
			return fmt.Errorf("node %q reads nothing", n.Name)
		}
		names := map[string]bool{}
		for _, in := range n.Inputs {
			switch {
			case in.Dataset == "" && (in.Node < 0 || in.Node >= i):
				return fmt.Errorf("node %q reads node #%d, which is not an earlier node", n.Name, in.Node+1)
			case in.Dataset == "" && !n.Reduce:
				return fmt.Errorf("node %q is map-only but reads another node's output", n.Name)
			case !(in.Fraction > 0) || math.IsInf(in.Fraction, 0) || in.Bytes < 0:
				return fmt.Errorf("node %q: input fractions must be positive and sizes not negative", n.Name)
			}
			if names[d.inputName(in)] {
				return fmt.Errorf("node %q reads %s twice", n.Name, d.inputName(in))
			}
			names[d.inputName(in)] = true
		}
		if n.Reduce && (!(n.Sel >= 0) || math.IsInf(n.Sel, 0)) || n.ComputeNsPerByte < 0 {
			return fmt.Errorf("node %q: selectivity and compute cost must not be negative", n.Name)
		}
	}
	return nil
}

func (d *DAG) inputName(in Input) string {
	if in.Dataset != "" {
		return in.Dataset
	}
	return d.Nodes[in.Node].Name
}

// Sizes estimates each node's shuffle (what its maps keep) and output
// bytes, the way describe does: dataset bytes and parents' outputs times
// the fractions, then the reduce selectivity.
func (d *DAG) Sizes() (shuffle, output []float64) {
	shuffle = make([]float64, len(d.Nodes))
	output = make([]float64, len(d.Nodes))
	for i, n := range d.Nodes {
		for _, in := range n.Inputs {
			b := float64(in.Bytes)
			if in.Dataset == "" {
				b = output[in.Node]
			}
			shuffle[i] += b * in.Fraction
		}
		output[i] = shuffle[i]
		if n.Reduce {
			output[i] = shuffle[i] * n.Sel
		}
	}
	return shuffle, output
}

// Depths is each node's level in the DAG (1 for a node reading datasets
// only), and Depth the deepest level.
func (d *DAG) Depths() []int {
	lv := make([]int, len(d.Nodes))
	for i, n := range d.Nodes {
		lv[i] = 1
		for _, in := range n.Inputs {
			if in.Dataset == "" {
				lv[i] = max(lv[i], lv[in.Node]+1)
			}
		}
	}
	return lv
}

// Depth is the number of jobs on the DAG's longest path.
func (d *DAG) Depth() int {
	m := 0
	for _, l := range d.Depths() {
		m = max(m, l)
	}
	return m
}

// Jobs turns the DAG into workload jobs.
//
// As MapReduce jobs (Hive on MapReduce, Mahout): one job per node, with a
// map stage "map-<input>" per input (a dataset, or "@<parent job>" for a
// node's output) whose selectivity is the input's fraction and, for
// reduce nodes, a stage "reduce" after all of them.
//
// As one multi-stage job (Hive on Tez): a map stage "<node>-<dataset>"
// per dataset input, and for each reduce node a generic stage "<node>"
// after its map stages and after the stages that produce its parents'
// outputs. A Tez edge carries the producer's whole output, so the
// fractions on node inputs are not applied on the edge; the generic
// stage's selectivity is set so that its output is the same as the
// MapReduce job's.
func (d *DAG) Jobs(o DAGOptions) ([]workload.Job, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	shuffle, output := d.Sizes()
	tasks := func(i int) int {
		if d.Nodes[i].OneReducer {
			return 1
		}
		return ReduceTasks(int64(math.Ceil(shuffle[i])), o.ReduceBytes, o.MaxReducers)
	}
	if o.MultiStage {
		return []workload.Job{d.tezJob(o, output, tasks)}, nil
	}
	jobs := make([]workload.Job, len(d.Nodes))
	ids := make([]string, len(d.Nodes))
	for i, n := range d.Nodes {
		ids[i] = o.ID + "-" + n.Name
		j := workload.Job{ID: ids[i], Arrival: o.Arrival, Queue: o.Queue}
		if o.Recurring != "" {
			j.Recurring = o.Recurring + "-" + n.Name
		}
		var maps []string
		for _, in := range n.Inputs {
			st := workload.Stage{Name: "map-" + d.inputName(in), Kind: workload.Map, Input: in.Dataset,
				Selectivity: in.Fraction, ComputeNsPerByte: n.ComputeNsPerByte}
			if in.Dataset == "" {
				st.Input = workload.ParentOutputPrefix + ids[in.Node]
				j.Parents = append(j.Parents, ids[in.Node])
			}
			maps = append(maps, st.Name)
			j.Stages = append(j.Stages, st)
		}
		if n.Reduce {
			j.Stages = append(j.Stages, workload.Stage{Name: "reduce", Kind: workload.Reduce, Tasks: tasks(i),
				After: maps, Selectivity: n.Sel, ComputeNsPerByte: n.ComputeNsPerByte})
		}
		jobs[i] = j
	}
	return jobs, nil
}

func (d *DAG) tezJob(o DAGOptions, output []float64, tasks func(int) int) workload.Job {
	j := workload.Job{ID: o.ID, Arrival: o.Arrival, Queue: o.Queue, Recurring: o.Recurring}
	produced := make([][]string, len(d.Nodes)) // stages whose outputs make node i's output
	for i, n := range d.Nodes {
		var after []string
		var in float64
		for _, x := range n.Inputs {
			if x.Dataset != "" {
				name := n.Name + "-" + x.Dataset
				j.Stages = append(j.Stages, workload.Stage{Name: name, Kind: workload.Map, Input: x.Dataset,
					Selectivity: x.Fraction, ComputeNsPerByte: n.ComputeNsPerByte})
				after = append(after, name)
				in += float64(x.Bytes) * x.Fraction
			} else {
				after = append(after, produced[x.Node]...)
				in += output[x.Node]
			}
		}
		if !n.Reduce {
			produced[i] = after
			continue
		}
		sel := 0.0
		if in > 0 {
			sel = output[i] / in
		}
		j.Stages = append(j.Stages, workload.Stage{Name: n.Name, Kind: workload.Generic, Tasks: tasks(i),
			After: after, Selectivity: sel, ComputeNsPerByte: n.ComputeNsPerByte})
		produced[i] = []string{n.Name}
	}
	return j
}
