package campaign

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/coflow"
	"github.com/racklab/racklab/datagen/fbtiers"
	"github.com/racklab/racklab/datagen/mix"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// Modes a campaign runs in.
const (
	ModeSim    = "sim"
	ModeLocal  = "local"
	ModeRemote = "remote"
)

// Campaign is a parsed campaign file. Paths in it are relative to the
// file's directory and are made absolute by Load.
type Campaign struct {
	Name string
	// Topology: a topology file, or a uniform cluster.
	TopologyFile string
	Uniform      *cluster.UniformSpec
	// Workload is the campaign's one workload (workload:); Workloads are
	// its named workloads (workloads:), in file order. A campaign has
	// one or the other.
	Workload  WorkloadSpec
	Workloads []NamedWorkload
	Seed      uint64
	// Background is the share of every rack link's capacity that
	// background traffic occupies (0: none).
	Background float64
	Limits     Limits
	SlowStart  float64
	// Queues configures the run's scheduling queues (none: every job's
	// queue gets weight 1 and an equal share).
	Queues []engine.Queue
	Runs   []RunSet
	// Sweeps are the sweeps section's figures: policies' gains over a
	// baseline against a parameter the named workloads vary (sweeps.go).
	Sweeps []report.Sweep
	// Headlines is the raw headlines section (a paper's headline table),
	// nil when absent; bench/reproduce parses it.
	Headlines *yaml.Node
	// Source is the file's text, kept for the result directory.
	Source []byte
	Path   string
}

// NamedWorkload is one workload of a campaign's workloads section; its
// name is a directory of each mode's results.
type NamedWorkload struct {
	Name string
	Spec WorkloadSpec
}

// Named says whether the campaign has named workloads (workloads:)
// rather than one (workload:).
func (c *Campaign) Named() bool { return len(c.Workloads) > 0 }

// WorkloadNames lists the named workloads in file order; nil for a
// campaign of one workload.
func (c *Campaign) WorkloadNames() []string {
	var out []string
	for _, w := range c.Workloads {
		out = append(out, w.Name)
	}
	return out
}

// spec is the workload of a name ("" for the campaign's one workload).
func (c *Campaign) spec(name string) (WorkloadSpec, bool) {
	if name == "" {
		return c.Workload, !c.Named()
	}
	for _, w := range c.Workloads {
		if w.Name == name {
			return w.Spec, true
		}
	}
	return WorkloadSpec{}, false
}

// WorkloadSpec names the workload: files, the SWIM importer, or one of
// datagen's generators.
type WorkloadSpec struct {
	File     string
	Datasets string
	// Window is the experiment's length in seconds of workload time (0:
	// none, every job runs to its end): a run stops there, and the jobs
	// not finished are recorded as unfinished (Dawn's "workloads
	// finished within the 4-hour experiment").
	Window float64
	// windowLine is where the campaign gives Window, for the errors of
	// limits that cut every run of it short (checkWindows).
	windowLine int
	// Predicted is a file of predicted sizes and arrivals (datagen
	// recurring --out-predicted) that an offline planner is told.
	Predicted string
	Swim      *SwimSpec
	Coflow    *CoflowSpec
	Generator *GeneratorSpec
}

// GeneratorSpec runs a datagen generator: tpch, ml, recurring, mix or
// fbtiers.
type GeneratorSpec struct {
	Name string
	// At is where the generator is given, "FILE:LINE", for the errors of
	// options only the generator checks (a preset, a set, a query).
	At string
	// Common: seed, byte scale, arrivals (trace, poisson, once) and their
	// rate, the input datasets' block size and replication.
	Seed        uint64
	Scale       float64
	Arrivals    string
	Rate        float64
	BlockSize   int64
	Replication int
	// tpch: Rounds submits the query set this many times, a Window (s)
	// apart, each round's arrivals spread over the Window; Queries selects
	// queries by number (empty: all).
	ScaleFactor float64
	MultiStage  bool
	Rounds      int
	Window      float64
	Queries     []int
	// ml: submissions, the span (s) of their arrivals, and the templates
	// drawn from (B1–B15; empty: all); recurring: w1, w2 or w3; mix: a
	// preset.
	Workloads int
	Duration  float64
	Labels    []string
	Set       string
	// recurring's prediction errors (spec/corral.md §5.3), nil for the
	// generator's default: SizeError, the largest relative error of the
	// actual sizes; ArrivalError, the fraction of jobs that arrive away
	// from their predicted time, by up to ArrivalShift seconds.
	SizeError    *float64
	ArrivalError *float64
	ArrivalShift *float64
	// recurring: Jobs recurring jobs (0: the set's count) arriving over
	// Window seconds (0: the generator's 60 minutes), W1's task counts ×
	// TaskScale (0: 1), and AdHoc unplanned W1 jobs beside them.
	Jobs      int
	TaskScale float64
	AdHoc     int
	// mix: Preset is the mix (default puma); ComputeScale multiplies
	// every stage's CPU cost per byte (0: 1; see datagen/mix Options);
	// OutputReplicas is every job output's replication (0: none set, one
	// replica; 3 is HDFS's dfs.replication).
	// Apps, instead of a preset, are the mix's own lines ("1 terasort
	// 120GB", datagen/mix's file format); MaxReducers caps every job's
	// reduce tasks (0: no cap).
	Preset         string
	Apps           []string
	MaxReducers    int
	ReduceBytes    int64 // shuffle bytes per reduce task (0: the generator's 1 GiB)
	ComputeScale   float64
	OutputReplicas int
	// fbtiers (Trident's Facebook-derived workload): Jobs jobs (0: 1000)
	// over Duration seconds (0: 6 h), reading TotalInput distinct bytes
	// (0: 92 GiB) with Zipf popularity (nil: exponent 1), shuffle and
	// output from the SWIM trace Trace (Load defaults it to
	// fbtiers.CampaignTrace, relative to the campaign file).
	TotalInput int64
	Zipf       *float64
	Trace      string
}

// SwimSpec imports a SWIM trace.
type SwimSpec struct {
	Trace       string
	MaxJobs     int
	Sample      int
	SampleSeed  uint64
	Replication int
	ComputeNs   float64
	Scale       float64
	BlockSize   int64
	ReduceBytes int64
	MaxReducers int
	line        int // where the campaign gives it, for the errors of its options
}

