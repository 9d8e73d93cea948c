package describe

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/units"
)

// Dist is a distribution of per-job sizes in bytes. Percentiles are
// nearest-rank: Pq is the smallest size with at least q % of the jobs at
// or below it.
type Dist struct {
	Min, P50, P90, P99, Max int64
}

// Bin counts the jobs of one size class, and the sum of the size that
// classes them.
type Bin struct {
	Name  string
	Jobs  int
	Bytes int64
}

// Summary describes a workload; see the package documentation for how the
// sizes are estimated.
type Summary struct {
	Jobs   int
	Stages int
	Tasks  int // map tasks from the blocks or parents' outputs (at least 1), plus the others' task counts

	// JobInput is the bytes each job's map stages read (datasets and
	// parents' outputs); JobShuffle what its reduce and generic stages
	// fetch.
	JobInput, JobShuffle Dist

	// Trident bins jobs by input, PushBox by shuffle (coflow) size; see
	// TridentBins and PushBoxBins.
	Trident, PushBox []Bin

	// JobDAGDepth is the longest chain of jobs linked by parents (1 when
	// no job has parents); JobDAGWidth the most jobs at one depth, a job's
	// depth being one more than its deepest parent's.
	JobDAGDepth, JobDAGWidth int
	JobsWithParents          int
	// StageDepth is the longest chain of stages in a job, StageWidth the
	// most stages of one job at one depth; JobsByStageDepth counts the
	// jobs by their stage-DAG depth.
	StageDepth, StageWidth int
	JobsByStageDepth       map[int]int

	// DAGs is the number of job DAGs (jobs linked by parents, directly or
	// not: a TPC-H query, an ML workload), DAGDepthMean their mean depth.
	DAGs         int
	DAGDepthMean float64
	// FirstArrival and LastArrival bound the jobs' arrival times (s).
	FirstArrival, LastArrival float64
	// RecurringJobs have a recurring set, of RecurringSets distinct ones;
	// Queues counts the jobs of each named queue (nil when none is named).
	RecurringJobs, RecurringSets int
	Queues                       map[string]int

	InputBytes, ShuffleBytes, DependentBytes, OutputBytes int64

	// InputDatasets counts the distinct datasets that map stages read (by
	// name, missing ones too), InputJobs the jobs that read at least one.
	// SharedInputJobs counts the jobs that read a dataset which another
	// job also reads: the data reuse that caching and placement policies
	// (Corral, Trident) exploit. MostReadInput is the dataset read by the
	// most jobs, MostReadJobs of them (the first by name on a tie).
	InputDatasets, InputJobs, SharedInputJobs int
	MostReadInput                             string
	MostReadJobs                              int

	MissingDatasets []string
}

// Size classes. The section numbers below are those of the project's
// specifications spec/trident.md and spec/pushbox.md, kept in the shared
// data beside the repository.
const (
	mib = 1 << 20
	gib = 1 << 30
	// tridentBlock is the block size at which Trident's Table 2 counts map
	// tasks (trident.md §5.1: 128 MB blocks).
	tridentBlock = 128 * mib
	// pushBoxMB is the coflow trace's megabyte (see datagen/coflow).
	pushBoxMB = mib
)

// TridentBins are the Facebook-workload bins of trident.md §5.2 (the
// paper's Table 2, §6.1), by job input: A 0–128 MB, B 128–512 MB,
// C 0.5–1 GB, D 1–2 GB, E 2–5 GB, F 5–10 GB. The table's map-task column
// (1, 2–4, 5–8, 9–16, 17–40, 41–80 tasks at 128 MB blocks) fixes the edges:
// a job is in the first bin whose task bound ⌈input / 128 MiB⌉ meets, so
// the upper edges (128 MiB, 512 MiB, 1, 2, 5 and 10 GiB) are inclusive.
// The table ends at 10 GB; larger jobs fall into ">F". The names give
// the edges in the binary units they are (a 134 MB job is one of 128 MiB).
var TridentBins = []struct {
	Name     string
	MaxTasks int64 // 0: no bound
}{
	{"A 0-128MiB (1 map)", 1},
	{"B 128-512MiB (2-4 maps)", 4},
	{"C 0.5-1GiB (5-8 maps)", 8},
	{"D 1-2GiB (9-16 maps)", 16},
	{"E 2-5GiB (17-40 maps)", 40},
	{"F 5-10GiB (41-80 maps)", 80},
	{">F over 10GiB", 0},
}

