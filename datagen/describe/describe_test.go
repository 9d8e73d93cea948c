package describe

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/coflow"
	"github.com/racklab/racklab/datagen/mix"
	"github.com/racklab/racklab/datagen/ml"
	"github.com/racklab/racklab/datagen/recurring"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/datagen/tpch"
)

// The traces are in the repository's traces/ directory.
var traceDir = filepath.Join("..", "..", "traces")

func small() (*workload.Workload, *workload.Datasets) {
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		{Name: "a", Size: 300, BlockSize: 128, Replication: 1}, // blocks 128, 128, 44
		{Name: "b", Blocks: []workload.Block{{Size: 100}, {Size: 50}}},
	}}
	w := &workload.Workload{Jobs: []workload.Job{
		// input 300; map output 64+64+22 = 150; shuffle 150; output 300.
		{ID: "j1", Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "a", Selectivity: 0.5},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 2},
		}},
		// input 150; map output 40; g1 40 → 40, g2 40 → 7, r 47 → 24
		// (23.5 rounded); shuffle 127; output 24; stage depth 3, width 2.
		{ID: "j2", Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "b", OutputBytes: 40},
			{Name: "g1", Kind: workload.Generic, Tasks: 1, After: []string{"map"}, Selectivity: 1},
			{Name: "g2", Kind: workload.Generic, Tasks: 1, After: []string{"map"}, OutputBytes: 7},
			{Name: "r", Kind: workload.Reduce, Tasks: 3, After: []string{"g1", "g2"}, Selectivity: 0.5},
		}},
		// dependent 300 + 24; two final map stages, output 300 + 0;
		// tasks one per block of the parents' outputs, as the engine
		// makes them: 2 (j1's reducers) + 3 (j2's r)
		{ID: "j3", Parents: []string{"j1", "j2"}, Stages: []workload.Stage{
			{Name: "m1", Kind: workload.Map, Input: "@j1", Selectivity: 1},
			{Name: "m2", Kind: workload.Map, Input: "@j2"},
		}},
		// a dataset that is not there: empty; 3 tasks.
		{ID: "j4", Parents: []string{"j3"}, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "gone", Tasks: 3, Selectivity: 1},
		}},
		// map-only: input 300, output 300.
		{ID: "j5", Arrival: 4, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "a", Selectivity: 1},
		}},
	}}
	return w, ds
}

func TestSmall(t *testing.T) {
	w, ds := small()
	s := Describe(w, ds)
	// the engine's own count (before, a map stage reading a parent's
	// output counted its Tasks field, at least 1: 20 here)
	if v, err := w.Volume(ds); err != nil || int(v.Tasks) != s.Tasks {
		t.Errorf("describe counts %d tasks, the engine %v (%v)", s.Tasks, v.Tasks, err)
	}
	want := Summary{
		Jobs: 5, Stages: 10, Tasks: 5 + 7 + 5 + 3 + 3,
		JobInput:    Dist{Min: 0, P50: 300, P90: 324, P99: 324, Max: 324}, // 0 150 300 300 324
		JobShuffle:  Dist{Min: 0, P50: 0, P90: 150, P99: 150, Max: 150},   // 0 0 0 127 150
		JobDAGDepth: 3, JobDAGWidth: 3, JobsWithParents: 2,
		DAGs: 2, DAGDepthMean: 2, FirstArrival: 0, LastArrival: 4,
		StageDepth: 3, StageWidth: 2, JobsByStageDepth: map[int]int{1: 3, 2: 1, 3: 1},
		InputBytes: 750, ShuffleBytes: 277, DependentBytes: 324, OutputBytes: 924,
		// a (j1, j5), b (j2), gone (j4); j3 reads its parents' outputs.
		InputDatasets: 3, InputJobs: 4, SharedInputJobs: 2, MostReadInput: "a", MostReadJobs: 2,
		MissingDatasets: []string{"gone"},
	}
	want.Trident = make([]Bin, len(TridentBins))
	for i, b := range TridentBins {
		want.Trident[i].Name = b.Name
	}
	want.Trident[0].Jobs, want.Trident[0].Bytes = 5, 1074
	want.PushBox = make([]Bin, len(PushBoxBins))
	for i, b := range PushBoxBins {
		want.PushBox[i].Name = b.Name
	}
	want.PushBox[0].Jobs, want.PushBox[0].Bytes = 5, 277
	if !reflect.DeepEqual(s, want) {
		t.Errorf("summary\n got %+v\nwant %+v", s, want)
	}
	out := Format(s)
	for _, frag := range []string{"jobs: 5 (10 stages, 23 tasks)", "job DAG: depth 3, width 3, 2 jobs with parents",
		"stage DAG: depth 3, width 2; by depth 1: 3 jobs, 2: 1 jobs, 3: 1 jobs", "input 750 B", "shuffle 277 B",
		"dependent 324 B", "output 924 B", "missing datasets (counted as empty): gone",
		"job DAGs (workloads): 2, mean depth 2.00; arrivals 0 s to 4 s",
		"inputs: 3 distinct datasets read by 4 jobs; 2 jobs read an input that another job also reads; the most-read input, a, is read by 2 jobs"} {
		if !strings.Contains(out, frag) {
			t.Errorf("Format lacks %q:\n%s", frag, out)
		}
	}

	// Without datasets every dataset is missing.
	s = Describe(w, nil)
	if s.InputBytes != 0 || !reflect.DeepEqual(s.MissingDatasets, []string{"a", "b", "gone"}) || s.ShuffleBytes != 40+40+47 {
		t.Errorf("no datasets: %+v", s)
	}
	// An empty workload.
	s = Describe(&workload.Workload{}, nil)
	if s.Jobs != 0 || s.JobInput != (Dist{}) || s.JobDAGDepth != 0 {
		t.Errorf("empty: %+v", s)
	}
	_ = Format(s)
}