// inputPaths are the spec's fields that name files it reads.
func (w *WorkloadSpec) inputPaths() []*string {
	ps := []*string{&w.File, &w.Datasets, &w.Predicted}
	if w.Swim != nil {
		ps = append(ps, &w.Swim.Trace)
	}
	if w.Coflow != nil {
		ps = append(ps, &w.Coflow.Trace, &w.Coflow.InputFrom)
	}
	if g := w.Generator; g != nil && g.Name == "fbtiers" {
		ps = append(ps, &g.Trace)
	}
	return ps
}

// options are the importer's options for the spec.
func (s *SwimSpec) options() swim.Options {
	o := swim.DefaultOptions()
	o.Scale, o.BlockSize, o.ReduceBytes, o.MaxJobs, o.MaxReducers = s.Scale, s.BlockSize, s.ReduceBytes, s.MaxJobs, s.MaxReducers
	o.Sample, o.SampleSeed, o.Replication, o.ComputeNsPerByte = s.Sample, s.SampleSeed, s.Replication, s.ComputeNs
	return o
}

// CoflowSpec imports a coflow-benchmark trace (datagen/coflow) onto the
// run set's topology: trace ports go to racks by port mod the rack count,
// mappers are synthesised with input = shuffle × InputRatio.
type CoflowSpec struct {
	Trace      string
	MaxCoflows int
	Scale      float64
	InputRatio float64
	// InputFrom, when set, is a SWIM trace whose jobs' input/shuffle
	// ratios by shuffle size give each coflow's (coflow.SizeRatios), in
	// place of InputRatio.
	InputFrom        string
	OutputRatio      float64
	ComputeNsPerByte float64
	Tier             cluster.TierKind
	// ReducerSizes is how each coflow's shuffle is split among its
	// reducers: the trace's sizes (the default) or the mean.
	ReducerSizes coflow.ReducerSizes
	// Queue is every job's queue ("": the engine's default queue);
	// SmallQueue, when set, takes the jobs whose shuffle (the coflow's
	// size, after Scale) is below SmallBelow bytes instead (pushbox.md
	// §5.2's multi-queue setting: jobs under 100 MB in the FIFO queue).
	Queue      string
	SmallQueue string
	SmallBelow int64
}

// Limits bound each run.
type Limits struct {
	MaxRunTime time.Duration // live runs
	MaxSimTime float64       // simulated seconds
	// StallTimeout ends a live run that makes no progress for this long
	// (0: the live driver's default).
	StallTimeout time.Duration
}

// RunSet is a part of the matrix in one mode. A mode may have several
// run sets (the same policies on two networks or two clusters); all but
// one of them are named.
type RunSet struct {
	Mode string
	// Name tells run sets of one mode apart ("": the mode's unnamed one);
	// see Dir.
	Name string
	// Uniform, when set, is the run set's own uniform cluster instead of
	// the campaign's (a paper's emulated cluster is smaller than its
	// simulated one).
	Uniform *cluster.UniformSpec
	// Policies are the run set's policies, each with its args and the
	// label its results go by; no two share a label.
	Policies    []policy.Spec
	Repetitions int
	// Workloads are the named workloads the run set runs (default: all of
	// the campaign's); nil for a campaign of one workload.
	Workloads []string
	// Network is, for an emulated cluster (local), its mode: switched or
	// flat; for the simulator (sim), its rate allocation: maxmin (TCP-like
	// max-min fair sharing) or varys (coflow scheduling, bench/sim).
	Network string
	// NATS and Credentials reach a lab cluster's coordinator network
	// (remote): Credentials is the directory of secrets that
	// `coordinator credentials` writes; MemberAddr is where the
	// coordinator joins memberlist.
	// Priorities and ShapeNICs, for an emulated cluster, give every
	// shaped bottleneck one HTB leaf per priority band and shape every
	// host's NIC (bench/local Options).
	Priorities, ShapeNICs bool
	// ShareLinks, for an emulated cluster in flat mode, has the workers
	// share each rack's links by demand (bench/local
	// Options.ShareRackLinks), as a lab's workers do; false keeps the
	// static equal split of each rack's uplink among its hosts. A flat run
	// set shares unless it says share_links: false.
	ShareLinks bool
	// SleepCompute (compute: sleep), for an emulated cluster, has the
	// workers wait their attempts' compute time out rather than burn it.
	SleepCompute bool
	// Congestion (tcp_congestion), for an emulated cluster, is the TCP
	// congestion control of the workers' data plane and the background
	// flows; "" is dataplane.DefaultCongestion (cubic), whatever the
	// machine's own default.
	Congestion string
	// SlowStart, when set, is the run set's own reduce slow-start in place
	// of the campaign's (a Spark run set: Spark submits a stage only once
	// its parents have finished, slow-start 1).
	SlowStart *float64
	// FullRecompute, for the simulator, is how often (seconds) its flow
	// rates are recomputed exactly (sim.Options.FullRecompute): 0 for its
	// default, negative for exact max-min at every change.
	FullRecompute float64
	// Resolution is the simulator's time step (seconds, sim.Options
	// .Resolution) wherever the run set is simulated: its own runs in
	// mode sim; for an emulated or lab run set, its simulated twin (bench
	// reproduce all) and bench fidelity's simulations and replays. 0 is
	// the simulator's default (10 ms), which merges the ends of tasks of a
	// few milliseconds into one step.
	Resolution float64
	// Placement names the placer of the unplaced datasets (placement.New:
	// hdfs, the default, or octopus); TierMix is the hdfs placer's share
	// of replicas per tier (all zero: HDD). A policy that places its own
	// data (corral) overrides both. OutputPlacement says the placement
	// was given explicitly: then its placer also writes the job outputs
	// (engine.Config.OutputPlacer; both hdfs and octopus do), where
	// without the key they go where the engine's default puts them (the
	// writer, then hosts of its rack), so that campaigns written before
	// the key wrote outputs keep their results. A policy that places
	// outputs itself overrides it; place_outputs: false keeps the
	// engine's default for outputs under an explicit placement.
	Placement       string
	OutputPlacement bool
	TierMix         placement.TierMix
	// WriterRacks are the racks the hdfs placer writes every block's
	// first replica from (hdfs.Placer.WriterRacks); empty: any host.
	WriterRacks []cluster.RackID
	// writerRacksLine is the campaign file's line of writer_racks, for
	// the check against the run set's cluster (checkWriterRacks).
	writerRacksLine int
	// MemoryLRU turns on the engine's LRU memory tier (engine.Config):
	// each host's memory tier is held to its capacity.
	MemoryLRU bool
	// OutputPipeline writes job outputs' replicas as HDFS's pipeline
	// (engine.Config.OutputPipeline), in every mode.
	OutputPipeline bool
	NATS           string
	Credentials    string
	Listen         string
	MemberAddr     string
}

