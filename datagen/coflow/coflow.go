package coflow

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/internal/units"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// MB is the trace's megabyte: 2^20 bytes, as the coflow benchmark's
// simulator and Varys read it.
const MB = 1 << 20

// Options shape the import. DefaultOptions gives the usual values.
type Options struct {
	// Scale multiplies every size; 1 keeps the trace's sizes.
	Scale float64
	// InputRatio is map input bytes per shuffle byte: the trace has only
	// shuffles, so the input is synthesised as shuffle × InputRatio.
	InputRatio float64
	// InputRatios, when set, give each coflow its input ratio by the size
	// of its shuffle (the trace's, before Scale: a scaled job is the same
	// job), in place of InputRatio.
	InputRatios *SizeRatios
	// OutputRatio is reduce output bytes per shuffle byte.
	OutputRatio float64
	// ComputeNsPerByte is the CPU cost of every stage.
	ComputeNsPerByte float64
	// Tier is where the input blocks' replicas go (the host's slowest tier
	// when it has none of this kind).
	Tier cluster.TierKind
	// MaxCoflows stops after this many coflows; 0 reads them all.
	MaxCoflows int
	// ReducerSizes says how a coflow's shuffle is split among its
	// reducers: as the trace lists it (the zero value), or evenly.
	ReducerSizes ReducerSizes
}

// ReducerSizes is how the import splits a coflow's shuffle among its
// reducers.
type ReducerSizes uint8

const (
	// TraceSizes gives each reducer the trace's size, as the reduce
	// stage's partition weights (workload.Stage.Shares).
	TraceSizes ReducerSizes = iota
	// MeanSizes gives every reducer of a coflow shuffle/R, the stage's
	// mean: the import as it was before stages had explicit shares.
	MeanSizes
)

var reducerSizesNames = [...]string{TraceSizes: "trace", MeanSizes: "mean"}

func (r ReducerSizes) String() string {
	if int(r) < len(reducerSizesNames) {
		return reducerSizesNames[r]
	}
	return fmt.Sprintf("reducer-sizes(%d)", r)
}

// ParseReducerSizes reads "trace" or "mean".
func ParseReducerSizes(s string) (ReducerSizes, error) {
	for i, n := range reducerSizesNames {
		if n == s {
			return ReducerSizes(i), nil
		}
	}
	return 0, fmt.Errorf("unknown reducer sizes %q (want trace or mean)", s)
}

// DefaultOptions are those of `datagen coflow` without flags: sizes as in
// the trace, input equal to the shuffle, no output, no compute cost, input
// on HDD.
func DefaultOptions() Options {
	return Options{Scale: 1, InputRatio: 1, Tier: cluster.HDD}
}

// Check says whether the options are usable, as Import would.
func (o Options) Check() error { return o.check() }

func (o *Options) check() error {
	for _, c := range []error{
		units.Positive("scale", o.Scale),
		units.Positive("input ratio", o.InputRatio),
		units.NonNegative("output ratio", o.OutputRatio),
		units.NonNegative("compute ns per byte", o.ComputeNsPerByte),
	} {
		if c != nil {
			return c
		}
	}
	switch {
	case int(o.Tier) >= cluster.NumTierKinds:
		return fmt.Errorf("bad tier kind %d", o.Tier)
	case int(o.ReducerSizes) >= len(reducerSizesNames):
		return fmt.Errorf("bad reducer sizes %d", o.ReducerSizes)
	case o.MaxCoflows < 0:
		return fmt.Errorf("max coflows must not be negative (got %d)", o.MaxCoflows)
	case o.InputRatio > workload.MaxSelectivity || o.OutputRatio > workload.MaxSelectivity:
		return fmt.Errorf("input and output ratios must be at most %g (got %g and %g)", float64(workload.MaxSelectivity), o.InputRatio, o.OutputRatio)
	case o.ComputeNsPerByte > workload.MaxComputeNsPerByte:
		return fmt.Errorf("compute ns per byte %g is above the limit of %g", o.ComputeNsPerByte, float64(workload.MaxComputeNsPerByte))
	}
	return nil
}

// Mapper is one rack-level mapper of a coflow: its trace port, the rack
// and host its input block is on, and that block's size.
type Mapper struct {
	Port  int
	Rack  cluster.RackID
	Host  cluster.HostID
	Bytes int64
}

// Reducer is one rack-level reducer of a coflow and the exact shuffle
// bytes it receives, from the trace (after scaling).
type Reducer struct {
	Port  int
	Rack  cluster.RackID
	Bytes int64
}

// Coflow is one imported coflow, with the exact per-reducer sizes (which
// the workload keeps as the reduce stage's shares, or averages under
// MeanSizes).
type Coflow struct {
	ID           string  // the trace's id
	Job          string  // the job's id, "coflow<id>"
	Line         int     // its line in the trace
	Arrival      float64 // seconds
	Mappers      []Mapper
	Reducers     []Reducer
	ShuffleBytes int64 // the sum of the reducers' bytes
}