// PushBoxBins are the 7 job-size bins of pushbox.md §5.2 (paper §7.1,
// Figs. 8b–c) by coflow size. The paper does not give their edges; the
// spec's interpretation in §4.6 (GP ablation) is exponential bins of
// 10 MB × 10^k, at most 7 classes, which also puts the §5.2 multi-queue
// threshold (jobs < 100 MB go to the FIFO queue) on a bin edge. A job's
// coflow size is its total shuffle (§9 item 9: total, not remaining,
// bytes), with the trace's MB of 2^20 bytes; lower edges are inclusive.
var PushBoxBins = []struct {
	Name  string
	Below int64 // 0: no bound
}{
	{"<10MB", 10 * pushBoxMB},
	{"10-100MB", 100 * pushBoxMB},
	{"100MB-1GB", 1e3 * pushBoxMB},
	{"1-10GB", 1e4 * pushBoxMB},
	{"10-100GB", 1e5 * pushBoxMB},
	{"100GB-1TB", 1e6 * pushBoxMB},
	{">=1TB", 0},
}

func tridentBin(input int64) int {
	tasks := (input + tridentBlock - 1) / tridentBlock
	for i, b := range TridentBins {
		if b.MaxTasks == 0 || tasks <= b.MaxTasks {
			return i
		}
	}
	return len(TridentBins) - 1
}

func pushBoxBin(shuffle int64) int {
	for i, b := range PushBoxBins {
		if b.Below == 0 || shuffle < b.Below {
			return i
		}
	}
	return len(PushBoxBins) - 1
}

type jobSizes struct {
	input, dependent, shuffle, output int64
	// blocks is the tasks of its final stages: a child's map stage
	// reading its output gets one task per block, as the engine makes
	// them (workload.Volume)
	blocks       int
	done, active bool
}

type describer struct {
	w        *workload.Workload
	datasets map[string]*workload.Dataset
	ids      map[string]int
	jobs     []jobSizes
	missing  map[string]bool
	s        *Summary
	// order is the jobs' indexes, parents before children
	order []int
}

// Describe summarises w, whose map stages read the datasets of ds (which
// may be nil).
func Describe(w *workload.Workload, ds *workload.Datasets) Summary {
	s := Summary{Jobs: len(w.Jobs), JobsByStageDepth: map[int]int{}}
	d := describer{w: w, datasets: map[string]*workload.Dataset{}, ids: map[string]int{},
		jobs: make([]jobSizes, len(w.Jobs)), missing: map[string]bool{}, s: &s}
	if ds != nil {
		for i := range ds.Datasets {
			d.datasets[ds.Datasets[i].Name] = &ds.Datasets[i]
		}
	}
	for i := range w.Jobs {
		d.ids[w.Jobs[i].ID] = i
	}
	// parents before children, so that size, and jobDAG's walk, never
	// recurse more than one level: a chain of a million jobs overflowed
	// their stack (a cycle leaves file order, and its jobs empty)
	d.order, _ = w.ParentsFirst()
	if d.order == nil {
		d.order = make([]int, len(w.Jobs))
		for i := range d.order {
			d.order[i] = i
		}
	}
	for _, i := range d.order {
		d.size(i)
	}

	inputs := make([]int64, len(w.Jobs))
	shuffles := make([]int64, len(w.Jobs))
	s.Trident = make([]Bin, len(TridentBins))
	for i, b := range TridentBins {
		s.Trident[i].Name = b.Name
	}
	s.PushBox = make([]Bin, len(PushBoxBins))
	for i, b := range PushBoxBins {
		s.PushBox[i].Name = b.Name
	}
	for i, js := range d.jobs {
		inputs[i] = js.input + js.dependent
		shuffles[i] = js.shuffle
		s.InputBytes += js.input
		s.DependentBytes += js.dependent
		s.ShuffleBytes += js.shuffle
		s.OutputBytes += js.output
		tb := &s.Trident[tridentBin(inputs[i])]
		tb.Jobs++
		tb.Bytes += inputs[i]
		pb := &s.PushBox[pushBoxBin(js.shuffle)]
		pb.Jobs++
		pb.Bytes += js.shuffle
	}
	s.JobInput, s.JobShuffle = dist(inputs), dist(shuffles)
	d.inputSharing()
	d.jobDAG()
	for name := range d.missing {
		s.MissingDatasets = append(s.MissingDatasets, name)
	}
	sort.Strings(s.MissingDatasets)
	return s
}