// Dir is the name of the run set's results under the result directory:
// its mode ("sim") for an unnamed run set, <mode>-<name> ("sim-varys")
// for a named one. A mode has no '-', so the two cannot collide.
func (rs RunSet) Dir() string {
	if rs.Name == "" {
		return rs.Mode
	}
	return rs.Mode + "-" + rs.Name
}

// Ref is how a headline row names the run set: "" for an unnamed one,
// "@<name>" for a named one (see bench/reproduce).
func (rs RunSet) Ref() string {
	if rs.Name == "" {
		return ""
	}
	return "@" + rs.Name
}

// Seeds are the seeds of the repetitions: Seed, Seed+1, ...
func (c *Campaign) Seeds(rs RunSet) []uint64 {
	out := make([]uint64, rs.Repetitions)
	for i := range out {
		out[i] = c.Seed + uint64(i)
	}
	return out
}

// Load reads and checks a campaign file.
func Load(path string) (*Campaign, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	c.TopologyFile = abs(c.TopologyFile)
	absWorkload := func(w *WorkloadSpec) {
		if g := w.Generator; g != nil && g.Name == "fbtiers" && g.Trace == "" {
			// the repository's FB-2010 trace, from its campaigns
			// directory
			g.Trace = fbtiers.CampaignTrace
		}
		for _, p := range w.inputPaths() {
			*p = abs(*p)
		}
	}
	absWorkload(&c.Workload)
	for i := range c.Workloads {
		absWorkload(&c.Workloads[i].Spec)
	}
	for i := range c.Runs {
		c.Runs[i].Credentials = abs(c.Runs[i].Credentials)
	}
	c.Path = path
	return c, nil
}

// Parse reads a campaign from its text; name is used in errors.
func Parse(name string, data []byte) (*Campaign, error) {
	d, top, err := yamlfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	c := &Campaign{Source: data, Seed: 1}
	m := d.Map(top, "campaign")
	m.Known("name", "topology", "cluster", "workload", "workloads", "seed", "background", "limits", "slowstart", "queues", "runs", "headlines", "sweeps")
	m.Require("name")
	if !m.Has("workloads") {
		m.Require("workload")
	}
	m.Require("runs")
	c.Name = m.Str("name")
	if c.Name != "" && !dirName(c.Name) {
		m.Fail("name", "the name %q names a directory: no slashes or blanks", c.Name)
	}
	if m.Has("seed") {
		c.Seed = uint64(m.Int("seed"))
	}
	c.Background = m.Float("background")
	if c.Background < 0 || c.Background >= 1 {
		m.Fail("background", "background is a share of link capacity, in [0, 1): got %g", c.Background)
	}
	c.SlowStart = m.Float("slowstart")
	switch {
	case m.Has("topology") && m.Has("cluster"):
		m.Fail("cluster", "give either topology (a file) or cluster (a uniform cluster), not both")
	case m.Has("topology"):
		c.TopologyFile = m.Str("topology")
	case m.Has("cluster"):
		c.Uniform = cluster.ParseUniform(d, m.Node("cluster"), "cluster")
	default:
		m.Fail("", "no topology: give topology (a file) or cluster (a uniform cluster)")
	}
	if m.Has("workload") && m.Has("workloads") {
		d.Fail(keyLine(top, "workloads", m.Line), "campaign", "give either workload (one workload) or workloads (named workloads), not both")
	}
	if n := m.Node("workload"); n != nil {
		c.Workload = parseWorkload(d, n, "workload")
	}
	if n := m.Node("workloads"); n != nil {
		c.Workloads = parseWorkloads(d, n)
	}
	if n := m.Node("limits"); n != nil {
		c.Limits = parseLimits(d, n)
	}
	queueLine := map[string]int{}
	capacity := 0.0
	for i, n := range m.Seq("queues") {
		q := parseQueue(d, n, i)
		if first, dup := queueLine[q.Name]; dup && q.Name != "" {
			d.Map(n, fmt.Sprintf("queues[%d]", i)).Fail("name", "queue %q is named twice (first at line %d)", q.Name, first)
		}
		queueLine[q.Name] = n.Line
		capacity += q.Capacity
		c.Queues = append(c.Queues, q)
	}
	if capacity > 1+1e-9 {
		m.Fail("queues", "the queues' capacities add up to %g: the shares of the cluster they are guaranteed must add up to 1 at most", capacity)
	}
	c.Headlines = m.Node("headlines")
	firstLine := map[string]int{} // a run set's Dir → the line of its first run set
	for i, n := range m.Seq("runs") {
		rs := parseRunSet(d, n, i, c.WorkloadNames())
		c.Runs = append(c.Runs, rs)
		if d.Err() != nil {
			continue
		}
		line := keyLine(n, "name", n.Line)
		first, dup := firstLine[rs.Dir()]
		switch {
		case dup && rs.Name == "":
			d.Fail(line, fmt.Sprintf("runs[%d]", i), "mode %s has a run set without a name already (line %d): list its policies once, or name this run set (name: ...) to run them again, on another network or cluster", rs.Mode, first)
		case dup:
			d.Fail(line, fmt.Sprintf("runs[%d]", i), "mode %s has a run set named %s already (line %d): give each run set of a mode its own name", rs.Mode, rs.Name, first)
		}
		firstLine[rs.Dir()] = n.Line
	}
	if d.Err() == nil && len(c.Runs) == 0 {
		m.Fail("runs", "runs lists nothing to run")
	}
	if i := slices.IndexFunc(c.Runs, func(rs RunSet) bool { return rs.Mode == ModeRemote }); i >= 0 && c.Background > 0 && d.Err() == nil {
		// the simulator takes the share off the links and the emulated
		// cluster sends it; on a lab nothing would, and its engine would
		// be told of load that is not there
		m.Fail("background", "background traffic is made in simulation and on the emulated cluster (mode local), not on a lab cluster: runs[%d] is remote", i)
	}
	if m.Has("sweeps") && d.Err() == nil {
		c.Sweeps = parseSweeps(d, m, c.WorkloadNames(), c.Runs)
	}
	if d.Err() == nil {
		checkNumbers(d, top)
	}
	if d.Err() == nil {
		checkSwimOptions(d, c)
	}
	if d.Err() == nil {
		checkWriterRacks(d, c)
	}
	if d.Err() == nil {
		checkWindows(d, c)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkWriterRacks refuses a writer rack beyond a uniform cluster's racks
// when the file is read, rather than when the first run places its data
// (after the runs before it have run). A topology file's racks are known
// only once it is loaded: Execute checks those (writerRacksBeyond).
func checkWriterRacks(d *yamlfile.Decoder, c *Campaign) {
	for i, rs := range c.Runs {
		u := rs.Uniform
		if u == nil {
			u = c.Uniform
		}
		if u == nil {
			continue
		}
		if err := rs.writerRacksBeyond(u.Racks); err != nil {
			d.Fail(rs.writerRacksLine, fmt.Sprintf("runs[%d]", i), "%v", err)
		}
	}
}

// checkWindows refuses a limit shorter than a workload's window, which
// every run of the workload would hit before its window ends it (the
// simulator's max_sim_time_s, and for the workloads of live run sets
// max_run_time): the runs check it too, but only as they start, after
// the runs before them, and without the campaign's file and line.
func checkWindows(d *yamlfile.Decoder, c *Campaign) {
	check := func(name string, w WorkloadSpec) {
		if w.Window == 0 {
			return
		}
		which, where := "the workload's", "workload"
		if name != "" {
			which, where = "workload "+name+"'s", "workloads "+name
		}
		if lim := c.Limits.MaxSimTime; lim > 0 && lim < w.Window {
			d.Fail(w.windowLine, where, "limits: max_sim_time_s %g is below %s window_s %g: every simulated run of it would fail before the window ends it", lim, which, w.Window)
			return
		}
		lim := c.Limits.MaxRunTime
		if lim <= 0 || lim >= time.Duration(w.Window*float64(time.Second)) {
			return
		}
		for _, rs := range c.Runs {
			if rs.Mode != ModeSim && (name == "" || slices.Contains(rs.Workloads, name)) {
				d.Fail(w.windowLine, where, "limits: max_run_time %v is shorter than %s window_s %g: every %s run of it would fail before the window ends it", lim, which, w.Window, rs.Mode)
				return
			}
		}
	}
	if !c.Named() {
		check("", c.Workload)
	}
	for _, nw := range c.Workloads {
		check(nw.Name, nw.Spec)
	}
}

// writerRacksBeyond says which writer rack, if any, a cluster of racks
// racks does not have.
func (rs RunSet) writerRacksBeyond(racks int) error {
	for _, r := range rs.WriterRacks {
		if int(r) >= racks {
			return fmt.Errorf("writer_racks: rack %d is not in the run set's cluster, whose racks are 0 to %d", r, racks-1)
		}
	}
	return nil
}

// dirName says whether a name can be a directory of the results: not
// empty, no slashes or blanks, not . or ...
func dirName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\ \t\n")
}

// keyLine is the line of a key of a mapping node (its own keys, not
// merged ones), or fallback.
func keyLine(n *yaml.Node, key string, fallback int) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return fallback
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return fallback
}

