package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// fakeRun is a run to write as a result-set record.
type fakeRun struct {
	policy string
	seed   uint64
	values map[string]float64 // summary.csv columns; the rest get defaults
	jcts   []float64
}

func defaultValue(col string) float64 {
	switch col {
	case "jobs":
		return 4
	case "failed_jobs", "hosts_lost":
		return 0
	case "node_local_frac":
		return 0.6
	case "rack_local_frac":
		return 0.3
	case "remote_frac":
		return 0.1
	case "tier_mem_frac":
		return 0.2
	case "tier_ssd_frac":
		return 0.3
	case "tier_hdd_frac":
		return 0.5
	case "link_skew":
		return 1.5
	case "cross_input_bytes", "cross_shuffle_bytes":
		return 1e9
	case "cross_rack_bytes", "measured_cross_rack_bytes":
		return 2e9
	}
	return 100
}

func formatCell(x float64) string {
	if math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', 6, 64)
}

// writeSet writes summary.csv and every run's jobs.csv and links.csv.
func writeSet(t *testing.T, dir string, runs []fakeRun) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(metrics.SummaryHeader, ",") + "\n")
	for _, r := range runs {
		var row []string
		for _, col := range metrics.SummaryHeader {
			switch col {
			case "policy":
				row = append(row, r.policy)
			case "seed":
				row = append(row, strconv.FormatUint(r.seed, 10))
			default:
				v, ok := r.values[col]
				if !ok {
					v = defaultValue(col)
				}
				row = append(row, formatCell(v))
			}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
		rd := filepath.Join(dir, fmt.Sprintf("%s-seed%d", r.policy, r.seed))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		jcts := r.jcts
		if jcts == nil {
			jcts = []float64{1, 2, 5, 40}
		}
		var j strings.Builder
		j.WriteString("job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason\n")
		for i, x := range jcts {
			fmt.Fprintf(&j, "job%d,default,succeeded,%d.000000,%d.000000,%d.000000,%s,%s,2,2,\n", i, i, i, i, formatCell(float64(i)+x), formatCell(x))
		}
		fmt.Fprintf(&j, "jobx,default,failed,0.000000,0.000000,0.000000,9999.000000,9999.000000,2,2,every replica is lost\n")
		writeFile(t, filepath.Join(rd, "jobs.csv"), j.String())
		var l strings.Builder
		l.WriteString("time_s,direction,rack,utilisation\n")
		for k := 1; k <= 30; k++ {
			for rack := range 2 {
				u := 0.1 * float64((k+rack+int(r.seed))%7)
				fmt.Fprintf(&l, "%d.000000,up,%d,%s\n%d.000000,down,%d,%s\n", 10*k, rack, formatCell(u), 10*k, rack, formatCell(u/2))
			}
		}
		writeFile(t, filepath.Join(rd, "links.csv"), l.String())
		writeFile(t, filepath.Join(rd, "attempts.csv"), "job,stage\n")
	}
	writeFile(t, filepath.Join(dir, "summary.csv"), b.String())
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// knownRuns are runs with known metrics: fifo and fair have three
// repetitions, capacity one.
func knownRuns() []fakeRun {
	v := func(jct, makespan, cross, skew float64) map[string]float64 {
		return map[string]float64{"jct_mean_s": jct, "makespan_s": makespan, "cross_rack_bytes": cross, "link_skew": skew}
	}
	return []fakeRun{
		{policy: "fifo", seed: 1, values: v(10, 100, 1e9, 1.2)},
		{policy: "fair", seed: 1, values: v(8, 90, 4e9, 1.1), jcts: []float64{0.01, 0.5, 3, 300}},
		{policy: "capacity", seed: 1, values: v(15, 130, 5e9, math.Inf(1))},
		{policy: "fifo", seed: 2, values: v(12, 110, 2e9, 1.4)},
		{policy: "fair", seed: 2, values: v(9, 95, 4e9, 1.3)},
		{policy: "fifo", seed: 3, values: v(14, 120, 3e9, 1.6)},
		{policy: "fair", seed: 3, values: v(10, 100, 4e9, 1.5)},
	}
}
