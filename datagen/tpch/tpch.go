package tpch

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
)

// TableBytes are the sizes of the flat files dbgen writes at scale factor
// 1. Every table but nation and region grows linearly with the scale
// factor (TPC-H spec §4.2.5).
var TableBytes = map[string]int64{
	"lineitem": 759863287,
	"orders":   171952161,
	"partsupp": 118984616,
	"part":     24135125,
	"customer": 24346144,
	"supplier": 1409184,
	"nation":   2224,
	"region":   389,
}

// fixedTables do not grow with the scale factor.
var fixedTables = map[string]bool{"nation": true, "region": true}

// Op is what a Hive job does.
type Op uint8

const (
	Scan  Op = iota // map-only
	Join            // reduce-side join (several inputs on one key)
	Group           // GROUP BY
	Order           // global ORDER BY: one reducer
	Agg             // aggregate without GROUP BY: one reducer
)

var opNames = [...]string{Scan: "scan", Join: "join", Group: "group", Order: "order", Agg: "agg"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// Input is a table or an earlier job of the query (Job ≥ 0), and the
// fraction of it the job's map keeps.
type Input struct {
	Table    string
	Job      int
	Fraction float64
}

// Job is one MapReduce job of a query plan.
type Job struct {
	Name   string
	Op     Op
	Inputs []Input
	Sel    float64
	Line   int
}

// Query is one query's job DAG.
type Query struct {
	N    int
	Jobs []Job
}

// DAG is the query as a generic job DAG over the given table sizes
// (bytes, already scaled), with every stage costing ns per byte.
func (q *Query) DAG(tables map[string]int64, ns float64) *gen.DAG {
	d := &gen.DAG{Nodes: make([]gen.Node, len(q.Jobs))}
	for i, j := range q.Jobs {
		n := gen.Node{Name: j.Name, Reduce: j.Op != Scan, Sel: j.Sel, OneReducer: j.Op == Order || j.Op == Agg, ComputeNsPerByte: ns}
		for _, in := range j.Inputs {
			x := gen.Input{Node: in.Job, Fraction: in.Fraction}
			if in.Table != "" {
				x.Dataset, x.Bytes = DatasetName(in.Table), tables[in.Table]
			}
			n.Inputs = append(n.Inputs, x)
		}
		d.Nodes[i] = n
	}
	return d
}

// DatasetName is the dataset of a table.
func DatasetName(table string) string { return "tpch-" + table }

//go:embed plans.txt
var builtinPlans []byte

// Plans are the built-in plans of the 22 queries (plans.txt).
func Plans() []Query {
	qs, err := ParsePlans(bytes.NewReader(builtinPlans), "plans.txt")
	if err != nil {
		panic(err) // the tests parse the file
	}
	return qs
}

// ParsePlans reads plans in the format of plans.txt; name is the file name
// for error messages, which give the line.
func ParsePlans(r io.Reader, name string) ([]Query, error) {
	var qs []Query
	index := map[int]int{}           // query → index in qs
	jobs := map[int]map[string]int{} // query → job name → index in its Jobs
	err := gen.ScanFields(r, name, func(lineNo int, f []string) error {
		if len(f) < 4 {
			return fmt.Errorf("want \"q<query> <job> <op> <input> ... [sel=<x>]\", got %d fields", len(f))
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f[0], "q"))
		if !strings.HasPrefix(f[0], "q") || err != nil || n < 1 || n > 99 {
			return fmt.Errorf("query %q: want q1 … q99", f[0])
		}
		qi, ok := index[n]
		if !ok {
			qi = len(qs)
			index[n] = qi
			qs = append(qs, Query{N: n})
			jobs[n] = map[string]int{}
		}
		q := &qs[qi]
		j := Job{Name: f[1], Sel: 1, Line: lineNo}
		// no "-": the DAG names a job's datasets and Tez stages
		// <job>-<input>, and tables tpch-<table>
		if strings.ContainsFunc(j.Name, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
			return fmt.Errorf("job name %q: want letters, digits and _", j.Name)
		}
		if prev, dup := jobs[n][j.Name]; dup {
			return fmt.Errorf("q%d: job %q is defined twice (first on line %d)", n, j.Name, q.Jobs[prev].Line)
		}
		if _, isTable := TableBytes[j.Name]; isTable {
			return fmt.Errorf("job name %q is a table's", j.Name)
		}
		op := slices.Index(opNames[:], f[2])
		if op < 0 {
			return fmt.Errorf("op %q: want scan, join, group, order or agg", f[2])
		}
		j.Op = Op(op)
		seen := map[string]bool{}
		for _, tok := range f[3:] {
			if v, ok := strings.CutPrefix(tok, "sel="); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || !(x >= 0 && x <= workload.MaxSelectivity) {
					return fmt.Errorf("sel %q: want a number from 0 to %g", v, float64(workload.MaxSelectivity))
				}
				if j.Op == Scan {
					return fmt.Errorf("a scan is map-only: it has no sel (give the fraction on its input)")
				}
				j.Sel = x
				continue
			}
			src, frac, hasFrac := strings.Cut(tok, "*")
			in := Input{Job: -1, Fraction: 1}
			if hasFrac {
				x, err := strconv.ParseFloat(frac, 64)
				if err != nil || !(x > 0 && x <= 1) {
					return fmt.Errorf("input %q: the fraction must be a number in (0, 1]", tok)
				}
				in.Fraction = x
			}
			if _, ok := TableBytes[src]; ok {
				in.Table = src
			} else {
				var earlier bool
				if in.Job, earlier = jobs[n][src]; !earlier {
					return fmt.Errorf("input %q is neither a table nor an earlier job of q%d", src, n)
				}
				if j.Op == Scan {
					return fmt.Errorf("a scan is map-only: it reads tables, not job %q", src)
				}
			}
			if seen[src] {
				return fmt.Errorf("input %q is listed twice", src)
			}
			seen[src] = true
			j.Inputs = append(j.Inputs, in)
		}
		if len(j.Inputs) == 0 {
			return fmt.Errorf("job %q reads nothing", j.Name)
		}
		jobs[n][j.Name] = len(q.Jobs)
		q.Jobs = append(q.Jobs, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no query plans", name)
	}
	sort.SliceStable(qs, func(a, b int) bool { return qs[a].N < qs[b].N })
	return qs, nil
}

// Options shape the workload. DefaultOptions gives the usual values.
type Options struct {
	gen.Options
	ScaleFactor float64
	// Queries selects queries by number; empty: every query of the plans.
	Queries []int
	// Rounds submits the query set this many times, a Window apart.
	Rounds int
	// Window is the span, in seconds, of each round's trace arrivals.
	Window float64
	// MultiStage makes each query one Tez-like job.
	MultiStage bool
	// ReduceBytes (before scaling) and MaxReducers size the reduce stages.
	ReduceBytes      int64
	MaxReducers      int
	ComputeNsPerByte float64
	// Plans replaces the built-in plans when not nil.
	Plans []Query
}

// DefaultOptions: SF 50 (Dawn's 50 GB), all 22 queries once, arriving
// over 10 minutes (Dawn's physical cluster), as MapReduce job DAGs, with
// Hive's reducer defaults and 5 ns of CPU per byte.
func DefaultOptions() Options {
	return Options{Options: gen.DefaultOptions(), ScaleFactor: 50, Rounds: 1, Window: 600,
		ReduceBytes: gen.HiveReduceBytes, MaxReducers: gen.HiveMaxReducers, ComputeNsPerByte: 5}
}

// Generate builds the workload and its table datasets.
func Generate(o Options) (*workload.Workload, *workload.Datasets, error) {
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	plans := o.Plans
	if plans == nil {
		plans = Plans()
	}
	var qs []Query
	if len(o.Queries) == 0 {
		qs = plans
	} else {
		for _, n := range o.Queries {
			i := slices.IndexFunc(plans, func(q Query) bool { return q.N == n })
			if i < 0 {
				return nil, nil, fmt.Errorf("no plan for query %d", n)
			}
			if slices.ContainsFunc(qs, func(q Query) bool { return q.N == n }) {
				return nil, nil, fmt.Errorf("query %d is selected twice", n)
			}
			qs = append(qs, plans[i])
		}
	}
	tables := map[string]int64{}
	ds := &workload.Datasets{}
	for _, t := range []string{"lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"} {
		used := false
		for _, q := range qs {
			for _, j := range q.Jobs {
				used = used || slices.ContainsFunc(j.Inputs, func(in Input) bool { return in.Table == t })
			}
		}
		if !used {
			continue
		}
		size := float64(TableBytes[t])
		if !fixedTables[t] {
			size *= o.ScaleFactor
		}
		tables[t] = o.Bytes(size)
		ds.Datasets = append(ds.Datasets, o.Dataset(DatasetName(t), tables[t]))
	}

	jobsPerRound := 0
	for _, q := range qs {
		jobsPerRound += len(q.Jobs)
	}
	// every job has a task at least; checked before the arrays are made
	if jobsPerRound > 0 && o.Rounds > workload.MaxTotalTasks/jobsPerRound {
		return nil, nil, fmt.Errorf("rounds %d of %d jobs each is above the limit of %d tasks a workload", o.Rounds, jobsPerRound, workload.MaxTotalTasks)
	}
	rng := o.RNG()
	n := len(qs) * o.Rounds
	times := o.Times(rng, n, func() []float64 {
		ts := make([]float64, 0, n)
		for r := 0; r < o.Rounds; r++ {
			for _, t := range gen.Uniform(rng, len(qs), o.Window) {
				ts = append(ts, float64(r)*o.Window+t)
			}
		}
		return ts
	})
	w := &workload.Workload{}
	for r := 0; r < o.Rounds; r++ {
		// The sorted times of a round go to its queries in a random order.
		order := rng.Perm(len(qs))
		for k, qi := range order {
			q := &qs[qi]
			id := fmt.Sprintf("tpch-q%02d", q.N)
			rec := id
			if o.Rounds > 1 {
				id = fmt.Sprintf("tpch-r%d-q%02d", r+1, q.N)
			}
			jobs, err := q.DAG(tables, o.ComputeNsPerByte).Jobs(gen.DAGOptions{ID: id, Arrival: times[r*len(qs)+k], Recurring: rec,
				ReduceBytes: o.Bytes(float64(o.ReduceBytes)), MaxReducers: o.MaxReducers, MultiStage: o.MultiStage})
			if err != nil {
				return nil, nil, fmt.Errorf("q%d: %w", q.N, err)
			}
			w.Jobs = append(w.Jobs, jobs...)
		}
		if r == 0 && o.Rounds > 1 {
			// Every round has the first one's tasks. The check above
			// counts a task a job; the tasks themselves, checked here
			// before the other rounds are made, are many more (90,000
			// rounds took some 10 GB before the workload was refused).
			v, err := w.Volume(ds)
			if err != nil {
				return nil, nil, err
			}
			if v.Tasks*float64(o.Rounds) > workload.MaxTotalTasks {
				return nil, nil, fmt.Errorf("rounds %d of %.0f tasks each is above the limit of %d tasks a workload", o.Rounds, v.Tasks, workload.MaxTotalTasks)
			}
		}
	}
	w.SortByArrival()
	if err := o.Beyond(); err != nil {
		return nil, nil, err
	}
	if err := gen.Check(w, ds); err != nil {
		return nil, nil, err
	}
	return w, ds, nil
}

func (o *Options) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	switch {
	case !(o.ScaleFactor > 0) || math.IsInf(o.ScaleFactor, 0):
		return fmt.Errorf("scale factor must be positive (got %g)", o.ScaleFactor)
	case o.Rounds < 1:
		return fmt.Errorf("rounds must be at least 1 (got %d)", o.Rounds)
	case !(o.Window > 0) || math.IsInf(o.Window, 0):
		return fmt.Errorf("window must be positive (got %g s)", o.Window)
	}
	return gen.CheckSizing(o.ReduceBytes, o.MaxReducers, o.ComputeNsPerByte)
}
