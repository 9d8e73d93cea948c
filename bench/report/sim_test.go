package report

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/datagen/swim"
)

const fbTrace = "../../traces/swim/FB-2009_samples_24_times_1hr_0.tsv"

// simCampaign simulates a few hundred jobs of the FB-2009 trace with two
// policies and two seeds into dir/sim, as a campaign with a meta.json.
func simCampaign(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(fbTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts := swim.DefaultOptions()
	opts.MaxJobs = 300
	w, ds, err := swim.Import(f, fbTrace, opts)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 5, Slots: 8, NICBps: 1e9 / 8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sim")
	var rows []metrics.Summary
	for _, seed := range []uint64{1, 2} {
		for _, pol := range []string{"fifo", "fair"} {
			s, _, err := sim.RunOne(sim.Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: pol}, Seed: seed,
				SlowStart: 0.05, Dir: sim.RunDir(out, pol, seed)})
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, s)
		}
	}
	if err := metrics.WriteSummaries(filepath.Join(out, "summary.csv"), rows); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "meta.json"), `{"trace": "FB-2009", "max_jobs": 300}`)
}

// TestRealSim checks the report of a real simulation against its
// summary.csv, read independently: every policy's mean of the per-run
// jct_mean_s, its CI (computed, but with two repetitions shown as the two
// values, not as an interval) and its change against the baseline.
func TestRealSim(t *testing.T) {
	dir := t.TempDir()
	simCampaign(t, dir)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "sim", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	byPolicy := map[string][]float64{}
	var order []string
	for _, rec := range recs[1:] {
		x, err := strconv.ParseFloat(rec[col["jct_mean_s"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		p := rec[col["policy"]]
		if _, ok := byPolicy[p]; !ok {
			order = append(order, p)
		}
		byPolicy[p] = append(byPolicy[p], x)
	}
	if len(order) != 2 || len(recs) != 5 {
		t.Fatalf("summary.csv has %d rows, policies %v", len(recs)-1, order)
	}
	html, md := readFile(t, r.HTMLPath), readFile(t, r.MarkdownPath)
	m := r.Modes[0]
	base := (byPolicy[order[0]][0] + byPolicy[order[0]][1]) / 2
	for _, p := range order {
		xs := byPolicy[p]
		mean := (xs[0] + xs[1]) / 2
		hw := 12.706204736 * math.Abs(xs[0]-xs[1]) / math.Sqrt2 / math.Sqrt2
		row := m.Row("jct_mean_s", p)
		if math.Abs(row.Stat.Mean-mean) > 1e-9*math.Max(1, mean) || math.Abs(row.Stat.HalfWidth-hw) > 1e-6*math.Max(1, hw) {
			t.Errorf("%s: mean %g ± %g, want %g ± %g", p, row.Stat.Mean, row.Stat.HalfWidth, mean, hw)
		}
		f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
		text := f2(mean) + " (values " + f2(xs[0]) + ", " + f2(xs[1]) + "; no CI)"
		if row.CIText != "–" {
			t.Errorf("%s: CI %s shown for two repetitions", p, row.CIText)
		}
		rel := "baseline"
		if p != order[0] {
			rel = FormatRel((mean - base) / base)
		}
		if !strings.Contains(html, `<td>`+p+`</td><td class="num">2</td><td class="num">`+text+`</td>`) {
			t.Errorf("report.html lacks %s's JCT mean %s", p, text)
		}
		if !strings.Contains(md, " | 2 | "+text+" | ") || !strings.Contains(md, text+" | "+row.CIText+" | "+rel+" |") {
			t.Errorf("report.md lacks %s's JCT mean %s (%s)", p, text, rel)
		}
	}
	if len(r.Figures()) != 7 {
		t.Errorf("%d figures", len(r.Figures()))
	}
	if !strings.Contains(html, "<td><code>trace</code></td><td>FB-2009</td>") {
		t.Error("meta.json missing from report.html")
	}
}
