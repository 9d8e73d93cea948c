package metrics

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/racklab/racklab/internal/skew"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/safefile"
	"github.com/racklab/racklab/internal/stats"
)

// Summary is one run's headline figures: one row of summary.csv.
type Summary struct {
	Policy string
	Seed   uint64
	// Jobs counts every job of the workload; FailedJobs those that
	// failed, UnfinishedJobs those a window cut short (not failures).
	Jobs       int
	FailedJobs int
	MakespanS  float64
	// ThroughputJPH is finished jobs per hour: over the makespan, or over
	// the window when the run had one.
	ThroughputJPH float64
	// JCT* are over the jobs that succeeded.
	JCTMeanS float64
	JCTP50S  float64
	JCTP90S  float64
	JCTP95S  float64
	JCTP99S  float64
	// WCTMeanS is the mean workload (job-DAG) completion time over the
	// finished workloads (see WorkloadsFinished).
	WCTMeanS float64
	// Bytes is the engine's accounting, summed over successful attempts.
	Bytes engine.ByteCounts
	// MeasuredCrossRackBytes is what the rack uplinks carried, as the
	// simulator or the kernel counted it.
	MeasuredCrossRackBytes float64
	NodeLocalFrac          float64
	RackLocalFrac          float64
	RemoteFrac             float64
	TierFrac               [cluster.NumTierKinds]float64
	// LocalTierFrac is the share of map attempts that read a node-local
	// replica of each tier: Trident's memory-, SSD- and HDD-local tasks
	// (their sum is NodeLocalFrac).
	LocalTierFrac [cluster.NumTierKinds]float64
	// MemBytesFrac is the share of the bytes map attempts read that came
	// from a memory tier, local or not: Trident's maps differ in size, so
	// a share of tasks and a share of bytes tell different stories.
	MemBytesFrac   float64
	LinkSkew       float64 // max/min bytes over rack links
	Attempts       int64
	Duplicates     int64
	DuplicatesUsed int64
	Rejected       int64
	Decisions      int64
	// Workloads counts the job DAGs (connected components of the parent
	// relation; a job without parents or children is a DAG of its own);
	// WorkloadsFinished those whose every job succeeded by the end of the
	// run (the window's, if any).
	Workloads         int
	WorkloadsFinished int
	UnfinishedJobs    int
	// WindowS is the run's experiment window (seconds), 0 without one.
	WindowS float64
	// The engine-counted cross-rack bytes, all and by class (input of
	// first-level jobs, dependent data read from parents' outputs,
	// shuffle), per finished workload: Dawn's cross-rack traffic per
	// workload. 0 when no workload finished.
	CrossRackBytesPerWorkload float64
	CrossInputPerWorkload     float64
	CrossDependentPerWorkload float64
	CrossShufflePerWorkload   float64
	// Task classification (Dawn's §5.3, Fig. 14), over successful
	// attempts: how many read input data (maps of datasets) and how many
	// dependent or intermediate data (maps of parent jobs' outputs,
	// reduce and later stages), and the share of each that read at least
	// a byte across racks; NaN where there is no such attempt.
	InputTasks             int64
	DepInterTasks          int64
	InputTasksCrossFrac    float64
	DepInterTasksCrossFrac float64
	// Of the successful attempts whose policy noted the network's state
	// (engine.DecisionNote), the share of those that read across racks
	// that were scheduled while it was unsaturated, and of those that
	// did not, the share scheduled while it was saturated (§6.3); NaN
	// when no such attempt has a note (every policy but Dawn's).
	TrafficTasksUnsaturatedFrac   float64
	ZeroTrafficTasksSaturatedFrac float64
	// MeasuredCrossRackBytesPerWorkload is MeasuredCrossRackBytes per
	// finished workload (0 when none finished): Dawn's cross-rack traffic
	// as the simulator's links or the kernel counted it.
	MeasuredCrossRackBytesPerWorkload float64
	// ComputeHours is the summed run time of every attempt that ended,
	// whatever its outcome, in hours: the slot time the run used
	// (Corral's compute hours, §5.4).
	ComputeHours float64
	// ReduceTimeP50S is the median (nearest rank, as the JCT's) over jobs
	// of a job's mean reduce time:
	// the mean run time of its successful attempts of stages that are
	// not maps (reduce and generic stages), over the jobs that have one;
	// NaN when none has (Corral's Fig. 7c).
	ReduceTimeP50S float64
	// InputRackCoV is the coefficient of variation (stddev/mean) of the
	// dataset bytes stored per rack once every dataset was placed,
	// counting every replica; InputRackCoVFirst counts first replicas
	// only (Corral's data balance, §2.8). 0 when nothing is stored.
	InputRackCoV, InputRackCoVFirst float64
	// PolicyFigures are the policy's own figures (engine.FigureReporter)
	// by summary.csv column (PolicyFigureColumns); a column the policy
	// did not report is empty.
	PolicyFigures map[string]float64
	// PlanWallS is how long the policy's offline plan took, in seconds of
	// wall time (engine.Stats.PlanNanos); NaN without a plan. It measures
	// the machine, so it is the one summary.csv column that differs
	// between identical runs.
	PlanWallS float64
	// DecisionMaxS is the longest scheduling decision of the run (one
	// HostScheduler offer or one RoundScheduler round, with the engine's
	// bookkeeping), in seconds of wall time; NaN when the driver did not
	// time decisions. Trident's scheduling-time experiment (§6.4) reads
	// it off a run whose first round matches a whole stage. It measures
	// the machine, like PlanWallS.
	DecisionMaxS float64
	// PrioritySharedS and PriorityInOrderFrac are how the network
	// served priorities, from the kernel's counters of the priority
	// leaves of every shaped bottleneck (an emulated cluster with
	// priorities; NaN elsewhere): the seconds, summed over bottlenecks
	// and pairs of bands, that two bands both sent through a busy
	// bottleneck while the lower one queued, and the share of those seconds whose
	// higher band waited less per byte there (bench/local measures it).
	PrioritySharedS, PriorityInOrderFrac float64
	// MemoryUploads and MemoryDemotions are the block replicas the
	// memory tier's LRU cache moved into memory when their dataset was
	// uploaded and out of it to make room (engine.Config.MemoryLRU; 0
	// without it).
	MemoryUploads, MemoryDemotions int64
	// ShuffleSkewMean is the mean over the jobs that succeeded and
	// fetched shuffle bytes across racks of a job's shuffle Skew (Shadow's
	// Eq. 1 over its rack uplinks and downlinks, skew.Links of
	// engine.JobRecord.ShuffleUp and ShuffleDown); NaN when no such job.
	ShuffleSkewMean float64
	// RackLinkSkew is Shadow's Skew over the bytes the rack links
	// carried, as the simulator or the kernel counted them (every class,
	// not shuffle alone): each rack's uplink and downlink apart, idle
	// links left out (skew.Links). LinkSkew, its predecessor, adds a
	// rack's two directions and counts an idle rack. NaN when the run
	// had no link counters (a live run without kernel counters).
	RackLinkSkew float64
	// HostsLost counts the hosts the run lost (a worker that stopped
	// answering; the engine reran their work): a run that lost one is a
	// measurement of another kind than its clean repetitions.
	HostsLost int
}

