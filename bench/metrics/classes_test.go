package metrics

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// attemptOf is a finished attempt of data class c that read crossRead
// bytes across racks and wrote crossOut bytes of output replicas to
// other racks.
func attemptOf(id int, c engine.Class, crossRead, crossOut int64, outcome engine.AttemptOutcome, note engine.DecisionNote) *engine.AttemptRecord {
	a := &engine.AttemptRecord{JobName: "j", InputClass: c, Kind: workload.Map}
	a.ID = engine.AttemptID(id)
	a.Source.Host = -1
	a.Outcome = outcome
	a.Note = note
	a.Bytes[c][engine.LevelLocal] = 7
	a.Bytes[c][engine.LevelCross] = crossRead
	a.Bytes[engine.ClassOutput][engine.LevelCross] = crossOut
	if c != engine.ClassInput && c != engine.ClassDependent {
		a.Kind = workload.Reduce
	}
	return a
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// attempts.csv says per attempt what data it read and what its policy
// acted on; the summary counts Dawn's task classification (§5.3, §6.3)
// from the successful attempts.
func TestTaskClassification(t *testing.T) {
	dir := t.TempDir()
	r, err := NewRecorder(dir, &workload.Workload{Jobs: []workload.Job{{ID: "j"}}})
	if err != nil {
		t.Fatal(err)
	}
	unsat := engine.DecisionNote{Saturation: engine.Unsaturated, Reason: "aggregate"}
	sat := engine.DecisionNote{Saturation: engine.Saturated, Reason: "zero-traffic"}
	ok := engine.AttemptSucceeded
	recs := []*engine.AttemptRecord{
		attemptOf(0, engine.ClassInput, 100, 0, ok, unsat),                                  // input, cross, unsaturated
		attemptOf(1, engine.ClassInput, 0, 0, ok, sat),                                      // input, zero-traffic, saturated
		attemptOf(2, engine.ClassDependent, 0, 50, ok, sat),                                 // output replicas are not reads: zero-traffic
		attemptOf(3, engine.ClassShuffle, 10, 0, ok, sat),                                   // intermediate, cross, saturated
		attemptOf(4, engine.ClassShuffle, 10, 0, engine.AttemptFailed, unsat),               // not successful: not counted
		attemptOf(5, engine.ClassShuffle, 0, 0, ok, engine.DecisionNote{}),                  // no note
		attemptOf(6, engine.ClassShuffle, 0, 0, ok, engine.DecisionNote{Reason: "unaware"}), // network unknown
	}
	for _, a := range recs {
		if err := r.Attempt(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s := r.Finish("dawn", 1, nil, nil, nil)
	if s.InputTasks != 2 || s.DepInterTasks != 4 || s.InputTasksCrossFrac != 0.5 || s.DepInterTasksCrossFrac != 0.25 {
		t.Errorf("classes: input %d (cross %g), dependent+intermediate %d (cross %g); want 2 (0.5), 4 (0.25)",
			s.InputTasks, s.InputTasksCrossFrac, s.DepInterTasks, s.DepInterTasksCrossFrac)
	}
	if s.TrafficTasksUnsaturatedFrac != 0.5 || s.ZeroTrafficTasksSaturatedFrac != 1 {
		t.Errorf("traffic tasks unsaturated %g, zero-traffic tasks saturated %g; want 0.5, 1", s.TrafficTasksUnsaturatedFrac, s.ZeroTrafficTasksSaturatedFrac)
	}
	row := s.Row()
	for col, want := range map[string]string{"input_tasks": "2", "dep_inter_tasks": "4", "input_tasks_cross_frac": "0.500000",
		"traffic_tasks_unsaturated_frac": "0.500000", "zero_traffic_tasks_saturated_frac": "1.000000"} {
		if got := row[slices.Index(SummaryHeader, col)]; got != want {
			t.Errorf("summary %s = %q, want %q", col, got, want)
		}
	}

	rows := readCSV(t, filepath.Join(dir, "attempts.csv"))
	head := rows[0]
	if !slices.Equal(head[len(head)-4:], []string{"data_class", "net_saturated", "reason", "source_host"}) {
		t.Fatalf("attempts.csv header %v: the new columns are not last", head)
	}
	want := [][3]string{
		{"input", "0", "aggregate"}, {"input", "1", "zero-traffic"}, {"dependent", "1", "zero-traffic"},
		{"intermediate", "1", "zero-traffic"}, {"intermediate", "0", "aggregate"}, {"intermediate", "", ""}, {"intermediate", "", "unaware"},
	}
	for i, w := range want {
		row := rows[i+1]
		if got := [3]string(row[len(row)-4 : len(row)-1]); got != w {
			t.Errorf("attempt %d: %v, want %v", i, got, w)
		}
	}
}

// A run whose policy notes nothing (Fair) has no value for the shares of
// noted attempts, nor for a class it ran no task of: NaN in the summary,
// empty cells in summary.csv.
func TestTaskClassificationWithoutNotes(t *testing.T) {
	dir := t.TempDir()
	r, err := NewRecorder(dir, &workload.Workload{Jobs: []workload.Job{{ID: "j"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Attempt(attemptOf(0, engine.ClassInput, 5, 0, engine.AttemptSucceeded, engine.DecisionNote{})); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s := r.Finish("fair", 1, nil, nil, nil)
	if s.InputTasksCrossFrac != 1 || !math.IsNaN(s.DepInterTasksCrossFrac) || !math.IsNaN(s.TrafficTasksUnsaturatedFrac) || !math.IsNaN(s.ZeroTrafficTasksSaturatedFrac) {
		t.Fatalf("shares %g %g %g %g, want 1 NaN NaN NaN", s.InputTasksCrossFrac, s.DepInterTasksCrossFrac, s.TrafficTasksUnsaturatedFrac, s.ZeroTrafficTasksSaturatedFrac)
	}
	path := filepath.Join(dir, "summary.csv")
	if err := WriteSummaries(path, []Summary{s}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	for _, col := range []string{"dep_inter_tasks_cross_frac", "traffic_tasks_unsaturated_frac", "zero_traffic_tasks_saturated_frac"} {
		k := slices.Index(rows[0], col)
		if !MayBeEmpty(col) || rows[1][k] != "" {
			t.Errorf("%s: cell %q (may be empty: %v), want empty", col, rows[1][k], MayBeEmpty(col))
		}
	}
	if MayBeEmpty("input_tasks") || MayBeEmpty("jct_mean_s") {
		t.Error("a count or another metric may be empty")
	}
}

// The memory-, SSD- and HDD-local shares (Trident's buckets) count the
// node-local map reads by tier over all map reads with a source; a
// rack-local memory read is in tier_mem_frac but not in mem_local_frac.
func TestLocalTierShares(t *testing.T) {
	dir := t.TempDir()
	r, err := NewRecorder(dir, &workload.Workload{Jobs: []workload.Job{{ID: "j"}}})
	if err != nil {
		t.Fatal(err)
	}
	read := func(id int, level engine.Locality, tier cluster.TierKind) *engine.AttemptRecord {
		a := attemptOf(id, engine.ClassInput, 0, 0, engine.AttemptSucceeded, engine.DecisionNote{})
		a.Source.Host, a.Locality, a.Tier = 0, level, tier
		return a
	}
	for i, a := range []*engine.AttemptRecord{
		read(0, engine.NodeLocal, cluster.Mem), read(1, engine.NodeLocal, cluster.Mem),
		read(2, engine.NodeLocal, cluster.HDD), read(3, engine.RackLocal, cluster.Mem),
	} {
		if err := r.Attempt(a); err != nil {
			t.Fatal(i, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s := r.Finish("trident", 1, nil, nil, nil)
	if s.LocalTierFrac != [cluster.NumTierKinds]float64{0.5, 0, 0.25} || s.TierFrac[cluster.Mem] != 0.75 || s.NodeLocalFrac != 0.75 {
		t.Errorf("local by tier %v, memory %g, node-local %g; want [0.5 0 0.25], 0.75, 0.75", s.LocalTierFrac, s.TierFrac[cluster.Mem], s.NodeLocalFrac)
	}
	path := filepath.Join(dir, "summary.csv")
	if err := WriteSummaries(path, []Summary{s}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if k := slices.Index(rows[0], "mem_local_frac"); k < 0 || rows[1][k] != "0.500000" {
		t.Errorf("summary.csv mem_local_frac: column %d of %v", k, rows[1])
	}
}