// size estimates job i's bytes, after its parents' (whose outputs it may
// read). A cycle, which a validated workload does not have, counts as
// empty.
func (d *describer) size(i int) *jobSizes {
	js := &d.jobs[i]
	if js.done || js.active {
		return js
	}
	js.active = true
	j := &d.w.Jobs[i]
	out := make(map[string]int64, len(j.Stages))
	final := make(map[string]bool, len(j.Stages))
	level := make(map[string]int, len(j.Stages))
	width := map[int]int{}
	tasks := make(map[string]int, len(j.Stages))
	depth := 0
	for k := range j.Stages {
		st := &j.Stages[k]
		d.s.Stages++
		final[st.Name] = true
		var in, o int64
		n := 0 // the stage's tasks
		lv := 1
		switch {
		case st.Kind == workload.Map && strings.HasPrefix(st.Input, workload.ParentOutputPrefix) && len(st.Input) > 1:
			if p, ok := d.ids[st.Input[1:]]; ok {
				ps := d.size(p)
				in, n = ps.output, ps.blocks
			}
			js.dependent += in
			o = stageOutput(st, in)
			if n == 0 {
				n = max(st.Tasks, 1)
			}
		case st.Kind == workload.Map:
			ds := d.datasets[st.Input]
			var blocks []int64
			if ds == nil {
				d.missing[st.Input] = true
			} else {
				in = ds.TotalBytes()
				blocks = ds.BlockSizes()
			}
			js.input += in
			if st.OutputBytes > 0 {
				o = st.OutputBytes
			} else {
				for _, b := range blocks {
					o += int64(math.Round(float64(b) * st.Selectivity))
				}
			}
			if len(blocks) > 0 {
				n = len(blocks)
			} else {
				n = max(st.Tasks, 1)
			}
		default:
			for _, a := range st.After {
				in += out[a]
				delete(final, a)
				lv = max(lv, level[a]+1)
			}
			js.shuffle += in
			o = stageOutput(st, in)
			n = st.Tasks
		}
		d.s.Tasks += n
		tasks[st.Name] = n
		out[st.Name] = o
		level[st.Name] = lv
		width[lv]++
		depth = max(depth, lv)
	}
	for name := range final {
		js.output += out[name]
		js.blocks += tasks[name]
	}
	d.s.JobsByStageDepth[depth]++
	d.s.StageDepth = max(d.s.StageDepth, depth)
	for _, n := range width {
		d.s.StageWidth = max(d.s.StageWidth, n)
	}
	js.active, js.done = false, true
	return js
}

func stageOutput(st *workload.Stage, in int64) int64 {
	if st.OutputBytes > 0 {
		return st.OutputBytes
	}
	return int64(math.Round(float64(in) * st.Selectivity))
}