func TestBins(t *testing.T) {
	const mib, gib = 1 << 20, 1 << 30
	for _, tc := range []struct {
		size int64
		bin  int
	}{{0, 0}, {128 * mib, 0}, {128*mib + 1, 1}, {512 * mib, 1}, {gib, 2}, {gib + 1, 3}, {2 * gib, 3}, {5 * gib, 4}, {10 * gib, 5}, {10*gib + 1, 6}, {1 << 62, 6}} {
		if b := tridentBin(tc.size); b != tc.bin {
			t.Errorf("Trident bin of %d: %d, want %d", tc.size, b, tc.bin)
		}
	}
	for _, tc := range []struct {
		size int64
		bin  int
	}{{0, 0}, {10*mib - 1, 0}, {10 * mib, 1}, {100*mib - 1, 1}, {100 * mib, 2}, {1e4 * mib, 4}, {1e6*mib - 1, 5}, {1e6 * mib, 6}} {
		if b := pushBoxBin(tc.size); b != tc.bin {
			t.Errorf("PushBox bin of %d: %d, want %d", tc.size, b, tc.bin)
		}
	}
}

func TestSwimFB2009(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(traceDir, "swim", "FB-2009_samples_24_times_1hr_0.tsv"))
	if err != nil {
		t.Fatalf("trace missing from traces/: %v", err)
	}
	w, ds, err := swim.Import(bytes.NewReader(data), "fb2009", swim.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := Describe(w, ds)
	// Totals as in datagen/swim's tests (awk over the trace's columns).
	if s.Jobs != 5894 || s.InputBytes != 26886497357605 || s.OutputBytes != 6852686303142 || s.DependentBytes != 0 {
		t.Errorf("jobs %d, input %d, output %d, dependent %d", s.Jobs, s.InputBytes, s.OutputBytes, s.DependentBytes)
	}
	// The map output is rounded per block, so the shuffle is the trace's
	// 22216712306762 bytes to within a byte a block.
	if d := s.ShuffleBytes - 22216712306762; d < 0 || d > int64(s.Tasks) {
		t.Errorf("shuffle %d", s.ShuffleBytes)
	}
	if s.InputDatasets != 5894 || s.InputJobs != 5894 || s.SharedInputJobs != 0 || s.MostReadJobs != 1 {
		t.Errorf("inputs %d, jobs %d, shared %d, most read by %d", s.InputDatasets, s.InputJobs, s.SharedInputJobs, s.MostReadJobs)
	}
	if s.JobDAGDepth != 1 || s.JobDAGWidth != 5894 || s.StageDepth != 2 || !reflect.DeepEqual(s.JobsByStageDepth, map[int]int{1: 4448, 2: 1446}) {
		t.Errorf("DAG %+v", s)
	}
	n := 0
	for _, b := range s.Trident {
		n += b.Jobs
	}
	if n != 5894 || s.JobInput.Max <= s.JobInput.P99 || s.JobInput.Min != 0 {
		t.Errorf("Trident bins %+v, input %+v", s.Trident, s.JobInput)
	}
}