// Stats describes an import, in bytes after scaling.
type Stats struct {
	Ports       int // from the trace's header
	Coflows     []Coflow
	MapTasks    int
	ReduceTasks int
	InputBytes  int64
	// ShuffleBytes is the sum of every reducer's bytes.
	ShuffleBytes int64
	OutputBytes  int64
}

// Header reads the trace's first line: the number of ports and of coflows.
func Header(r io.Reader, name string) (ports, coflows int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, 0, fmt.Errorf("%s:1: %w", name, err)
		}
		return 0, 0, fmt.Errorf("%s:1: missing header \"<ports> <coflows>\"", name)
	}
	return parseHeader(name, sc.Text())
}

const maxLine = 16 << 20

func parseHeader(name, line string) (ports, coflows int, err error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("%s:1: want a header \"<ports> <coflows>\", got %d fields", name, len(f))
	}
	p, err1 := strconv.Atoi(f[0])
	c, err2 := strconv.Atoi(f[1])
	if err1 != nil || p < 1 || p > math.MaxInt32 {
		return 0, 0, fmt.Errorf("%s:1: port count %q is not a positive whole number", name, f[0])
	}
	if err2 != nil || c < 0 {
		return 0, 0, fmt.Errorf("%s:1: coflow count %q is not a whole number", name, f[1])
	}
	return p, c, nil
}

// Import reads a coflow trace onto topology t; name is the file name for
// error messages.
func Import(r io.Reader, name string, t *cluster.Topology, opts Options) (*workload.Workload, *workload.Datasets, error) {
	w, ds, _, err := ImportStats(r, name, t, opts)
	return w, ds, err
}

// ImportStats is Import, also returning the coflows' exact sizes and
// totals.
func ImportStats(r io.Reader, name string, t *cluster.Topology, opts Options) (*workload.Workload, *workload.Datasets, Stats, error) {
	var st Stats
	if err := opts.check(); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", name, err)
	}
	if t == nil || len(t.Racks) == 0 {
		return nil, nil, st, fmt.Errorf("%s: the topology has no racks", name)
	}
	im := importer{name: name, t: t, opts: opts, next: make([]int, len(t.Racks)), seen: map[string]int{},
		w: &workload.Workload{}, ds: &workload.Datasets{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	declared := -1
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if declared < 0 {
			p, c, err := parseHeader(name, line)
			if err != nil {
				return nil, nil, st, err
			}
			st.Ports, declared = p, c
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if opts.MaxCoflows > 0 && len(st.Coflows) >= opts.MaxCoflows {
			break
		}
		if len(st.Coflows) >= declared {
			return nil, nil, st, fmt.Errorf("%s:1: the header declares %d coflows, but line %d holds one more", name, declared, lineNo)
		}
		c, err := im.coflow(lineNo, line, st.Ports)
		if err != nil {
			return nil, nil, st, err
		}
		var ok [3]bool
		st.InputBytes, ok[0] = add(st.InputBytes, im.lastInput)
		st.ShuffleBytes, ok[1] = add(st.ShuffleBytes, c.ShuffleBytes)
		st.OutputBytes, ok[2] = add(st.OutputBytes, im.lastOutput)
		if !ok[0] || !ok[1] || !ok[2] {
			return nil, nil, st, fmt.Errorf("%s:%d: the trace's total bytes exceed 2^63", name, lineNo)
		}
		st.MapTasks += len(c.Mappers)
		st.ReduceTasks += len(c.Reducers)
		st.Coflows = append(st.Coflows, c)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, st, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	if declared < 0 {
		return nil, nil, st, fmt.Errorf("%s:1: missing header \"<ports> <coflows>\"", name)
	}
	if len(st.Coflows) != declared && !(opts.MaxCoflows > 0 && len(st.Coflows) >= opts.MaxCoflows) {
		return nil, nil, st, fmt.Errorf("%s:1: the header declares %d coflows, but the file has %d", name, declared, len(st.Coflows))
	}
	if err := im.w.Validate(im.ds); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", gen.TraceLine(name, err, im.seen, "coflow"), err)
	}
	if err := im.ds.Validate(t); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", gen.TraceLine(name, err, im.seen, "coflow"), err)
	}
	return im.w, im.ds, st, nil
}

type importer struct {
	name string
	t    *cluster.Topology
	opts Options
	next []int          // per rack: the next host, round-robin
	seen map[string]int // coflow id → line
	w    *workload.Workload
	ds   *workload.Datasets

	lastInput, lastOutput int64
}