// PriorityOrder is what a run measured of the network's priority order
// (Summary.PrioritySharedS, PriorityInOrderFrac).
type PriorityOrder struct {
	SharedS, InOrderS float64
}

// SummaryHeader is the column list of summary.csv.
var SummaryHeader = []string{
	"policy", "seed", "jobs", "failed_jobs", "makespan_s", "throughput_jobs_per_h",
	"jct_mean_s", "jct_p50_s", "jct_p95_s", "jct_p99_s", "wct_mean_s",
	"cross_rack_bytes", "cross_input_bytes", "cross_shuffle_bytes", "cross_dependent_bytes",
	"cross_duplicate_bytes", "cross_output_bytes", "measured_cross_rack_bytes",
	"node_local_frac", "rack_local_frac", "remote_frac",
	"tier_mem_frac", "tier_ssd_frac", "tier_hdd_frac", "link_skew",
	"attempts", "duplicates", "duplicates_used", "rejected_actions", "decisions",
	"workloads", "workloads_finished", "unfinished_jobs", "window_s",
	"cross_rack_bytes_per_workload", "cross_input_per_workload", "cross_dependent_per_workload", "cross_shuffle_per_workload",
	"input_tasks", "dep_inter_tasks", "input_tasks_cross_frac", "dep_inter_tasks_cross_frac",
	"traffic_tasks_unsaturated_frac", "zero_traffic_tasks_saturated_frac",
	"measured_cross_rack_bytes_per_workload",
	"compute_hours", "reduce_time_p50_s", "input_rack_cov", "input_rack_cov_first",
	"plan_objective_s", "plan_lower_bound_s", "plan_gap", "plan_wall_s",
	"jct_p90_s", "prio_shared_s", "prio_in_order_frac",
	"mem_local_frac", "ssd_local_frac", "hdd_local_frac", "decision_max_s",
	"shadow_originals", "shadow_duplicates", "shadow_chosen", "shadow_early_chosen", "shadow_relocated_local", "shadow_pred_error_mean",
	"shadow_dup_frac", "shadow_chosen_frac",
	"memory_uploads", "memory_demotions", "mem_bytes_frac",
	"shuffle_skew_mean", "rack_link_skew",
	"hosts_lost",
}

// PolicyFigureColumns are the summary.csv columns a policy fills with its
// own figures (engine.FigureReporter), empty for a policy that reports
// none: an offline planner's objective (seconds: a batch plan's
// makespan, an online plan's average completion time), its lower bound
// (Corral's LP relaxation, §2.9) and the gap between them (objective /
// bound − 1); Shadow's counters of originals, duplicates, chosen,
// early-chosen and relocated duplicates, and its mean T_t prediction
// error (shadow.Policy.Figures). A figure of another name reaches no
// record: add its column here, to SummaryHeader and to SummaryAdded.
var PolicyFigureColumns = []string{"plan_objective_s", "plan_lower_bound_s", "plan_gap",
	"shadow_originals", "shadow_duplicates", "shadow_chosen", "shadow_early_chosen", "shadow_relocated_local", "shadow_pred_error_mean",
	"shadow_dup_frac", "shadow_chosen_frac"}