// parseWorkloads reads the named workloads: a mapping, in file order, of
// name to what workload takes.
func parseWorkloads(d *yamlfile.Decoder, n *yaml.Node) []NamedWorkload {
	m := d.Map(n, "workloads")
	var out []NamedWorkload
	for _, name := range m.Keys() {
		if d.Err() != nil {
			return nil
		}
		if !dirName(name) {
			d.Fail(keyLine(n, name, m.Line), "workloads", "the workload name %q names a directory: no slashes or blanks", name)
			return nil
		}
		wn := m.Node(name)
		if wn == nil {
			d.Fail(keyLine(n, name, m.Line), "workloads", "workload %s is empty: give file (and datasets), swim, coflow or generator", name)
			return nil
		}
		out = append(out, NamedWorkload{Name: name, Spec: parseWorkload(d, wn, "workloads "+name)})
	}
	if d.Err() == nil && len(out) == 0 {
		d.Fail(m.Line, "workloads", "workloads names no workload")
	}
	return out
}

func parseWorkload(d *yamlfile.Decoder, n *yaml.Node, where string) WorkloadSpec {
	m := d.Map(n, where)
	m.Known("file", "datasets", "predicted", "swim", "coflow", "generator", "window_s")
	var w WorkloadSpec
	w.Window = m.Float("window_s")
	switch {
	case w.Window < 0:
		m.Fail("window_s", "window_s is the experiment's length in seconds of workload time: got %g", w.Window)
	case w.Window > workload.MaxArrivalS:
		// a live run's window is a time.Duration, which such a value
		// overflows into a negative one
		m.Fail("window_s", "window_s must be at most %g s, the longest arrival time (got %g)", workload.MaxArrivalS, w.Window)
	}
	w.windowLine = m.LineOf("window_s")
	w.File, w.Datasets, w.Predicted = m.Str("file"), m.Str("datasets"), m.Str("predicted")
	if w.Predicted != "" && w.File == "" {
		m.Fail("predicted", "predictions go with a workload file; a recurring generator makes its own")
	}
	if m.Has("datasets") && w.File == "" && (m.Has("generator") || m.Has("swim") || m.Has("coflow")) {
		// only a workload file's jobs read a datasets file: the others
		// make their own, and the file would be silently ignored
		m.Fail("datasets", "datasets go with a workload file (file:); a generator, swim or coflow workload makes its own")
	}
	if gn := m.Node("generator"); gn != nil {
		if w.File != "" || m.Has("swim") || m.Has("coflow") {
			m.Fail("generator", "give one of file, swim, coflow and generator")
		}
		w.Generator = parseGenerator(d, gn, where+" generator")
		return w
	}
	if cn := m.Node("coflow"); cn != nil {
		if w.File != "" || m.Has("swim") {
			m.Fail("coflow", "give one of file, swim, coflow and generator")
		}
		w.Coflow = parseCoflow(d, cn, where+" coflow")
		return w
	}
	if sn := m.Node("swim"); sn != nil {
		if w.File != "" {
			m.Fail("swim", "give either file or swim, not both")
		}
		sm := d.Map(sn, where+" swim")
		sm.Known("trace", "max_jobs", "sample", "sample_seed", "replication", "compute_ns_per_byte", "scale", "block_size", "reduce_bytes", "max_reducers")
		sm.Require("trace")
		def := swim.DefaultOptions()
		s := &SwimSpec{Trace: sm.Str("trace"), MaxJobs: int(sm.Int("max_jobs")), Sample: int(sm.Int("sample")), SampleSeed: 1,
			Replication: def.Replication, ComputeNs: def.ComputeNsPerByte, Scale: 1, BlockSize: 128 << 20, ReduceBytes: 1 << 30, MaxReducers: 999}
		if sm.Has("sample_seed") {
			s.SampleSeed = uint64(sm.Int("sample_seed"))
		}
		if sm.Has("replication") {
			s.Replication = int(sm.Int("replication"))
		}
		if sm.Has("compute_ns_per_byte") {
			s.ComputeNs = sm.Float("compute_ns_per_byte")
		}
		if sm.Has("scale") {
			s.Scale = sm.Float("scale")
		}
		for _, f := range []struct {
			key string
			dst *int64
		}{{"block_size", &s.BlockSize}, {"reduce_bytes", &s.ReduceBytes}} {
			if sm.Has(f.key) {
				v, err := units.ParseBytes(sm.Str(f.key))
				if err != nil {
					sm.Fail(f.key, "%v", err)
				}
				*f.dst = v
			}
		}
		if sm.Has("max_reducers") {
			s.MaxReducers = int(sm.Int("max_reducers"))
		}
		s.line = sn.Line
		w.Swim = s
	} else if w.File == "" {
		m.Fail("", "no workload: give file (and datasets), swim, coflow or generator")
	}
	return w
}