// inputSharing counts the jobs that read each dataset.
func (d *describer) inputSharing() {
	readers := map[string]int{}
	reads := make([][]string, len(d.w.Jobs)) // per job, the datasets it reads, each once
	for i := range d.w.Jobs {
		for _, st := range d.w.Jobs[i].Stages {
			if st.Kind != workload.Map || st.Input == "" || strings.HasPrefix(st.Input, workload.ParentOutputPrefix) {
				continue
			}
			if !slices.Contains(reads[i], st.Input) {
				reads[i] = append(reads[i], st.Input)
				readers[st.Input]++
			}
		}
	}
	s := d.s
	s.InputDatasets = len(readers)
	for _, r := range reads {
		if len(r) == 0 {
			continue
		}
		s.InputJobs++
		for _, name := range r {
			if readers[name] > 1 {
				s.SharedInputJobs++
				break
			}
		}
	}
	for name, n := range readers {
		if n > s.MostReadJobs || (n == s.MostReadJobs && name < s.MostReadInput) {
			s.MostReadInput, s.MostReadJobs = name, n
		}
	}
}

// jobDAG fills the job DAG's depth and width.
func (d *describer) jobDAG() {
	level := make([]int, len(d.w.Jobs)) // 0: not yet known, -1: on the stack
	var visit func(i int) int
	visit = func(i int) int {
		switch level[i] {
		case -1:
			return 0 // a cycle
		case 0:
		default:
			return level[i]
		}
		level[i] = -1
		lv := 1
		for _, p := range d.w.Jobs[i].Parents {
			if pi, ok := d.ids[p]; ok {
				lv = max(lv, visit(pi)+1)
			}
		}
		level[i] = lv
		return lv
	}
	// union-find over parent links, for the DAGs
	root := make([]int, len(d.w.Jobs))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	width := map[int]int{}
	sets := map[string]bool{}
	for _, i := range d.order {
		visit(i) // parents first: every job's level is known below
	}
	for i := range d.w.Jobs {
		j := &d.w.Jobs[i]
		lv := visit(i)
		width[lv]++
		d.s.JobDAGDepth = max(d.s.JobDAGDepth, lv)
		if len(j.Parents) > 0 {
			d.s.JobsWithParents++
		}
		for _, p := range j.Parents {
			if pi, ok := d.ids[p]; ok {
				root[find(pi)] = find(i)
			}
		}
		if i == 0 || j.Arrival < d.s.FirstArrival {
			d.s.FirstArrival = j.Arrival
		}
		d.s.LastArrival = max(d.s.LastArrival, j.Arrival)
		if j.Recurring != "" {
			d.s.RecurringJobs++
			sets[j.Recurring] = true
		}
		if j.Queue != "" {
			if d.s.Queues == nil {
				d.s.Queues = map[string]int{}
			}
			d.s.Queues[j.Queue]++
		}
	}
	d.s.RecurringSets = len(sets)
	for _, n := range width {
		d.s.JobDAGWidth = max(d.s.JobDAGWidth, n)
	}
	depth := map[int]int{} // DAG root → its depth
	for i := range d.w.Jobs {
		r := find(i)
		depth[r] = max(depth[r], level[i])
	}
	d.s.DAGs = len(depth)
	sum := 0
	for _, lv := range depth {
		sum += lv
	}
	if sum > 0 {
		d.s.DAGDepthMean = float64(sum) / float64(len(depth))
	}
}

func dist(v []int64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	rank := func(q int) int64 { return s[(q*len(s)+99)/100-1] }
	return Dist{Min: s[0], P50: rank(50), P90: rank(90), P99: rank(99), Max: s[len(s)-1]}
}