// WallClockColumns are the summary.csv columns that measure the machine
// rather than the run: the only ones that may differ between two
// identical runs.
var WallClockColumns = []string{"plan_wall_s", "decision_max_s"}

// SummaryAdded are the summary.csv columns added after the first
// release, with the value a summary.csv written before them stands for:
// a reader takes the columns of SummaryHeader less these as required.
// Such a file's runs had no window and ran every job to its end; how
// many workloads they had it does not say, so those columns read as 0.
// What it does not hold of the run itself (its compute hours, data
// balance, reduce time, plan and JCT p90) reads as NaN: unknown.
var SummaryAdded = map[string]float64{
	"workloads": 0, "workloads_finished": 0, "unfinished_jobs": 0, "window_s": 0,
	"cross_rack_bytes_per_workload": 0, "cross_input_per_workload": 0, "cross_dependent_per_workload": 0, "cross_shuffle_per_workload": 0,
	"input_tasks": 0, "dep_inter_tasks": 0, "input_tasks_cross_frac": math.NaN(), "dep_inter_tasks_cross_frac": math.NaN(),
	"traffic_tasks_unsaturated_frac": math.NaN(), "zero_traffic_tasks_saturated_frac": math.NaN(),
	"measured_cross_rack_bytes_per_workload": 0, "compute_hours": math.NaN(),
	"reduce_time_p50_s": math.NaN(), "input_rack_cov": math.NaN(), "input_rack_cov_first": math.NaN(),
	"plan_objective_s": math.NaN(), "plan_lower_bound_s": math.NaN(), "plan_gap": math.NaN(), "plan_wall_s": math.NaN(),
	"jct_p90_s": math.NaN(), "prio_shared_s": math.NaN(), "prio_in_order_frac": math.NaN(),
	"mem_local_frac": math.NaN(), "ssd_local_frac": math.NaN(), "hdd_local_frac": math.NaN(), "decision_max_s": math.NaN(),
	"shadow_originals": math.NaN(), "shadow_duplicates": math.NaN(), "shadow_chosen": math.NaN(),
	"shadow_early_chosen": math.NaN(), "shadow_relocated_local": math.NaN(), "shadow_pred_error_mean": math.NaN(),
	"shadow_dup_frac": math.NaN(), "shadow_chosen_frac": math.NaN(),
	"memory_uploads": 0, "memory_demotions": 0, "mem_bytes_frac": math.NaN(),
	"shuffle_skew_mean": math.NaN(), "rack_link_skew": math.NaN(),
	"hosts_lost": math.NaN(),
}

// SummaryRequired is the columns every summary.csv has: SummaryHeader
// less SummaryAdded.
func SummaryRequired() []string {
	var out []string
	for _, c := range SummaryHeader {
		if _, added := SummaryAdded[c]; !added {
			out = append(out, c)
		}
	}
	return out
}

// emptyWhenUndefined are the summary.csv columns whose cell is empty when
// the run has nothing to compute them from (a share of no tasks, the
// reduce time of a run without reduces, a figure its policy does not
// report), rather than NaN, which a reader would take for a broken
// record.
var emptyWhenUndefined = map[string]bool{
	"input_tasks_cross_frac": true, "dep_inter_tasks_cross_frac": true,
	"traffic_tasks_unsaturated_frac": true, "zero_traffic_tasks_saturated_frac": true,
	"reduce_time_p50_s": true, "plan_objective_s": true, "plan_lower_bound_s": true, "plan_gap": true, "plan_wall_s": true,
	"prio_shared_s": true, "prio_in_order_frac": true, "decision_max_s": true,
	"shadow_originals": true, "shadow_duplicates": true, "shadow_chosen": true,
	"shadow_early_chosen": true, "shadow_relocated_local": true, "shadow_pred_error_mean": true,
	"shadow_dup_frac": true, "shadow_chosen_frac": true,
	"shuffle_skew_mean": true, "rack_link_skew": true,
}

// MayBeEmpty reports whether a summary.csv column's cell may be empty:
// the run has no value for it (see Summary's task classification, its
// reduce time and its policy's figures).
func MayBeEmpty(column string) bool { return emptyWhenUndefined[column] }

// share is a Summary share's cell: empty when undefined.
func share(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return ff(x)
}

func ff(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', 6, 64)
}