// parseCoflow reads a coflow workload: {trace, max_coflows, scale,
// input_ratio or input_from, output_ratio, compute_ns_per_byte, tier,
// reducer_sizes, queue, small_queue, small_below}; unset fields take datagen coflow's
// defaults.
func parseCoflow(d *yamlfile.Decoder, n *yaml.Node, where string) *CoflowSpec {
	m := d.Map(n, where)
	m.Known("trace", "max_coflows", "scale", "input_ratio", "input_from", "output_ratio", "compute_ns_per_byte", "tier", "reducer_sizes", "queue", "small_queue", "small_below")
	m.Require("trace")
	o := coflow.DefaultOptions()
	s := &CoflowSpec{Trace: m.Str("trace"), MaxCoflows: int(m.Int("max_coflows")), Scale: o.Scale, InputRatio: o.InputRatio,
		OutputRatio: o.OutputRatio, ComputeNsPerByte: o.ComputeNsPerByte, Tier: o.Tier}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"scale", &s.Scale}, {"input_ratio", &s.InputRatio}, {"output_ratio", &s.OutputRatio}, {"compute_ns_per_byte", &s.ComputeNsPerByte}} {
		if m.Has(f.key) {
			*f.dst = m.Float(f.key)
		}
	}
	if m.Has("tier") {
		t, err := cluster.ParseTierKind(m.Str("tier"))
		if err != nil {
			m.Fail("tier", "%v", err)
		}
		s.Tier = t
	}
	if m.Has("reducer_sizes") {
		r, err := coflow.ParseReducerSizes(m.Str("reducer_sizes"))
		if err != nil {
			m.Fail("reducer_sizes", "reducer_sizes: %v", err)
		}
		s.ReducerSizes = r
	}
	s.InputFrom = m.Str("input_from")
	if m.Has("input_from") && m.Has("input_ratio") {
		m.Fail("input_from", "input_from and input_ratio both give the map input: take one")
	}
	s.Queue, s.SmallQueue = m.Str("queue"), m.Str("small_queue")
	switch {
	case m.Has("small_queue") != m.Has("small_below"):
		m.Fail("small_queue", "small_queue and small_below go together: the queue of the jobs whose shuffle is below small_below")
	case m.Has("small_below"):
		v, err := units.ParseBytes(m.Str("small_below"))
		if err != nil || v <= 0 {
			m.Fail("small_below", "small_below %q is not a positive size such as 100MiB", m.Str("small_below"))
		}
		s.SmallBelow = v
	}
	if err := s.options().Check(); err != nil {
		m.Fail("", "%v", err)
	}
	return s
}

// options are the import's options.
func (s *CoflowSpec) options() coflow.Options {
	return coflow.Options{Scale: s.Scale, InputRatio: s.InputRatio, OutputRatio: s.OutputRatio,
		ComputeNsPerByte: s.ComputeNsPerByte, Tier: s.Tier, MaxCoflows: s.MaxCoflows, ReducerSizes: s.ReducerSizes}
}

// parseQueue reads one queue: {name, weight, capacity, max_capacity,
// ordering}.
func parseQueue(d *yamlfile.Decoder, n *yaml.Node, i int) engine.Queue {
	where := fmt.Sprintf("queues[%d]", i)
	m := d.Map(n, where)
	m.Known("name", "weight", "capacity", "max_capacity", "ordering")
	m.Require("name")
	q := engine.Queue{Name: m.Str("name"), Weight: 1, Capacity: m.Float("capacity"), MaxCapacity: m.Float("max_capacity")}
	if m.Has("weight") {
		q.Weight = m.Float("weight")
	}
	if m.Has("ordering") {
		o, err := engine.ParseOrdering(m.Str("ordering"))
		if err != nil {
			m.Fail("ordering", "%v", err)
		}
		q.Ordering = o
	}
	if err := q.Check(); err != nil {
		m.Fail("", "%v", err)
	}
	return q
}

func parseLimits(d *yamlfile.Decoder, n *yaml.Node) Limits {
	m := d.Map(n, "limits")
	m.Known("max_run_time", "max_sim_time_s", "stall_timeout")
	var l Limits
	if m.Has("max_run_time") {
		v, err := time.ParseDuration(m.Str("max_run_time"))
		if err != nil || v <= 0 {
			m.Fail("max_run_time", "max_run_time %q is not a positive duration such as 10m", m.Str("max_run_time"))
		}
		l.MaxRunTime = v
	}
	if m.Has("stall_timeout") {
		v, err := time.ParseDuration(m.Str("stall_timeout"))
		if err != nil || v <= 0 {
			m.Fail("stall_timeout", "stall_timeout %q is not a positive duration such as 30s", m.Str("stall_timeout"))
		}
		l.StallTimeout = v
	}
	l.MaxSimTime = m.Float("max_sim_time_s")
	return l
}

