package ml

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
)

// Benchmark is one of Dawn's five ML benchmarks.
type Benchmark struct {
	Name    string
	Labels  [3]string
	InputGB [3]float64 // 10^9 bytes
	Source  string
	Depth   int
	Roots   int // level-1 jobs: prep and Roots−1 side passes
	Checks  int // iterations followed by a check job
	// IterFraction is the part of prep's output an iteration's maps keep.
	IterFraction float64
}

// Benchmarks are Dawn's Table 2, with our root and check counts.
var Benchmarks = []Benchmark{
	{"kmeans", [3]string{"B1", "B2", "B3"}, [3]float64{2.5, 6.5, 10.2}, "HiBench", 11, 5, 8, 0.1},
	{"bayes", [3]string{"B4", "B5", "B6"}, [3]float64{5.8, 7.8, 11.9}, "HiBench", 8, 5, 5, 0.3},
	{"pagerank", [3]string{"B7", "B8", "B9"}, [3]float64{3.4, 6.6, 8.8}, "HiBench", 11, 5, 8, 0.5},
	{"mf", [3]string{"B10", "B11", "B12"}, [3]float64{4.5, 5.5, 7.3}, "Mahout", 21, 6, 12, 0.2},
	{"lda", [3]string{"B13", "B14", "B15"}, [3]float64{6.2, 8.4, 10.1}, "Mahout", 18, 6, 12, 0.2},
}

// Find returns the benchmark of a name ("kmeans") and the index of a label
// ("B3") in it, or -1 for a name.
func Find(s string) (*Benchmark, int, bool) {
	for i := range Benchmarks {
		b := &Benchmarks[i]
		if b.Name == s {
			return b, -1, true
		}
		if k := slices.Index(b.Labels[:], s); k >= 0 {
			return b, k, true
		}
	}
	return nil, 0, false
}

// sideShare is each side input's share of the labelled input.
const sideShare = 0.01

// Part is one input dataset of a benchmark: its name and bytes.
type Part struct {
	Name  string
	Bytes int64
}

// Parts splits input bytes into the main input (prefix+"-main") and the
// side inputs (prefix+"-side<k>").
func (b *Benchmark) Parts(prefix string, input int64) []Part {
	side := int64(math.Round(float64(input) * sideShare))
	parts := []Part{{prefix + "-main", input - int64(b.Roots-1)*side}}
	for k := 1; k < b.Roots; k++ {
		parts = append(parts, Part{fmt.Sprintf("%s-side%d", prefix, k), side})
	}
	return parts
}

// DAG is the benchmark's job DAG over its input parts, with every stage
// costing ns per byte, sized so that dependent plus intermediate bytes
// are ratio times the input.
func (b *Benchmark) DAG(parts []Part, ns, ratio float64) *gen.DAG {
	// Sizes are affine in v: solve ratio(v) = ratio from two points.
	r1, r2 := Ratio(b.dag(parts, ns, 1)), Ratio(b.dag(parts, ns, 2))
	v := 1.0
	if r2 > r1 {
		v = max(1e-3, 1+(ratio-r1)/(r2-r1))
	}
	return b.dag(parts, ns, v)
}