// Row formats the summary as a summary.csv row.
func (s *Summary) Row() []string {
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	return []string{
		s.Policy, strconv.FormatUint(s.Seed, 10), strconv.Itoa(s.Jobs), strconv.Itoa(s.FailedJobs),
		ff(s.MakespanS), ff(s.ThroughputJPH), ff(s.JCTMeanS), ff(s.JCTP50S), ff(s.JCTP95S), ff(s.JCTP99S), ff(s.WCTMeanS),
		i(s.Bytes.Cross()), i(s.Bytes[engine.ClassInput][engine.LevelCross]), i(s.Bytes[engine.ClassShuffle][engine.LevelCross]),
		i(s.Bytes[engine.ClassDependent][engine.LevelCross]), i(s.Bytes[engine.ClassDuplicate][engine.LevelCross]),
		i(s.Bytes[engine.ClassOutput][engine.LevelCross]), strconv.FormatFloat(math.Round(s.MeasuredCrossRackBytes), 'f', 0, 64),
		ff(s.NodeLocalFrac), ff(s.RackLocalFrac), ff(s.RemoteFrac),
		ff(s.TierFrac[cluster.Mem]), ff(s.TierFrac[cluster.SSD]), ff(s.TierFrac[cluster.HDD]), ff(s.LinkSkew),
		i(s.Attempts), i(s.Duplicates), i(s.DuplicatesUsed), i(s.Rejected), i(s.Decisions),
		strconv.Itoa(s.Workloads), strconv.Itoa(s.WorkloadsFinished), strconv.Itoa(s.UnfinishedJobs), ff(s.WindowS),
		ff(s.CrossRackBytesPerWorkload), ff(s.CrossInputPerWorkload), ff(s.CrossDependentPerWorkload), ff(s.CrossShufflePerWorkload),
		i(s.InputTasks), i(s.DepInterTasks), share(s.InputTasksCrossFrac), share(s.DepInterTasksCrossFrac),
		share(s.TrafficTasksUnsaturatedFrac), share(s.ZeroTrafficTasksSaturatedFrac),
		ff(s.MeasuredCrossRackBytesPerWorkload),
		ff(s.ComputeHours), share(s.ReduceTimeP50S), ff(s.InputRackCoV), ff(s.InputRackCoVFirst),
		s.figure("plan_objective_s"), s.figure("plan_lower_bound_s"), s.figure("plan_gap"), share(s.PlanWallS),
		ff(s.JCTP90S), share(s.PrioritySharedS), share(s.PriorityInOrderFrac),
		ff(s.LocalTierFrac[cluster.Mem]), ff(s.LocalTierFrac[cluster.SSD]), ff(s.LocalTierFrac[cluster.HDD]), share(s.DecisionMaxS),
		s.figure("shadow_originals"), s.figure("shadow_duplicates"), s.figure("shadow_chosen"),
		s.figure("shadow_early_chosen"), s.figure("shadow_relocated_local"), s.figure("shadow_pred_error_mean"),
		s.figure("shadow_dup_frac"), s.figure("shadow_chosen_frac"),
		i(s.MemoryUploads), i(s.MemoryDemotions), ff(s.MemBytesFrac),
		share(s.ShuffleSkewMean), share(s.RackLinkSkew),
		strconv.Itoa(s.HostsLost),
	}
}

// figure is the cell of a policy figure's column: empty when the policy
// did not report it.
func (s *Summary) figure(column string) string {
	x, ok := s.PolicyFigures[column]
	if !ok {
		return ""
	}
	return share(x)
}

// Recorder writes one run's records as they happen (attempts.csv,
// jobs.csv, links.csv in its directory) and folds them into a Summary.
// Records are flushed at every job end, so a crash loses at most the
// attempts of the moment.
type Recorder struct {
	dir      string
	files    []*os.File
	bufs     []*bufio.Writer
	attempts *csv.Writer
	jobs     *csv.Writer
	links    *csv.Writer

	group        []int // job index → job-DAG id
	groupArrival []float64
	groupFinish  []float64
	groupSize    []int // jobs of each DAG
	groupDone    []int // of which succeeded
	window       float64
	// priorityOrder is the network's priority order, when measured.
	priorityOrder *PriorityOrder

	tally      JobTally // the jobs' records: makespan and completion times
	sum        Summary
	mapByLevel [engine.NumLocalities]int64
	mapLocalBy [cluster.NumTierKinds]int64 // node-local map reads by tier
	mapByTier  [cluster.NumTierKinds]int64
	// mapBytes is the bytes map attempts read, by the tier they read it
	// from
	mapBytes [cluster.NumTierKinds]int64
	classes  taskClasses
	// attemptSeconds is the summed run time of the attempts recorded;
	// reduceTime the run time and count of each job's successful
	// attempts of stages that are not maps, by job id
	attemptSeconds float64
	reduceTime     map[engine.JobID]*timeSum
	// shuffleSkewSum sums the shuffle Skew of the shuffleSkewJobs jobs
	// that succeeded with cross-rack shuffle bytes, for ShuffleSkewMean
	shuffleSkewSum  float64
	shuffleSkewJobs int
}

// timeSum is a sum of durations and how many.
type timeSum struct {
	seconds float64
	n       int
}

// taskClasses counts successful attempts for the task classification.
type taskClasses struct {
	inputCross, depInterCross int64 // of InputTasks, DepInterTasks
	// noted: of the attempts whose note gives the network's state, by
	// whether they read across racks and whether it was saturated
	noted [2][2]int64 // [cross][saturated]
}

// DataClass names what an attempt's stage reads, for attempts.csv:
// "input" (a map of a dataset), "dependent" (a map of parent jobs'
// outputs) or "intermediate" (a reduce or later stage).
func DataClass(c engine.Class) string {
	switch c {
	case engine.ClassInput:
		return "input"
	case engine.ClassDependent:
		return "dependent"
	}
	return "intermediate"
}

