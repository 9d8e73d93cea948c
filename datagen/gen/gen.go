package gen

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/internal/utf8text"
)

// Process is an arrival process.
type Process uint8

const (
	// Trace is the generator's own published arrival pattern.
	Trace Process = iota
	// Poisson has exponential inter-arrival times.
	Poisson
	// Once submits everything at time 0.
	Once
)

var processNames = [...]string{Trace: "trace", Poisson: "poisson", Once: "once"}

func (p Process) String() string {
	if int(p) < len(processNames) {
		return processNames[p]
	}
	return fmt.Sprintf("process(%d)", p)
}

// ParseProcess reads "trace", "poisson" or "once".
func ParseProcess(s string) (Process, error) {
	for i, n := range processNames {
		if n == s {
			return Process(i), nil
		}
	}
	return 0, fmt.Errorf("unknown arrival process %q (want trace, poisson or once)", s)
}

// Set parses a process name; with String and Type, a *Process is a flag
// value.
func (p *Process) Set(s string) error {
	v, err := ParseProcess(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Type names the flag's value type in help text.
func (p *Process) Type() string { return "trace|poisson|once" }

// Options are those every generator takes.
type Options struct {
	Seed uint64
	// Scale multiplies every byte count; see the package documentation.
	Scale float64
	// Arrivals is the arrival process, Rate its rate in submissions per
	// second when it is Poisson.
	Arrivals Process
	Rate     float64
	// BlockSize (before scaling) and Replication are those of the input
	// datasets.
	BlockSize   int64
	Replication int
	// beyond is the largest scaled size Bytes was asked for past 2^62
	// (0: none), for Beyond.
	beyond float64
}

// DefaultOptions: seed 1, no scaling, the trace's arrivals, HDFS's 128 MiB
// blocks and 3 replicas.
func DefaultOptions() Options {
	return Options{Seed: 1, Scale: 1, Arrivals: Trace, BlockSize: 128 << 20, Replication: 3}
}

// Check reports the first bad option.
func (o *Options) Check() error {
	if err := units.Positive("scale", o.Scale); err != nil {
		return err
	}
	switch {
	case int(o.Arrivals) >= len(processNames):
		return fmt.Errorf("bad arrival process %d", o.Arrivals)
	case o.Arrivals == Poisson && (!(o.Rate > 0) || math.IsInf(o.Rate, 0)):
		return fmt.Errorf("poisson arrivals need a positive rate (got %g)", o.Rate)
	case o.Arrivals != Poisson && o.Rate != 0:
		return fmt.Errorf("a rate applies to poisson arrivals only (arrivals are %s)", o.Arrivals)
	case o.BlockSize <= 0:
		return fmt.Errorf("block size must be positive (got %d)", o.BlockSize)
	case o.Replication < 1:
		return fmt.Errorf("replication must be at least 1 (got %d)", o.Replication)
	case o.Replication > workload.MaxReplicas:
		return fmt.Errorf("replication must be at most %d (got %d)", workload.MaxReplicas, o.Replication)
	case o.Arrivals == Poisson && o.Rate < 1/workload.MaxArrivalS:
		return fmt.Errorf("poisson arrivals need a rate of at least %g per second, one in the longest arrival time (got %g)", 1/workload.MaxArrivalS, o.Rate)
	}
	if o.Bytes(float64(o.BlockSize)) >= 1<<62 {
		return fmt.Errorf("block size %d × scale %g is out of range", o.BlockSize, o.Scale)
	}
	return nil
}

// Beyond reports a size Bytes capped at 2^62: the scale (or the sizes it
// multiplies) asked for more than a workload may hold. A generator calls
// it once its sizes are drawn.
func (o *Options) Beyond() error {
	if o.beyond == 0 {
		return nil
	}
	return fmt.Errorf("scale %g makes a size of %.4g bytes, above the limit of 2^62: lower the scale (or the sizes it multiplies)", o.Scale, o.beyond)
}

// RNG is the generator's random stream.
func (o *Options) RNG() *rand.Rand {
	return rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
}

// Bytes scales a byte count, rounding to a whole byte; a positive count
// stays at least 1 and the result is capped at 2^62, the cap recorded for
// Beyond: a generator must not hand out a capped size as the one asked for.
func (o *Options) Bytes(n float64) int64 {
	x := math.Round(n * o.Scale)
	switch {
	case n > 0 && x < 1:
		return 1
	case x > 1<<62 || math.IsNaN(x):
		if !(x <= o.beyond) {
			o.beyond = x
		}
		return 1 << 62
	case x == 1<<62:
		return 1 << 62
	case x <= 0:
		return 0
	}
	return int64(x)
}

// Block is the scaled block size.
func (o *Options) Block() int64 { return o.Bytes(float64(o.BlockSize)) }

// Dataset is an unplaced input dataset of size bytes (already scaled),
// with the options' scaled block size and replication.
func (o *Options) Dataset(name string, size int64) workload.Dataset {
	return workload.Dataset{Name: name, Size: size, BlockSize: o.Block(), Replication: o.Replication}
}

// Times returns n arrival times in seconds, ascending. trace gives the
// generator's own pattern (n times in any order).
func (o *Options) Times(rng *rand.Rand, n int, trace func() []float64) []float64 {
	var ts []float64
	switch o.Arrivals {
	case Poisson:
		ts = make([]float64, n)
		t := 0.0
		for i := range ts {
			t += rng.ExpFloat64() / o.Rate
			ts[i] = t
		}
	case Once:
		ts = make([]float64, n)
	default:
		ts = trace()
	}
	sort.Float64s(ts)
	return ts
}

// Uniform is n times drawn uniformly at random over [0, window) seconds
// (Corral's online scenario; Dawn's TPC-H arrivals).
func Uniform(rng *rand.Rand, n int, window float64) []float64 {
	ts := make([]float64, n)
	for i := range ts {
		ts[i] = rng.Float64() * window
	}
	return ts
}

// ReduceTasks is the reduce task count for a shuffle: one per perTask
// bytes, at least 1, at most max (0: no cap), like Hive's
// hive.exec.reducers.bytes.per.reducer and hive.exec.reducers.max.
func ReduceTasks(shuffle, perTask int64, max int) int {
	n := int64(1)
	if perTask > 0 && shuffle > 0 {
		n = (shuffle + perTask - 1) / perTask
	}
	if max > 0 && n > int64(max) {
		n = int64(max)
	}
	return int(min(n, math.MaxInt32))
}

// LogUniform draws from [lo, hi] with a uniform logarithm.
func LogUniform(rng *rand.Rand, lo, hi float64) float64 {
	return lo * math.Exp(rng.Float64()*math.Log(hi/lo))
}

// Check validates a generated workload and its datasets, as a run would.
func Check(w *workload.Workload, ds *workload.Datasets) error {
	if err := ds.Validate(nil); err != nil {
		return err
	}
	return w.Validate(ds)
}

// ScanFields reads a line-oriented text format: it cuts comments (from
// #), splits each line into fields and calls fn with every line that has
// any, and its number. An error fn returns, or a read error, comes back
// prefixed with name:line; so does a line that is not UTF-8 outside its
// comment.
func ScanFields(r io.Reader, name string, fn func(line int, f []string) error) error {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		// names become YAML strings, which must be UTF-8 (a comment
		// need not be)
		if bad := utf8text.CheckLine(text); bad != nil {
			return fmt.Errorf("%s:%d: %w", name, line, bad)
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if err := fn(line, f); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}

// CheckSizing reports the first bad sizing option shared by the
// generators: shuffle bytes per reduce task, the cap on reduce tasks
// (negative: none checked) and CPU time per byte.
func CheckSizing(reduceBytes int64, maxReducers int, computeNsPerByte float64) error {
	switch {
	case reduceBytes <= 0:
		return fmt.Errorf("reduce bytes must be positive (got %d)", reduceBytes)
	case maxReducers < 0:
		return fmt.Errorf("max reducers must not be negative (got %d)", maxReducers)
	}
	return units.NonNegative("compute ns per byte", computeNsPerByte)
}

// named is the name that a workload.Validate error gives after kind
// ("job" or "dataset"), or "".
func named(err error, kind string) string {
	msg := err.Error()
	i := strings.Index(msg, kind+` "`)
	if i < 0 {
		return ""
	}
	q, err := strconv.QuotedPrefix(msg[i+len(kind)+1:])
	if err != nil {
		return ""
	}
	id, _ := strconv.Unquote(q)
	return id
}

// TraceLine is "name:line" for a workload.Validate error about the job
// (or its input dataset, "in-<job>") that an importer made from a trace
// line, lines giving each job's line by its id less jobPrefix; or name
// when the error names no such job.
func TraceLine(name string, err error, lines map[string]int, jobPrefix string) string {
	id, ok := strings.CutPrefix(named(err, "job"), jobPrefix)
	if !ok || id == "" {
		id, _ = strings.CutPrefix(named(err, "dataset"), "in-"+jobPrefix)
	}
	if line, ok := lines[id]; ok {
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}