// SWIM's trace with input paths: the jobs of one path share its dataset.
func TestSwimWithInputPaths(t *testing.T) {
	const trace = "../swim/testdata/FB-2010_withInputPaths_first50.tsv"
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	w, ds, err := swim.Import(bytes.NewReader(data), trace, swim.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// See datagen/swim's TestInputPaths: 38 paths, 17 jobs in 5 shared
	// datasets, job20's read by job20 to job25.
	s := Describe(w, ds)
	if s.InputDatasets != 38 || s.InputJobs != 50 || s.SharedInputJobs != 17 || s.MostReadInput != "in-job20" || s.MostReadJobs != 6 {
		t.Errorf("inputs %d, jobs %d, shared %d, most read %s by %d", s.InputDatasets, s.InputJobs, s.SharedInputJobs, s.MostReadInput, s.MostReadJobs)
	}
	// A dataset of one job: no sharing.
	w, ds, err = swim.Import(strings.NewReader("job0\t1\t1\t10\t0\t1\n"), "one", swim.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out := Format(Describe(w, ds)); !strings.Contains(out, "inputs: 1 distinct datasets read by 1 jobs; no two jobs read the same input\n") {
		t.Errorf("Format:\n%s", out)
	}
}

func TestCoflowFB2010(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(traceDir, "coflow", "FB2010-1Hr-150-0.txt"))
	if err != nil {
		t.Fatalf("trace missing from traces/: %v", err)
	}
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 150, HostsPerRack: 1, Slots: 1, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, ds, err := coflow.Import(bytes.NewReader(data), "fb", topo, coflow.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := Describe(w, ds)
	// pushbox.md §5.2: 360 of the 526 coflows are below 100 MB.
	if s.Jobs != 526 || s.PushBox[0].Jobs+s.PushBox[1].Jobs != 360 || s.ShuffleBytes != 35533534*coflow.MB || s.InputBytes != s.ShuffleBytes {
		t.Errorf("%+v", s)
	}
}

// The generators' workloads: job DAGs, recurring sets, queues.
func TestGenerated(t *testing.T) {
	w, ds, err := tpch.Generate(tpch.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := Describe(w, ds)
	if s.DAGs != 22 || math.Abs(s.DAGDepthMean-98.0/22) > 1e-9 || s.JobDAGDepth != 9 || s.RecurringSets != 110 || s.LastArrival >= 600 || len(s.MissingDatasets) > 0 {
		t.Errorf("tpch: %d DAGs of mean depth %g, max %d, %d recurring sets", s.DAGs, s.DAGDepthMean, s.JobDAGDepth, s.RecurringSets)
	}
	o := tpch.DefaultOptions()
	o.MultiStage = true
	w, ds, _ = tpch.Generate(o)
	if s = Describe(w, ds); s.DAGs != 22 || s.DAGDepthMean != 1 || s.StageDepth != 10 || s.RecurringSets != 22 {
		t.Errorf("tez: %d DAGs of mean depth %g, stage depth %d, %d recurring sets", s.DAGs, s.DAGDepthMean, s.StageDepth, s.RecurringSets)
	}
	mo := ml.DefaultOptions()
	mo.Workloads = 310
	w, ds, _ = ml.Generate(mo)
	if s = Describe(w, ds); s.DAGs != 310 || s.DAGDepthMean < 12 || s.DAGDepthMean > 15.5 || s.JobDAGDepth != 21 {
		t.Errorf("ml: %d DAGs of mean depth %g", s.DAGs, s.DAGDepthMean)
	}
	ro := recurring.DefaultOptions()
	ro.AdHoc = 50
	w, ds, _, _ = recurring.Generate(ro)
	s = Describe(w, ds)
	if s.DAGs != 150 || s.RecurringJobs != 100 || s.RecurringSets != 100 || !reflect.DeepEqual(s.Queues, map[string]int{"adhoc": 50}) {
		t.Errorf("recurring: %+v", s)
	}
	if out := Format(s); !strings.Contains(out, "recurring: 100 jobs in 100 sets; queues: adhoc 50") {
		t.Errorf("Format:\n%s", out)
	}
	m, _ := mix.Preset("hibench-large")
	w, ds, _ = mix.Generate(m, mix.DefaultOptions())
	if s = Describe(w, ds); s.DAGs != 1 || s.JobDAGDepth != 35 {
		t.Errorf("hibench, one at a time: %d DAGs, depth %d", s.DAGs, s.JobDAGDepth)
	}
}

// A long chain of jobs, each reading the output of the one after it in
// the file, is described without a deep stack (held to 16 MiB here,
// which 100,000 recursive calls overflow): before, its job sizes and
// levels were walked recursively, and a chain of 800,000 jobs ended
// `datagen describe` in a fatal stack overflow.
func TestLongChainNeedsNoDeepStack(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	const n = 100_000
	w := &workload.Workload{Jobs: make([]workload.Job, n)}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		j.ID = fmt.Sprintf("j%d", i)
		j.Stages = []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1}}
		if i < n-1 {
			j.Parents = []string{fmt.Sprintf("j%d", i+1)}
			j.Stages[0].Input = fmt.Sprintf("@j%d", i+1)
		}
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 1 << 20, BlockSize: 1 << 20, Replication: 1}}}
	s := Describe(w, ds)
	if s.JobDAGDepth != n || s.JobsWithParents != n-1 {
		t.Errorf("depth %d, %d jobs with parents; want %d and %d", s.JobDAGDepth, s.JobsWithParents, n, n-1)
	}
}