// crossRead is what an attempt read across racks (its output replicas
// written elsewhere are not reads).
func crossRead(a *engine.AttemptRecord) int64 {
	return a.Bytes.Cross() - a.Bytes[engine.ClassOutput][engine.LevelCross]
}

// netSaturated is a note's saturation as an attempts.csv cell: empty when
// unknown, else 0 or 1.
func netSaturated(s engine.Saturation) string {
	switch s {
	case engine.Unsaturated:
		return "0"
	case engine.Saturated:
		return "1"
	}
	return ""
}

// RecordFiles are the files a Recorder writes in its directory.
var RecordFiles = []string{"attempts.csv", "jobs.csv", "links.csv"}

// NewRecorder creates dir and the record files in it.
func NewRecorder(dir string, w *workload.Workload) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &Recorder{dir: dir}
	open := func(name string, header []string) (*csv.Writer, error) {
		// a record file is created anew, never opened through a link
		// found in the directory
		f, err := safefile.Create(filepath.Join(dir, name), 0o644)
		if err != nil {
			return nil, err
		}
		b := bufio.NewWriterSize(f, 1<<20)
		r.files = append(r.files, f)
		r.bufs = append(r.bufs, b)
		c := csv.NewWriter(b)
		return c, c.Write(header)
	}
	var err error
	if r.attempts, err = open("attempts.csv", attemptHeader); err != nil {
		r.Close()
		return nil, err
	}
	if r.jobs, err = open("jobs.csv", jobHeader); err != nil {
		r.Close()
		return nil, err
	}
	if r.links, err = open("links.csv", []string{"time_s", "direction", "rack", "utilisation"}); err != nil {
		r.Close()
		return nil, err
	}
	r.groupJobs(w)
	return r, nil
}

// groupJobs numbers the job DAGs (connected components of the parent
// relation), for the workload completion time.
func (r *Recorder) groupJobs(w *workload.Workload) {
	n := len(w.Jobs)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	idx := make(map[string]int, n)
	for i := range w.Jobs {
		idx[w.Jobs[i].ID] = i
	}
	for i := range w.Jobs {
		for _, p := range w.Jobs[i].Parents {
			a, b := find(i), find(idx[p])
			if a != b {
				parent[a] = b
			}
		}
	}
	r.group = make([]int, n)
	ids := map[int]int{}
	for i := range r.group {
		root := find(i)
		id, ok := ids[root]
		if !ok {
			id = len(ids)
			ids[root] = id
		}
		r.group[i] = id
	}
	r.groupArrival = make([]float64, len(ids))
	r.groupFinish = make([]float64, len(ids))
	r.groupSize = make([]int, len(ids))
	r.groupDone = make([]int, len(ids))
	for _, g := range r.group {
		r.groupSize[g]++
	}
	for g := range r.groupArrival {
		r.groupArrival[g] = math.Inf(1)
	}
}

var attemptHeader = []string{
	"job", "stage", "task", "attempt", "kind", "host", "rack", "start_s", "end_s", "outcome", "duplicate",
	"locality", "tier", "input_bytes", "output_bytes",
	"local_bytes", "rack_bytes", "cross_bytes", "cross_input", "cross_shuffle", "cross_dependent", "cross_duplicate", "cross_output",
	"data_class", "net_saturated", "reason", "source_host",
}

var jobHeader = []string{"job", "queue", "state", "arrival_s", "submitted_s", "started_s", "finished_s", "jct_s", "tasks", "attempts", "reason", "input_bytes",
	"shuffle_skew", "duplicates", "duplicates_used"}

// Attempt records a finished attempt.
func (r *Recorder) Attempt(a *engine.AttemptRecord) error {
	var lv [engine.NumLevels]int64
	for c := range a.Bytes {
		for l := range a.Bytes[c] {
			lv[l] += a.Bytes[c][l]
		}
	}
	// the replica a map read: its host and tier (empty for other attempts)
	tier, source := "", ""
	if a.Source.Host >= 0 {
		tier, source = a.Tier.String(), strconv.Itoa(int(a.Source.Host))
	}
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	err := r.attempts.Write([]string{
		a.JobName, strconv.Itoa(int(a.Task.Stage)), strconv.Itoa(int(a.Task.Index)), i(int64(a.ID)), a.Kind.String(),
		strconv.Itoa(int(a.Host)), strconv.Itoa(int(a.Rack)), ff(a.Start), ff(a.End), a.Outcome.String(), strconv.FormatBool(a.Duplicate),
		a.Locality.String(), tier, i(a.InputBytes), i(a.OutputBytes),
		i(lv[engine.LevelLocal]), i(lv[engine.LevelRack]), i(lv[engine.LevelCross]),
		i(a.Bytes[engine.ClassInput][engine.LevelCross]), i(a.Bytes[engine.ClassShuffle][engine.LevelCross]),
		i(a.Bytes[engine.ClassDependent][engine.LevelCross]), i(a.Bytes[engine.ClassDuplicate][engine.LevelCross]),
		i(a.Bytes[engine.ClassOutput][engine.LevelCross]),
		DataClass(a.InputClass), netSaturated(a.Note.Saturation), a.Note.Reason, source,
	})
	r.sum.Attempts++
	if d := a.End - a.Start; d > 0 {
		r.attemptSeconds += d
	}
	if a.Outcome != engine.AttemptSucceeded {
		return err
	}
	if a.Kind != workload.Map {
		if r.reduceTime == nil {
			r.reduceTime = map[engine.JobID]*timeSum{}
		}
		ts := r.reduceTime[a.Task.Job]
		if ts == nil {
			ts = &timeSum{}
			r.reduceTime[a.Task.Job] = ts
		}
		ts.seconds += a.End - a.Start
		ts.n++
	}
	r.sum.Bytes.Add(&a.Bytes)
	r.classify(a)
	if a.Kind == workload.Map && a.Source.Host >= 0 {
		r.mapByLevel[a.Locality]++
		if a.Locality == engine.NodeLocal {
			r.mapLocalBy[a.Tier]++
		}
		r.mapByTier[a.Tier]++
		r.mapBytes[a.Tier] += a.InputBytes
	}
	return err
}