// Format writes a summary as text, one fact a line.
func Format(s Summary) string {
	var b strings.Builder
	h := func(n int64) string { return fmt.Sprintf("%d B (%s)", n, units.Human(float64(n))) }
	d := func(x Dist) string {
		return fmt.Sprintf("min %s, p50 %s, p90 %s, p99 %s, max %s", units.Human(float64(x.Min)), units.Human(float64(x.P50)),
			units.Human(float64(x.P90)), units.Human(float64(x.P99)), units.Human(float64(x.Max)))
	}
	fmt.Fprintf(&b, "jobs: %d (%d stages, %d tasks)\n", s.Jobs, s.Stages, s.Tasks)
	fmt.Fprintf(&b, "job input: %s\n", d(s.JobInput))
	fmt.Fprintf(&b, "job shuffle: %s\n", d(s.JobShuffle))
	bins := func(title string, bs []Bin) {
		fmt.Fprintf(&b, "%s:\n", title)
		for _, x := range bs {
			pct := 0.0
			if s.Jobs > 0 {
				pct = 100 * float64(x.Jobs) / float64(s.Jobs)
			}
			fmt.Fprintf(&b, "  %-24s %7d jobs %5.1f%%  %s\n", x.Name, x.Jobs, pct, units.Human(float64(x.Bytes)))
		}
	}
	bins("Trident bins by input (trident.md §5.2)", s.Trident)
	bins("PushBox bins by shuffle (pushbox.md §5.2, §4.6)", s.PushBox)
	fmt.Fprintf(&b, "job DAG: depth %d, width %d, %d jobs with parents\n", s.JobDAGDepth, s.JobDAGWidth, s.JobsWithParents)
	fmt.Fprintf(&b, "job DAGs (workloads): %d, mean depth %.2f; arrivals %s s to %s s\n", s.DAGs, s.DAGDepthMean,
		strconv.FormatFloat(s.FirstArrival, 'f', -1, 64), strconv.FormatFloat(s.LastArrival, 'f', -1, 64))
	if s.RecurringJobs > 0 || len(s.Queues) > 0 {
		queues := make([]string, 0, len(s.Queues))
		for q, n := range s.Queues {
			queues = append(queues, fmt.Sprintf("%s %d", q, n))
		}
		sort.Strings(queues)
		if len(queues) == 0 {
			queues = []string{"none named"}
		}
		fmt.Fprintf(&b, "recurring: %d jobs in %d sets; queues: %s\n", s.RecurringJobs, s.RecurringSets, strings.Join(queues, ", "))
	}
	depths := make([]int, 0, len(s.JobsByStageDepth))
	for k := range s.JobsByStageDepth {
		depths = append(depths, k)
	}
	sort.Ints(depths)
	var parts []string
	for _, k := range depths {
		parts = append(parts, fmt.Sprintf("%d: %d jobs", k, s.JobsByStageDepth[k]))
	}
	fmt.Fprintf(&b, "stage DAG: depth %d, width %d; by depth %s\n", s.StageDepth, s.StageWidth, strings.Join(parts, ", "))
	if s.InputDatasets > 0 {
		fmt.Fprintf(&b, "inputs: %d distinct datasets read by %d jobs; ", s.InputDatasets, s.InputJobs)
		if s.SharedInputJobs == 0 {
			fmt.Fprintf(&b, "no two jobs read the same input\n")
		} else {
			fmt.Fprintf(&b, "%d jobs read an input that another job also reads; the most-read input, %s, is read by %d jobs\n",
				s.SharedInputJobs, s.MostReadInput, s.MostReadJobs)
		}
	}
	fmt.Fprintf(&b, "bytes: input %s\n", h(s.InputBytes))
	fmt.Fprintf(&b, "       shuffle %s\n", h(s.ShuffleBytes))
	fmt.Fprintf(&b, "       dependent %s\n", h(s.DependentBytes))
	fmt.Fprintf(&b, "       output %s\n", h(s.OutputBytes))
	if n := len(s.MissingDatasets); n > 0 {
		shown := s.MissingDatasets[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(", … (%d in all)", n)
		}
		fmt.Fprintf(&b, "missing datasets (counted as empty): %s%s\n", strings.Join(shown, ", "), more)
	}
	return b.String()
}