func (b *Benchmark) dag(parts []Part, ns, v float64) *gen.DAG {
	d := &gen.DAG{}
	add := func(n gen.Node) int {
		n.Reduce, n.ComputeNsPerByte = true, ns
		d.Nodes = append(d.Nodes, n)
		return len(d.Nodes) - 1
	}
	node := func(i int, f float64) gen.Input { return gen.Input{Node: i, Fraction: f} }
	prep := add(gen.Node{Name: "prep", Sel: 1, Inputs: []gen.Input{{Dataset: parts[0].Name, Bytes: parts[0].Bytes, Fraction: v}}})
	initIn := []gen.Input{node(prep, 0.01)}
	for k, p := range parts[1:] {
		side := add(gen.Node{Name: fmt.Sprintf("side%d", k+1), Sel: 0.1, Inputs: []gen.Input{{Dataset: p.Name, Bytes: p.Bytes, Fraction: 0.5}}})
		initIn = append(initIn, node(side, 1))
	}
	model := add(gen.Node{Name: "init", Sel: 0.1, Inputs: initIn})
	iters := b.Depth - 3
	for k := 1; k <= iters; k++ {
		model = add(gen.Node{Name: fmt.Sprintf("iter%02d", k), Sel: 0.1, Inputs: []gen.Input{node(prep, b.IterFraction), node(model, 1)}})
		// spread the checks evenly over the iterations
		if k*b.Checks/iters > (k-1)*b.Checks/iters {
			add(gen.Node{Name: fmt.Sprintf("check%02d", k), Sel: 0.01, OneReducer: true, Inputs: []gen.Input{node(model, 1)}})
		}
	}
	add(gen.Node{Name: "final", Sel: 0.1, Inputs: []gen.Input{node(prep, 1), node(model, 1)}})
	return d
}

// Ratio is a DAG's dependent plus intermediate bytes over its input
// bytes (Dawn §2.2): what its maps read from parents plus what its
// reducers fetch, over what its maps read from datasets.
func Ratio(d *gen.DAG) float64 {
	shuffle, output := d.Sizes()
	var in, dep, inter float64
	for i, n := range d.Nodes {
		for _, x := range n.Inputs {
			if x.Dataset != "" {
				in += float64(x.Bytes)
			} else {
				dep += output[x.Node]
			}
		}
		if n.Reduce {
			inter += shuffle[i]
		}
	}
	return (dep + inter) / in
}

// Options shape the workload. DefaultOptions gives the usual values.
type Options struct {
	gen.Options
	// Workloads is the number of submissions; Duration the span, in
	// seconds, of the trace arrivals.
	Workloads int
	Duration  float64
	// Labels restricts the draw to some of B1–B15; empty: all fifteen.
	Labels           []string
	ReduceBytes      int64
	MaxReducers      int
	ComputeNsPerByte float64
	// Ratio is dependent plus intermediate bytes per input byte.
	Ratio float64
}

// DefaultOptions: Dawn's physical cluster, 581 workloads over 4 hours,
// Hive's reducer defaults, 5 ns of CPU per byte, a ratio of 12.
func DefaultOptions() Options {
	return Options{Options: gen.DefaultOptions(), Workloads: 581, Duration: 4 * 3600,
		ReduceBytes: gen.HiveReduceBytes, MaxReducers: gen.HiveMaxReducers, ComputeNsPerByte: 5, Ratio: 12}
}

func (o *Options) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	switch {
	case o.Workloads < 1:
		return fmt.Errorf("workloads must be at least 1 (got %d)", o.Workloads)
	case o.Workloads > workload.MaxTotalTasks:
		return fmt.Errorf("workloads must be at most %d, the workload's limit on tasks (got %d)", workload.MaxTotalTasks, o.Workloads)
	case !(o.Duration > 0) || math.IsInf(o.Duration, 0):
		return fmt.Errorf("duration must be positive (got %g s)", o.Duration)
	case o.Arrivals == gen.Trace && o.Duration > workload.MaxArrivalS:
		// the trace pattern spreads the arrivals over the duration, in
		// one rate bin per Bin seconds: past the limit the bins alone
		// could not be allocated
		return fmt.Errorf("duration must be at most %g s, the limit of arrival times (got %g s)", float64(workload.MaxArrivalS), o.Duration)
	case !(o.Ratio >= 4 && o.Ratio <= 1000):
		return fmt.Errorf("ratio must be between 4 and 1000 (got %g): below about 4 the templates cannot shrink", o.Ratio)
	}
	return gen.CheckSizing(o.ReduceBytes, o.MaxReducers, o.ComputeNsPerByte)
}

type label struct {
	b *Benchmark
	k int
}