// validCongestionName reports whether s can name a kernel's congestion
// control (TCP_CA_NAME_MAX is 16 with its NUL): whether the machine that
// runs the cluster has it, the workers check when they start.
func validCongestionName(s string) bool {
	if s == "" || len(s) > 15 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// parseRunSet reads one run set; workloads are the campaign's named
// workloads (nil: it has one workload).
func parseRunSet(d *yamlfile.Decoder, n *yaml.Node, i int, workloads []string) RunSet {
	where := fmt.Sprintf("runs[%d]", i)
	m := d.Map(n, where)
	m.Known("mode", "name", "policies", "repetitions", "network", "nats", "credentials", "listen", "member_addr", "workloads", "cluster",
		"priorities", "shape_nics", "share_links", "compute", "tcp_congestion", "full_recompute", "resolution", "placement", "place_outputs", "tier_mix", "writer_racks", "memory_lru", "output_pipeline", "slowstart")
	m.Require("mode", "policies")
	rs := RunSet{Mode: m.Str("mode"), Name: m.Str("name"), Repetitions: 1,
		NATS: m.Str("nats"), Credentials: m.Str("credentials"), Listen: m.Str("listen"), MemberAddr: m.Str("member_addr")}
	if m.Has("name") {
		if err := checkRunSetName(rs.Name); err != nil {
			m.Fail("name", "%v", err)
		}
	}
	if m.Has("cluster") {
		rs.Uniform = cluster.ParseUniform(d, m.Node("cluster"), where+" cluster")
	}
	if m.Has("repetitions") {
		rs.Repetitions = int(m.Int("repetitions"))
		if rs.Repetitions < 1 {
			m.Fail("repetitions", "repetitions must be at least 1")
		}
	}
	if m.Has("network") {
		rs.Network = m.Str("network")
	}
	rs.Priorities, rs.ShapeNICs = m.Bool("priorities"), m.Bool("shape_nics")
	switch c := m.Str("compute"); c {
	case "", "burn":
	case "sleep":
		rs.SleepCompute = true
	default:
		m.Fail("compute", "unknown compute %q: burn (spend the CPU, the default) or sleep (wait it out)", c)
	}
	if m.Has("tcp_congestion") {
		rs.Congestion = m.Str("tcp_congestion")
		if !validCongestionName(rs.Congestion) {
			m.Fail("tcp_congestion", "tcp_congestion %q is not the name of a TCP congestion control (cubic, the default; reno, bbr, ...)", rs.Congestion)
		}
	}
	if m.Has("full_recompute") {
		rs.FullRecompute = m.Float("full_recompute")
		if rs.Mode != ModeSim {
			m.Fail("full_recompute", "full_recompute is an option of the simulator (mode sim): how often its flow rates are recomputed exactly")
		}
		if rs.FullRecompute == 0 {
			m.Fail("full_recompute", "full_recompute 0 is the default (10 s): leave it out, give seconds, or a negative value for exact max-min at every change")
		}
	}
	if m.Has("slowstart") {
		v := m.Float("slowstart")
		if !(v > 0 && v <= 1) {
			m.Fail("slowstart", "a run set's slowstart must be above 0 and at most 1 (got %g; 0 is the engine's default: leave it out)", v)
		}
		rs.SlowStart = &v
	}
	if m.Has("resolution") {
		rs.Resolution = m.Float("resolution")
		if !(rs.Resolution >= 1e-4 && rs.Resolution <= 1) {
			m.Fail("resolution", "resolution is the simulator's time step in seconds: give one from 0.0001 to 1 (default 0.01), not %g", rs.Resolution)
		}
	}
	parseStorage(d, m, &rs, where)
	for _, k := range []string{"priorities", "shape_nics", "compute", "tcp_congestion"} {
		if m.Has(k) && rs.Mode != ModeLocal {
			m.Fail(k, "%s is an option of an emulated cluster (mode local); the simulator always serves priorities and host NICs, and its compute takes no CPU", k)
		}
	}
	// a lab cluster's keys: elsewhere they would be silently ignored
	for _, k := range []string{"nats", "credentials", "listen", "member_addr"} {
		if m.Has(k) && rs.Mode != ModeRemote && rs.Mode != "" {
			m.Fail(k, "%s is an option of a lab cluster (mode remote): how its coordinator reaches the workers", k)
		}
	}
	if m.Has("network") && rs.Mode == ModeRemote {
		m.Fail("network", "network is the simulator's rate allocation (mode sim) or the emulated cluster's shaping (mode local): a lab cluster's network is its own")
	}
	switch rs.Mode {
	case ModeSim, ModeLocal:
	case ModeRemote:
		if rs.Listen == "" && rs.NATS == "" {
			m.Fail("listen", "a remote run needs listen (the embedded NATS server's address the lab's workers reach) or nats (an external server)")
		}
	case "":
	default:
		m.Fail("mode", "unknown mode %q: sim, local or remote", rs.Mode)
	}
	switch {
	case rs.Mode == ModeSim && rs.Network == "":
		rs.Network = sim.NetworkMaxMin
	case rs.Mode == ModeSim:
		if !slices.Contains(sim.NetworkNames(), rs.Network) {
			m.Fail("network", "unknown network %q for simulated runs: %s", rs.Network, strings.Join(sim.NetworkNames(), " or "))
		}
	case rs.Network == "":
		rs.Network = "switched"
	case rs.Network != "switched" && rs.Network != "flat":
		m.Fail("network", "unknown network %q: switched or flat", rs.Network)
	}
	// flat mode shares the rack links by demand as a lab's workers do;
	// share_links: false keeps the static split, to compare with it
	rs.ShareLinks = rs.Mode == ModeLocal && rs.Network == "flat"
	if m.Has("share_links") {
		switch {
		case rs.Mode != ModeLocal:
			m.Fail("share_links", "share_links is an option of an emulated cluster (mode local) in flat mode: whether its workers share each rack's links by demand")
		case rs.Network != "flat":
			m.Fail("share_links", "share_links is an option of flat mode (network: flat), where the workers shape their own traffic; in %s mode the rack links are shaped where they are", rs.Network)
		default:
			rs.ShareLinks = m.Bool("share_links")
		}
	}
	rs.Workloads = workloads
	if wn := m.Node("workloads"); wn != nil {
		rs.Workloads = parseRunWorkloads(d, m, workloads)
	}
	rs.Policies = parsePolicies(d, m, i)
	return rs
}

// parseStorage reads a run set's storage keys: placement (hdfs or
// octopus; given, it places job outputs too unless place_outputs is
// false), tier_mix (the hdfs placer's shares, a mapping of tier to
// weight) and memory_lru.
func parseStorage(d *yamlfile.Decoder, m *yamlfile.Map, rs *RunSet, where string) {
	rs.Placement = placement.HDFS
	if m.Has("placement") {
		rs.Placement = m.Str("placement")
		rs.OutputPlacement = true
		if !slices.Contains(placement.Names(), rs.Placement) {
			m.Fail("placement", "unknown placement %q: %s", rs.Placement, strings.Join(placement.Names(), " or "))
			return
		}
	}
	if m.Has("place_outputs") {
		// a file system's own placement is what writes the outputs; an
		// experiment may still keep them off the tiers it studies
		if !m.Has("placement") {
			m.Fail("place_outputs", "place_outputs says whether the run set's placement also writes job outputs: give placement with it")
			return
		}
		rs.OutputPlacement = m.Bool("place_outputs")
	}
	if n := m.Node("tier_mix"); n != nil {
		if rs.Placement != placement.HDFS {
			m.Fail("tier_mix", "tier_mix is a setting of the hdfs placement: %s puts one replica on each tier", rs.Placement)
			return
		}
		rs.TierMix = parseTierMix(d, n, where+" tier_mix")
	}
	if m.Has("writer_racks") {
		if rs.Placement != placement.HDFS {
			m.Fail("writer_racks", "writer_racks is a setting of the hdfs placement, not of %s", rs.Placement)
			return
		}
		rs.writerRacksLine = m.LineOf("writer_racks")
		racks := m.Strs("writer_racks")
		if len(racks) == 0 && d.Err() == nil {
			m.Fail("writer_racks", "writer_racks lists the racks the datasets were written from: give at least one")
		}
		for _, s := range racks {
			r, err := yamlfile.ParseInt(s)
			if err != nil || r < 0 || r > math.MaxInt32 {
				m.Fail("writer_racks", "writer rack %q is not a rack index (an integer, 0 or more)", s)
				return
			}
			rs.WriterRacks = append(rs.WriterRacks, cluster.RackID(r))
		}
	}
	rs.MemoryLRU = m.Bool("memory_lru")
	rs.OutputPipeline = m.Bool("output_pipeline")
	if d.Err() == nil {
		// the checks placement.New makes when the runs start, made now
		if _, err := placement.New(rs.Placement, rs.TierMix); err != nil {
			m.Fail("placement", "%v", err)
		}
	}
}

// parseTierMix reads a tier mix: a mapping of tier (memory or mem, ssd,
// hdd) to its share of the replicas, a weight of 0 or more.
func parseTierMix(d *yamlfile.Decoder, n *yaml.Node, where string) placement.TierMix {
	var mix placement.TierMix
	m := d.Map(n, where)
	seen := map[cluster.TierKind]string{}
	for _, key := range m.Keys() {
		tier, err := placement.ParseTier(key)
		if err != nil {
			m.Fail(key, "%v", err)
			return mix
		}
		if other, dup := seen[tier]; dup {
			m.Fail(key, "%s and %s are one tier: give its share once", other, key)
			return mix
		}
		seen[tier] = key
		v := m.Float(key)
		if d.Err() != nil {
			return mix
		}
		if !(v >= 0) {
			m.Fail(key, "the share of %s is a weight, 0 or more: got %g", key, v)
			return mix
		}
		mix[tier] = v
	}
	if mix == (placement.TierMix{}) {
		m.Fail("", "the shares add up to 0: give a positive share to at least one tier, or leave tier_mix out for all HDD")
	}
	return mix
}

// checkRunSetName checks a run set's name: it is part of a directory
// name and of a headline row's policy@name, so letters, digits, '.', '_'
// and '-', not starting with '.'.
func checkRunSetName(name string) error {
	if name == "" {
		return fmt.Errorf("empty name: leave name out for the mode's unnamed run set")
	}
	if name[0] == '.' {
		return fmt.Errorf("the run set name %q starts with '.'", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return fmt.Errorf("the run set name %q has %q: use letters, digits, '.', '_' and '-'", name, r)
		}
	}
	return nil
}

// parseRunWorkloads reads a run set's list of workloads, each a name of
// the campaign's workloads section.
func parseRunWorkloads(d *yamlfile.Decoder, m *yamlfile.Map, known []string) []string {
	if len(known) == 0 {
		m.Fail("workloads", "the campaign has one workload (workload:): a run set lists workloads only when the campaign names them (workloads:)")
		return nil
	}
	names := m.Strs("workloads")
	if d.Err() != nil {
		return nil
	}
	if len(names) == 0 {
		m.Fail("workloads", "workloads lists no workload (leave it out to run all of them)")
		return nil
	}
	seen := map[string]bool{}
	for _, name := range names {
		switch {
		case !slices.Contains(known, name):
			m.Fail("workloads", "unknown workload %q: the campaign's workloads are %s", name, strings.Join(known, ", "))
			return nil
		case seen[name]:
			m.Fail("workloads", "workload %s is listed twice", name)
			return nil
		}
		seen[name] = true
	}
	return names
}

func parseGenerator(d *yamlfile.Decoder, n *yaml.Node, where string) *GeneratorSpec {
	m := d.Map(n, where)
	m.Known("name", "seed", "scale", "arrivals", "rate", "block_size", "replication",
		"scale_factor", "multistage", "workloads", "set", "size_error", "arrival_error", "arrival_shift", "preset",
		"duration", "labels", "rounds", "window", "queries", "jobs", "task_scale", "adhoc", "compute_scale",
		"output_replicas", "total_input", "zipf", "trace", "apps", "max_reducers", "reduce_bytes")
	m.Require("name")
	g := &GeneratorSpec{Name: m.Str("name"), At: fmt.Sprintf("%s:%d", d.File, n.Line), Seed: 1, Scale: 1, Arrivals: "trace", BlockSize: 128 << 20, Replication: 3,
		ScaleFactor: m.Float("scale_factor"), MultiStage: m.Bool("multistage"), Workloads: int(m.Int("workloads")),
		Set: m.Str("set"), Preset: m.Str("preset"), Rate: m.Float("rate"),
		Duration: m.Float("duration"), Window: m.Float("window"), Rounds: int(m.Int("rounds")), Labels: m.Strs("labels"),
		Jobs: int(m.Int("jobs")), TaskScale: m.Float("task_scale"), AdHoc: int(m.Int("adhoc")), ComputeScale: m.Float("compute_scale"),
		OutputReplicas: int(m.Int("output_replicas")), Trace: m.Str("trace"), Apps: m.Strs("apps"), MaxReducers: int(m.Int("max_reducers"))}
	if m.Has("seed") {
		g.Seed = uint64(m.Int("seed"))
	}
	if m.Has("scale") {
		g.Scale = m.Float("scale")
	}
	if m.Has("arrivals") {
		g.Arrivals = m.Str("arrivals")
	}
	if m.Has("replication") {
		g.Replication = int(m.Int("replication"))
	}
	if m.Has("reduce_bytes") {
		v, err := units.ParseBytes(m.Str("reduce_bytes"))
		if err == nil && v <= 0 {
			err = fmt.Errorf("reduce_bytes is the shuffle of one reduce task and must be positive (got %s)", m.Str("reduce_bytes"))
		}
		if err != nil {
			m.Fail("reduce_bytes", "%v", err)
		}
		g.ReduceBytes = v
	}
	if m.Has("block_size") {
		v, err := units.ParseBytes(m.Str("block_size"))
		if err != nil {
			m.Fail("block_size", "%v", err)
		}
		g.BlockSize = v
	} else if bs, ok := mix.PresetBlockSize[g.Preset]; ok && g.Name == "mix" {
		// a preset's source's block size, as `datagen mix` takes it
		g.BlockSize = bs
	}
	switch g.Name {
	case "tpch", "ml", "recurring", "mix", "fbtiers":
	default:
		m.Fail("name", "unknown generator %q: tpch, ml, recurring, mix or fbtiers", g.Name)
	}
	// options of one generator only: given to another, they would be
	// silently ignored
	for _, f := range []struct{ key, gen string }{
		{"scale_factor", "tpch"}, {"multistage", "tpch"}, {"rounds", "tpch"}, {"window", "tpch recurring"}, {"queries", "tpch"},
		{"workloads", "ml"}, {"duration", "ml fbtiers"}, {"labels", "ml"},
		{"size_error", "recurring"}, {"arrival_error", "recurring"}, {"arrival_shift", "recurring"}, {"set", "recurring"}, {"preset", "mix"},
		{"jobs", "recurring fbtiers"}, {"task_scale", "recurring"}, {"adhoc", "recurring"}, {"compute_scale", "mix"}, {"output_replicas", "mix recurring"},
		{"apps", "mix"}, {"max_reducers", "mix"}, {"reduce_bytes", "mix"},
		{"total_input", "fbtiers"}, {"zipf", "fbtiers"}, {"trace", "fbtiers"},
	} {
		if m.Has(f.key) && !slices.Contains(strings.Fields(f.gen), g.Name) && g.Name != "" {
			m.Fail(f.key, "%s is an option of the %s generator, not of %s", f.key, strings.ReplaceAll(f.gen, " ", " and "), g.Name)
			return g
		}
	}
	switch {
	case m.Has("scale_factor") && !(g.ScaleFactor > 0):
		m.Fail("scale_factor", "scale_factor is TPC-H's SF and must be positive (got %g)", g.ScaleFactor)
	case m.Has("jobs") && g.Jobs < 1:
		m.Fail("jobs", "jobs must be at least 1 (got %d)", g.Jobs)
	case m.Has("task_scale") && !(g.TaskScale > 0 && g.TaskScale <= 1e6):
		m.Fail("task_scale", "task_scale multiplies W1's task counts and must be positive (got %g)", g.TaskScale)
	case m.Has("adhoc") && g.AdHoc < 0:
		m.Fail("adhoc", "adhoc is a number of jobs and must be at least 0 (got %d)", g.AdHoc)
	case m.Has("apps") && m.Has("preset"):
		m.Fail("apps", "give either a preset or apps, not both")
	case m.Has("max_reducers") && g.MaxReducers < 1:
		m.Fail("max_reducers", "max_reducers caps a job's reduce tasks and must be at least 1 (got %d)", g.MaxReducers)
	case m.Has("output_replicas") && (g.OutputReplicas < 1 || g.OutputReplicas > workload.MaxReplicas):
		m.Fail("output_replicas", "output_replicas is a job output's replication and must be between 1 and %d (got %d)", workload.MaxReplicas, g.OutputReplicas)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"duration", g.Duration}, {"window", g.Window}} {
		if m.Has(f.key) && !(f.v > 0) {
			m.Fail(f.key, "%s is a span in seconds and must be positive (got %g)", f.key, f.v)
		}
	}
	g.SizeError, g.ArrivalError, g.ArrivalShift = predictionErrors(m)
	if m.Has("total_input") {
		v, err := units.ParseBytes(m.Str("total_input"))
		switch {
		case err != nil:
			m.Fail("total_input", "%v", err)
		case v <= 0:
			m.Fail("total_input", "total_input is the distinct input's size and must be positive (got %s)", m.Str("total_input"))
		}
		g.TotalInput = v
	}
	if m.Has("zipf") {
		v := m.Float("zipf")
		if !(v >= 0) || math.IsInf(v, 0) {
			m.Fail("zipf", "zipf is the exponent of the input files' popularity and must be 0 or more (got %g)", v)
		}
		g.Zipf = &v
	}
	if m.Has("trace") && g.Trace == "" {
		m.Fail("trace", "trace is empty: give a SWIM trace, or leave trace out for the FB-2010 trace")
	}
	if m.Has("rounds") && g.Rounds < 1 {
		m.Fail("rounds", "rounds must be at least 1 (got %d)", g.Rounds)
	}
	for _, q := range m.Strs("queries") {
		v, err := yamlfile.ParseInt(q)
		if err != nil || v < 1 {
			m.Fail("queries", "queries lists TPC-H query numbers: %q is not one", q)
			break
		}
		g.Queries = append(g.Queries, int(v))
	}
	return g
}