// coflow reads one coflow line and appends its job and dataset.
func (im *importer) coflow(lineNo int, line string, ports int) (Coflow, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", im.name, lineNo, fmt.Sprintf(format, args...))
	}
	f := strings.Fields(line)
	if len(f) < 3 {
		return Coflow{}, errf("want id, arrival (ms), mapper count, mapper ports, reducer count and port:MB items; got %d fields", len(f))
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return Coflow{}, errf("coflow id (field 1): %q is not a whole number", f[0])
	}
	// the number, not its text: 5, 05 and +5 are one coflow
	id := strconv.FormatInt(n, 10)
	if first, dup := im.seen[id]; dup {
		return Coflow{}, errf("coflow id %s is used twice (first on line %d)", id, first)
	}
	im.seen[id] = lineNo
	ms, err := strconv.ParseFloat(f[1], 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return Coflow{}, errf("arrival (field 2): %q is not a number of milliseconds", f[1])
	}
	if ms < 0 {
		return Coflow{}, errf("arrival (field 2): %s is negative", f[1])
	}
	if ms/1000 > workload.MaxArrivalS {
		return Coflow{}, errf("arrival (field 2): %s ms is above the limit of %g s", f[1], float64(workload.MaxArrivalS))
	}
	c := Coflow{ID: id, Job: "coflow" + id, Line: lineNo, Arrival: ms / 1000}

	count := func(i int, what string) (int, error) {
		n, err := strconv.Atoi(f[i])
		if err != nil || n < 1 {
			return 0, errf("%s count (field %d): %q is not a positive whole number", what, i+1, f[i])
		}
		return n, nil
	}
	port := func(i int, s, what string) (int, error) {
		p, err := strconv.Atoi(s)
		if err != nil {
			return 0, errf("%s port (field %d): %q is not a whole number", what, i+1, s)
		}
		if p < 0 || p >= ports {
			return 0, errf("%s port (field %d): %d is outside 0..%d (the header declares %d ports)", what, i+1, p, ports-1, ports)
		}
		return p, nil
	}

	m, err := count(2, "mapper")
	if err != nil {
		return Coflow{}, err
	}
	// The plain numbers after the mapper count are the mapper ports and
	// the reducer count; the port:MB items follow.
	listed := 0
	for 3+listed < len(f) && !strings.Contains(f[3+listed], ":") {
		listed++
	}
	if listed-1 != m {
		return Coflow{}, errf("coflow %s declares %d mappers (field 3) but lists %d", id, m, max(listed-1, 0))
	}
	for i := 0; i < m; i++ {
		p, err := port(3+i, f[3+i], "mapper")
		if err != nil {
			return Coflow{}, err
		}
		c.Mappers = append(c.Mappers, Mapper{Port: p})
	}
	ri := 3 + m
	r, err := count(ri, "reducer")
	if err != nil {
		return Coflow{}, err
	}
	items := f[ri+1:]
	pairs := 0
	for pairs < len(items) && strings.Contains(items[pairs], ":") {
		pairs++
	}
	if pairs != r {
		return Coflow{}, errf("coflow %s declares %d reducers (field %d) but lists %d", id, r, ri+1, pairs)
	}
	if pairs < len(items) {
		return Coflow{}, errf("trailing fields after the %d reducers (field %d on): %q", r, ri+2+pairs, strings.Join(items[pairs:], " "))
	}
	var weights []float64 // the trace's MB of each reducer
	for k, it := range items {
		fi := ri + 1 + k
		ps, mbs, _ := strings.Cut(it, ":")
		p, err := port(fi, ps, "reducer")
		if err != nil {
			return Coflow{}, err
		}
		mb, err := strconv.ParseFloat(mbs, 64)
		if err != nil || math.IsNaN(mb) || math.IsInf(mb, 0) || strings.Contains(mbs, ":") {
			return Coflow{}, errf("reducer (field %d): %q is not a port:MB pair", fi+1, it)
		}
		if mb < 0 {
			return Coflow{}, errf("reducer (field %d): %s MB is negative", fi+1, mbs)
		}
		b, err := bytesOf(mb*MB, im.opts.Scale)
		if err != nil {
			return Coflow{}, errf("reducer (field %d): %v", fi+1, err)
		}
		var ok bool
		if c.ShuffleBytes, ok = add(c.ShuffleBytes, b); !ok {
			return Coflow{}, errf("coflow %s: the shuffle exceeds 2^63 bytes", id)
		}
		c.Reducers = append(c.Reducers, Reducer{Port: p, Rack: im.rackOf(p), Bytes: b})
		weights = append(weights, mb)
	}
	shares, err := im.shares(weights, ri)
	if err != nil {
		return Coflow{}, errf("coflow %s: %v", id, err)
	}

	ratio := im.opts.InputRatio
	if im.opts.InputRatios != nil {
		traceMB := 0.0
		for _, mb := range weights {
			traceMB += mb
		}
		ratio = im.opts.InputRatios.Ratio(int64(min(traceMB*MB, math.MaxInt64/2)))
	}
	input, err := bytesOf(float64(c.ShuffleBytes), ratio)
	if err != nil {
		return Coflow{}, errf("coflow %s input: %v", id, err)
	}
	output, err := bytesOf(float64(c.ShuffleBytes), im.opts.OutputRatio)
	if err != nil {
		return Coflow{}, errf("coflow %s output: %v", id, err)
	}
	if ratio == 1 {
		input = c.ShuffleBytes
	}
	im.lastInput, im.lastOutput = input, output

	dname := "in-" + c.Job
	d := workload.Dataset{Name: dname, Size: input}
	base := input / int64(m)
	for i := range c.Mappers {
		mp := &c.Mappers[i]
		mp.Rack = im.rackOf(mp.Port)
		h, err := im.host(mp.Rack)
		if err != nil {
			return Coflow{}, errf("mapper port %d: %v", mp.Port, err)
		}
		mp.Host = h
		mp.Bytes = base
		if i == m-1 {
			mp.Bytes = input - base*int64(m-1)
		}
		d.Blocks = append(d.Blocks, workload.Block{Size: mp.Bytes, Replicas: []workload.Replica{{Host: h, Tier: im.tier(h)}}})
	}
	im.ds.Datasets = append(im.ds.Datasets, d)
	im.w.Jobs = append(im.w.Jobs, workload.Job{ID: c.Job, Arrival: c.Arrival, Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: dname, Selectivity: 1 / ratio, OutputBytes: c.ShuffleBytes,
			ComputeNsPerByte: im.opts.ComputeNsPerByte},
		{Name: "reduce", Kind: workload.Reduce, Tasks: r, After: []string{"map"}, OutputBytes: output,
			ComputeNsPerByte: im.opts.ComputeNsPerByte, Shares: shares},
	}})
	return c, nil
}