// classify counts a successful attempt for the task classification.
func (r *Recorder) classify(a *engine.AttemptRecord) {
	cross := crossRead(a) > 0
	if a.InputClass == engine.ClassInput {
		r.sum.InputTasks++
		if cross {
			r.classes.inputCross++
		}
	} else {
		r.sum.DepInterTasks++
		if cross {
			r.classes.depInterCross++
		}
	}
	if a.Note.Saturation != engine.SaturationUnknown {
		r.classes.noted[b2i(cross)][b2i(a.Note.Saturation == engine.Saturated)]++
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fraction is n/of, NaN when of is 0.
func fraction(n, of int64) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}

// SetWindow tells the recorder the run's experiment window (seconds; 0:
// none), for the summary's throughput and window_s.
func (r *Recorder) SetWindow(seconds float64) { r.window = seconds }

// SetPriorityOrder gives the recorder what the network's counters said of
// its priority order, for the summary; a run without it has none (NaN).
// sharedS is the seconds, summed over bottlenecks and pairs of bands,
// that two bands shared a bottleneck while the lower one queued;
// inOrderS those of the pairs whose higher band waited less per byte.
func (r *Recorder) SetPriorityOrder(sharedS, inOrderS float64) {
	r.priorityOrder = &PriorityOrder{SharedS: sharedS, InOrderS: inOrderS}
}

// Job records a job that ended, or one a window left unfinished (state
// engine.JobUnfinished: its unknown times are empty cells), and flushes
// the files.
func (r *Recorder) Job(j *engine.JobRecord) error {
	jct := j.Finished - j.Arrival
	skew, crossShuffle := JobShuffleSkew(j)
	if err := r.jobs.Write([]string{
		j.Name, j.Queue, j.State.String(), ff(j.Arrival), known(j.Submitted), known(j.Started), known(j.Finished), known(jct),
		strconv.Itoa(j.Tasks), strconv.Itoa(j.Attempts), j.Reason, strconv.FormatInt(j.InputBytes, 10),
		ff(skew), strconv.Itoa(j.Duplicates), strconv.Itoa(j.DuplicatesUsed),
	}); err != nil {
		return err
	}
	if crossShuffle && j.State == engine.JobSucceeded {
		r.shuffleSkewSum += skew
		r.shuffleSkewJobs++
	}
	r.sum.Jobs++
	r.tally.Add(j.State, j.Arrival, j.Finished)
	switch j.State {
	case engine.JobUnfinished:
		r.sum.UnfinishedJobs++
		return r.Flush()
	case engine.JobFailed:
		r.sum.FailedJobs++
	}
	if int(j.ID) < len(r.group) {
		g := r.group[j.ID]
		r.groupArrival[g] = math.Min(r.groupArrival[g], j.Arrival)
		r.groupFinish[g] = math.Max(r.groupFinish[g], j.Finished)
		if j.State == engine.JobSucceeded {
			r.groupDone[g]++
		}
	}
	return r.Flush()
}

// known formats a time of a record, empty when it is unknown (NaN).
func known(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return ff(x)
}

// LinkSample records the rack-link utilisation of one sample period.
func (r *Recorder) LinkSample(t float64, up, down []float64) error {
	for rack := range up {
		if err := r.links.Write([]string{ff(t), "up", strconv.Itoa(rack), ff(up[rack])}); err != nil {
			return err
		}
		if err := r.links.Write([]string{ff(t), "down", strconv.Itoa(rack), ff(down[rack])}); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes buffered records to disk.
func (r *Recorder) Flush() error {
	for _, c := range []*csv.Writer{r.attempts, r.jobs, r.links} {
		if c != nil {
			c.Flush()
			if err := c.Error(); err != nil {
				return err
			}
		}
	}
	for _, b := range r.bufs {
		if err := b.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes and closes the record files.
func (r *Recorder) Close() error {
	err := r.Flush()
	for _, f := range r.files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	r.files = nil
	return err
}

// Finish completes the summary with what only the end of a run knows.
func (r *Recorder) Finish(policy string, seed uint64, st *engine.Stats, up, down []float64) Summary {
	s := r.sum
	s.Policy, s.Seed = policy, seed
	finished := s.Jobs - s.FailedJobs - s.UnfinishedJobs
	if s.MakespanS = r.tally.Makespan(); s.MakespanS > 0 {
		s.ThroughputJPH = float64(finished) / s.MakespanS * 3600
	}
	if s.WindowS = r.window; r.window > 0 {
		s.ThroughputJPH = float64(finished) / r.window * 3600
	}
	jobs := r.tally.Figures()
	s.JCTMeanS, s.JCTP50S, s.JCTP90S = jobs["jct_mean_s"], jobs["jct_p50_s"], jobs["jct_p90_s"]
	s.JCTP95S, s.JCTP99S = jobs["jct_p95_s"], jobs["jct_p99_s"]
	var wct []float64
	s.Workloads = len(r.groupSize)
	for g, n := range r.groupSize {
		if r.groupDone[g] == n {
			wct = append(wct, r.groupFinish[g]-r.groupArrival[g])
		}
	}
	s.WCTMeanS = Mean(wct)
	if s.WorkloadsFinished = len(wct); s.WorkloadsFinished > 0 {
		per := func(n int64) float64 { return float64(n) / float64(s.WorkloadsFinished) }
		s.CrossRackBytesPerWorkload = per(s.Bytes.Cross())
		s.CrossInputPerWorkload = per(s.Bytes[engine.ClassInput][engine.LevelCross])
		s.CrossDependentPerWorkload = per(s.Bytes[engine.ClassDependent][engine.LevelCross])
		s.CrossShufflePerWorkload = per(s.Bytes[engine.ClassShuffle][engine.LevelCross])
	}
	var maps int64
	for _, n := range r.mapByLevel {
		maps += n
	}
	if maps > 0 {
		s.NodeLocalFrac = float64(r.mapByLevel[engine.NodeLocal]) / float64(maps)
		s.RackLocalFrac = float64(r.mapByLevel[engine.RackLocal]) / float64(maps)
		s.RemoteFrac = float64(r.mapByLevel[engine.Remote]) / float64(maps)
		for k := range s.TierFrac {
			s.TierFrac[k] = float64(r.mapByTier[k]) / float64(maps)
			s.LocalTierFrac[k] = float64(r.mapLocalBy[k]) / float64(maps)
		}
		var read int64
		for _, n := range r.mapBytes {
			read += n
		}
		if read > 0 {
			s.MemBytesFrac = float64(r.mapBytes[cluster.Mem]) / float64(read)
		}
	}
	c := &r.classes
	s.InputTasksCrossFrac = fraction(c.inputCross, s.InputTasks)
	s.DepInterTasksCrossFrac = fraction(c.depInterCross, s.DepInterTasks)
	s.TrafficTasksUnsaturatedFrac = fraction(c.noted[1][0], c.noted[1][0]+c.noted[1][1])
	s.ZeroTrafficTasksSaturatedFrac = fraction(c.noted[0][1], c.noted[0][0]+c.noted[0][1])
	loads := make([]float64, len(up))
	for i := range up {
		s.MeasuredCrossRackBytes += up[i]
		loads[i] = up[i] + down[i]
	}
	s.LinkSkew = Skew(loads)
	s.RackLinkSkew = math.NaN()
	if up != nil || down != nil {
		s.RackLinkSkew = skew.Links(up, down)
	}
	s.ShuffleSkewMean = math.NaN()
	if r.shuffleSkewJobs > 0 {
		s.ShuffleSkewMean = r.shuffleSkewSum / float64(r.shuffleSkewJobs)
	}
	if s.WorkloadsFinished > 0 {
		s.MeasuredCrossRackBytesPerWorkload = s.MeasuredCrossRackBytes / float64(s.WorkloadsFinished)
	}
	s.ComputeHours = r.attemptSeconds / 3600
	s.ReduceTimeP50S = math.NaN()
	if len(r.reduceTime) > 0 {
		means := make([]float64, 0, len(r.reduceTime))
		for _, ts := range r.reduceTime {
			means = append(means, ts.seconds/float64(ts.n))
		}
		sort.Float64s(means)
		s.ReduceTimeP50S = Percentile(means, 50)
	}
	s.PlanWallS, s.DecisionMaxS = math.NaN(), math.NaN()
	s.PrioritySharedS, s.PriorityInOrderFrac = math.NaN(), math.NaN()
	if r.priorityOrder != nil {
		s.PrioritySharedS = r.priorityOrder.SharedS
		if r.priorityOrder.SharedS > 0 {
			s.PriorityInOrderFrac = r.priorityOrder.InOrderS / r.priorityOrder.SharedS
		}
	}
	if st != nil {
		s.Duplicates, s.DuplicatesUsed, s.Rejected, s.Decisions = st.Duplicates, st.DuplicatesUsed, st.Rejected, st.Decisions
		s.InputRackCoV, s.InputRackCoVFirst = stats.CoV(st.InputRackBytes), stats.CoV(st.InputRackFirstBytes)
		s.PolicyFigures = st.PolicyFigures
		s.MemoryUploads, s.MemoryDemotions = st.MemoryUploads, st.MemoryDemotions
		s.HostsLost = st.HostsLost
		if st.PlanNanos > 0 {
			s.PlanWallS = float64(st.PlanNanos) / 1e9
		}
		if st.DecisionTimes.N > 0 {
			s.DecisionMaxS = float64(st.DecisionTimes.MaxNanos) / 1e9
		}
	}
	return s
}

// Mean is the arithmetic mean, 0 for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// Percentile is the nearest-rank percentile of sorted values.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// Skew is max/min of the values; +Inf when the least loaded is idle and
// another is not, 1 when all are idle.
func Skew(xs []float64) float64 {
	if len(xs) == 0 {
		return 1
	}
	lo, hi := math.Inf(1), 0.0
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if hi == 0 {
		return 1
	}
	if lo == 0 {
		return math.Inf(1)
	}
	return hi / lo
}

// JobShuffleSkew is a job's shuffle Skew, skew.Links of the cross-rack
// shuffle bytes its reduce and generic attempts fetched per rack link
// (engine.JobRecord.ShuffleUp and ShuffleDown), and whether it fetched
// any across racks (else the Skew is 1).
func JobShuffleSkew(j *engine.JobRecord) (s float64, crossShuffle bool) {
	up, down := make([]float64, len(j.ShuffleUp)), make([]float64, len(j.ShuffleDown))
	for i, n := range j.ShuffleUp {
		up[i] = float64(n)
		crossShuffle = crossShuffle || n > 0
	}
	for i, n := range j.ShuffleDown {
		down[i] = float64(n)
	}
	return skew.Links(up, down), crossShuffle
}

// WriteSummaries writes summary.csv, replacing the file (see
// internal/safefile).
func WriteSummaries(path string, rows []Summary) error {
	return safefile.Write(path, 0o644, func(out io.Writer) error {
		w := csv.NewWriter(out)
		_ = w.Write(SummaryHeader)
		for i := range rows {
			_ = w.Write(rows[i].Row())
		}
		w.Flush()
		return w.Error()
	})
}

// Table formats summaries as an aligned comparison table.
func Table(rows []Summary) string {
	head := []string{"policy", "seed", "jobs", "failed", "unfinished", "makespan_s", "jct_mean_s", "jct_p50_s", "jct_p95_s", "jct_p99_s", "cross_rack_GB", "node_local", "rack_local", "link_skew"}
	cells := [][]string{head}
	for _, s := range rows {
		cells = append(cells, []string{
			s.Policy, strconv.FormatUint(s.Seed, 10), strconv.Itoa(s.Jobs), strconv.Itoa(s.FailedJobs), strconv.Itoa(s.UnfinishedJobs),
			fmt.Sprintf("%.1f", s.MakespanS), fmt.Sprintf("%.2f", s.JCTMeanS), fmt.Sprintf("%.2f", s.JCTP50S),
			fmt.Sprintf("%.2f", s.JCTP95S), fmt.Sprintf("%.2f", s.JCTP99S), fmt.Sprintf("%.1f", float64(s.Bytes.Cross())/1e9),
			fmt.Sprintf("%.3f", s.NodeLocalFrac), fmt.Sprintf("%.3f", s.RackLocalFrac), fmt.Sprintf("%.2f", s.LinkSkew),
		})
	}
	width := make([]int, len(head))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	var out []byte
	for _, row := range cells {
		for i, c := range row {
			if i > 0 {
				out = append(out, "  "...)
			}
			out = append(out, fmt.Sprintf("%*s", width[i], c)...)
		}
		out = append(out, '\n')
	}
	return string(out)
}

// RunSink records one run in a directory: the Recorder's files as the run
// goes, and summary.csv when it finishes. It is the sink a live run
// (coordinator/live.Sink) writes through.
type RunSink struct {
	*Recorder
	Dir    string
	Policy string // the label the summary names the run by
	Seed   uint64
	// Summary is the run's summary, once Finish has been called.
	Summary Summary
}

// NewRunSink opens a run's records in dir.
func NewRunSink(dir string, w *workload.Workload, policy string, seed uint64) (*RunSink, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rec, err := NewRecorder(dir, w)
	if err != nil {
		return nil, err
	}
	return &RunSink{Recorder: rec, Dir: dir, Policy: policy, Seed: seed}, nil
}

// Finish completes the summary and writes summary.csv, once the records
// it sums up are on their way to disk: a run killed between the two
// leaves no summary.csv that vouches for records it never wrote (the
// link samples and attempts since the last job's end).
func (s *RunSink) Finish(st *engine.Stats, up, down []float64) error {
	s.Summary = s.Recorder.Finish(s.Policy, s.Seed, st, up, down)
	if err := s.Recorder.Flush(); err != nil {
		return err
	}
	return WriteSummaries(filepath.Join(s.Dir, "summary.csv"), []Summary{s.Summary})
}