// predictionErrors reads the recurring generator's error options, each
// nil when not given (0 is an error level of its own: exact predictions).
func predictionErrors(m *yamlfile.Map) (size, arrival, shift *float64) {
	read := func(key string, ok func(float64) bool, format string) *float64 {
		if !m.Has(key) {
			return nil
		}
		v := m.Float(key)
		if !ok(v) {
			m.Fail(key, format, v)
		}
		return &v
	}
	size = read("size_error", func(v float64) bool { return v >= 0 && v < 1 },
		"size_error is the largest relative error of the actual sizes (0.5: up to ±50%%), in [0, 1): got %g")
	arrival = read("arrival_error", func(v float64) bool { return v >= 0 && v <= 1 },
		"arrival_error is the fraction of the jobs that arrive away from their predicted time, in [0, 1]: got %g")
	shift = read("arrival_shift", func(v float64) bool { return v >= 0 && v <= workload.MaxArrivalS },
		fmt.Sprintf("arrival_shift is the largest shift of an arrival, in seconds, in [0, %g]: got %%g", workload.MaxArrivalS))
	return size, arrival, shift
}

// SlowStartOf is the reduce slow-start a run set's runs ask the engine
// for: the run set's own, else the campaign's (0: each policy's default,
// else the engine's).
func (c *Campaign) SlowStartOf(rs RunSet) float64 {
	if rs.SlowStart != nil {
		return *rs.SlowStart
	}
	return c.SlowStart
}