// shares are the reduce stage's partition weights: the trace's megabytes
// of each reducer under TraceSizes (scaling all sizes alike does not
// change them, and unlike rounded bytes a tiny Scale cannot make one
// zero); none, that is equal partitions, under MeanSizes or when the trace
// gives every reducer the same size. ri is the reducer count's field
// index, to name a reducer's field in errors.
func (im *importer) shares(mbs []float64, ri int) ([]float64, error) {
	if im.opts.ReducerSizes == MeanSizes {
		return nil, nil
	}
	equal := true
	for _, v := range mbs {
		equal = equal && v == mbs[0]
	}
	if equal {
		return nil, nil
	}
	for k, v := range mbs {
		if v <= 0 {
			return nil, fmt.Errorf("reducer (field %d) has 0 MB while others have more: with the trace's sizes every reducer needs a positive size (import with reducer sizes \"mean\" to split the shuffle evenly)", ri+2+k)
		}
		if v > workload.MaxShare {
			return nil, fmt.Errorf("reducer (field %d): %g MB is above the limit of %g", ri+2+k, v, workload.MaxShare)
		}
	}
	return append([]float64(nil), mbs...), nil
}

// rackOf maps a trace port onto the topology: port mod the rack count.
func (im *importer) rackOf(port int) cluster.RackID {
	return cluster.RackID(port % len(im.t.Racks))
}

// host picks the rack's next host, round-robin.
func (im *importer) host(r cluster.RackID) (cluster.HostID, error) {
	hosts := im.t.Racks[r].Hosts
	if len(hosts) == 0 {
		return 0, fmt.Errorf("rack %q has no hosts", im.t.Racks[r].Name)
	}
	h := hosts[im.next[r]%len(hosts)]
	im.next[r]++
	if h < 0 || int(h) >= len(im.t.Hosts) {
		return 0, fmt.Errorf("rack %q lists unknown host %d", im.t.Racks[r].Name, h)
	}
	return h, nil
}

// tier is the options' tier if the host has it, else its slowest.
func (im *importer) tier(h cluster.HostID) cluster.TierKind {
	host := &im.t.Hosts[h]
	if _, ok := host.Tier(im.opts.Tier); ok || len(host.Tiers) == 0 {
		return im.opts.Tier
	}
	slowest := host.Tiers[0].Kind
	for _, tr := range host.Tiers[1:] {
		slowest = max(slowest, tr.Kind)
	}
	return slowest
}

// bytesOf multiplies a size, rounding to a whole byte.
func bytesOf(v, s float64) (int64, error) {
	x := math.Round(v * s)
	if x >= math.MaxInt64 || math.IsNaN(x) {
		return 0, errors.New("the size is out of range")
	}
	return int64(x), nil
}

func add(a, b int64) (int64, bool) {
	s := a + b
	return s, s >= a
}