// Generate builds the workload and its input datasets.
func Generate(o Options) (*workload.Workload, *workload.Datasets, error) {
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	var labels []label
	if len(o.Labels) == 0 {
		for i := range Benchmarks {
			for k := range 3 {
				labels = append(labels, label{&Benchmarks[i], k})
			}
		}
	}
	for _, s := range o.Labels {
		b, k, ok := Find(s)
		if !ok || k < 0 {
			return nil, nil, fmt.Errorf("unknown benchmark label %q (want B1 … B15)", s)
		}
		if slices.Contains(labels, label{b, k}) {
			return nil, nil, fmt.Errorf("label %s is given twice", s)
		}
		labels = append(labels, label{b, k})
	}
	rng := o.RNG()
	times := o.Times(rng, o.Workloads, func() []float64 { return GoogleShaped(rng, o.Workloads, o.Duration) })
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	dags := map[label]*gen.DAG{}
	// Each submission of a label has the same tasks. Their running total
	// stops a workload past the task limit while it is made: a check of
	// the whole workload at the end came after millions of jobs had been
	// made (some 8 GB at 300,000 submissions; 10 million ran out of
	// memory).
	dagTasks := map[label]float64{}
	var tasks float64
	for i, t := range times {
		l := labels[rng.IntN(len(labels))]
		name := l.b.Labels[l.k]
		dag := dags[l]
		if dag == nil {
			parts := l.b.Parts("ml-"+name, o.Bytes(l.b.InputGB[l.k]*1e9))
			for _, p := range parts {
				ds.Datasets = append(ds.Datasets, o.Dataset(p.Name, p.Bytes))
			}
			dag = l.b.DAG(parts, o.ComputeNsPerByte, o.Ratio)
			dags[l] = dag
		}
		jobs, err := dag.Jobs(gen.DAGOptions{ID: fmt.Sprintf("ml-%04d-%s", i+1, name), Arrival: t,
			ReduceBytes: o.Bytes(float64(o.ReduceBytes)), MaxReducers: o.MaxReducers})
		if err != nil {
			return nil, nil, err
		}
		n, ok := dagTasks[l]
		if !ok {
			v, err := (&workload.Workload{Jobs: jobs}).Volume(ds)
			if err != nil {
				return nil, nil, err
			}
			n = v.Tasks
			dagTasks[l] = n
		}
		if tasks += n; tasks > workload.MaxTotalTasks {
			return nil, nil, fmt.Errorf("workloads: the first %d of %d submissions have %.0f tasks, above the limit of %d a workload",
				i+1, o.Workloads, tasks, workload.MaxTotalTasks)
		}
		w.Jobs = append(w.Jobs, jobs...)
	}
	slices.SortStableFunc(ds.Datasets, func(a, b workload.Dataset) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	if err := o.Beyond(); err != nil {
		return nil, nil, err
	}
	if err := gen.Check(w, ds); err != nil {
		return nil, nil, err
	}
	return w, ds, nil
}

// Bin is the width of the trace pattern's rate bins, in seconds.
const Bin = 300

// GoogleShaped draws n arrival times over [0, duration) from a bursty
// rate: Bin-second bins whose rates are exp(0.8·Z), Z an AR(1) series
// with lag-1 correlation 0.8.
func GoogleShaped(rng *rand.Rand, n int, duration float64) []float64 {
	bins := max(1, int(math.Ceil(duration/Bin)))
	cum := make([]float64, bins)
	z, sum := rng.NormFloat64(), 0.0
	for b := range cum {
		if b > 0 {
			z = 0.8*z + 0.6*rng.NormFloat64()
		}
		width := min(Bin, duration-float64(b)*Bin)
		sum += math.Exp(0.8*z) * width
		cum[b] = sum
	}
	ts := make([]float64, n)
	for i := range ts {
		x := rng.Float64() * sum
		b, _ := slices.BinarySearch(cum, x)
		b = min(b, bins-1)
		lo := float64(b) * Bin
		ts[i] = min(lo+rng.Float64()*min(Bin, duration-lo), math.Nextafter(duration, 0))
	}
	return ts
}
