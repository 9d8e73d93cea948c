package campaign

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/local"
)

// fidelityCampaign runs the same two shuffle-heavy jobs, same seed, on an
// emulated 3-rack × 2-host cluster in switched mode (rack links shaped on
// the rack switch's veths) and in flat mode (each worker shapes its own
// traffic, sharing its rack's links by demand: share_links defaults to
// true). 25 MB/s NICs, 4:1 oversubscribed: 12.5 MB/s rack links, which the
// shuffles (2/3 of each job's map output, 768 and 384 MiB, crosses racks)
// keep busy for about 16 and 8 seconds. Compute sleeps, so that the machine's cores go to the
// data plane.
//
// The placement is the same in both modes by construction, so that the
// test compares the networks and not two schedules: every host holds two
// blocks of each input and has two slots, so each job's twelve maps run
// in one wave, node-local, and its twelve reducers fill every slot (two
// per host) whatever order the hosts are offered in; the second job starts
// when the first has finished (it is the first's child). The test checks
// that the hosts match.
const fidelityCampaign = `name: fidelity
cluster: {racks: 3, hosts_per_rack: 2, slots: 2, nic_gbps: 0.2, oversubscription: 4}
workload:
  file: workload.yaml
  datasets: datasets.yaml
seed: 1
limits: {max_run_time: 2m}
runs:
  - {mode: local, policies: [fifo], network: switched, compute: sleep}
  - {mode: local, name: flat, policies: [fifo], network: flat, compute: sleep}
`

const fidelityWorkload = `jobs:
  - id: sort-a
    arrival_s: 0
    stages:
      - {name: map, kind: map, input: a, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 12, after: [map], selectivity: 1}
  - id: sort-b
    arrival_s: 0
    parents: [sort-a]
    stages:
      - {name: map, kind: map, input: b, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 12, after: [map], selectivity: 1}
`

// fidelityDatasets places datasets a (12 × 64 MiB) and b (12 × 32 MiB),
// two blocks on every host, on its SSD.
//
// Jobs of this length, not shorter: flat mode takes a fixed 0.3-0.7 s
// longer than a switch to converge on its shares (when a shuffle starts,
// and as reducers finish and the flows change), one or two 100 ms demand
// exchanges each time. With a quarter of these inputs (jobs of 2 and 4 s)
// flat mode's mean JCT was +14% to +25% of switched's in three runs, with
// its links within 10% in the busy samples; with these it is +2% to +4%.
func fidelityDatasets() string {
	var b strings.Builder
	b.WriteString("datasets:\n")
	for _, d := range []struct {
		name  string
		block int
	}{{"a", 64 << 20}, {"b", 32 << 20}} {
		fmt.Fprintf(&b, "  - name: %s\n    blocks:\n", d.name)
		for i := range 12 {
			fmt.Fprintf(&b, "      - {size_bytes: %d, replicas: [\"r%dh%d:ssd\"]}\n", d.block, i%6/2, i%2)
		}
	}
	return b.String()
}

// Issue 16's fidelity test: the same campaign in switched and in flat
// mode (sharing on). A rack link is saturated in a sample (links.csv, one
// per 0.5 s) where switched mode carries at least 90% of its rate; over
// each link's N saturated samples in switched mode, flat mode's N busiest
// samples of that link carry on average within 10% of switched's mean
// (the two runs do not start their shuffles at the same instant, so the
// samples are matched by rank, not by time). The jobs' mean completion
// time is within 15%. Needs root.
//
// RACKLAB_FIDELITY_OUT=DIR keeps the runs' results in DIR.
func TestFlatMatchesSwitched(t *testing.T) {
	if testing.Short() {
		t.Skip("two emulated runs of about 30 s each")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bench")
	build := exec.Command("go", "build", "-o", bin, "github.com/racklab/racklab/bench")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build bench: %v\n%s", err, out)
	}
	for name, text := range map[string]string{"c.yaml": fidelityCampaign, "workload.yaml": fidelityWorkload, "datasets.yaml": fidelityDatasets()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Runs[1].ShareLinks {
		t.Fatal("the flat run set does not share its rack links by default")
	}
	prefix := fmt.Sprintf("ff%d", os.Getpid()%10000)
	t.Cleanup(func() {
		// a failed run takes its cluster down; this is for a crash in between
		left, err := local.Leftovers(prefix)
		if err != nil || len(left) > 0 {
			t.Errorf("left behind: %v %v", left, err)
			_ = local.Cleanup(prefix)
		}
	})
	out := filepath.Join(dir, "out")
	if keep := os.Getenv("RACKLAB_FIDELITY_OUT"); keep != "" {
		out = keep // kept for a look at the runs
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	if err := Execute(ctx, c, Options{Out: out, WorkerCommand: []string{bin, "worker"}, Prefix: prefix, Logf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	t.Logf("both runs took %v", time.Since(start).Round(time.Second))
	sw, fl := filepath.Join(out, "local", "fifo-seed1"), filepath.Join(out, "local-flat", "fifo-seed1")
	if a, b := readPlacement(t, sw), readPlacement(t, fl); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the two modes placed the tasks differently, so they do not compare the networks alone:\nswitched %v\nflat     %v", a, b)
	}
	swLinks, flLinks := readLinks(t, sw), readLinks(t, fl)
	const saturated = 0.9
	compared := 0
	for _, k := range sortedKeys(swLinks) {
		s := swLinks[k]
		var sat []float64
		for _, u := range s {
			if u >= saturated {
				sat = append(sat, u)
			}
		}
		f := append([]float64(nil), flLinks[k]...)
		sort.Sort(sort.Reverse(sort.Float64Slice(f)))
		if len(sat) < 2 {
			t.Logf("%s: %d saturated samples in switched mode (busiest %.3f), flat's busiest %.3f: not compared", k, len(sat), maxOf(s), maxOf(f))
			continue
		}
		if len(f) < len(sat) {
			t.Errorf("%s: flat mode has %d samples, switched %d saturated ones", k, len(f), len(sat))
			continue
		}
		compared++
		ms, mf := mean(sat), mean(f[:len(sat)])
		t.Logf("%s: switched saturated in %d samples, mean %.3f of the link's rate; flat's %d busiest, mean %.3f (%+.1f%%); cross-rack bytes over the run: flat/switched %.3f",
			k, len(sat), ms, len(sat), mf, 100*(mf/ms-1), sum(flLinks[k])/sum(s))
		if math.Abs(mf/ms-1) > 0.10 {
			t.Errorf("%s: flat mode carried %.3f of the link's rate over its %d busiest samples, switched %.3f over its saturated ones: off by %+.1f%%, want within 10%%",
				k, mf, len(sat), ms, 100*(mf/ms-1))
		}
	}
	for _, dir := range []string{"up", "down"} {
		t.Logf("mean %slink utilisation per 0.5 s, switched: %s", dir, series(swLinks, dir))
		t.Logf("mean %slink utilisation per 0.5 s, flat:     %s", dir, series(flLinks, dir))
	}
	if compared == 0 {
		t.Error("no rack link was saturated in switched mode: the campaign does not test what it should")
	}
	swJCT, flJCT := readJCTs(t, sw), readJCTs(t, fl)
	if len(swJCT) != 2 || len(flJCT) != 2 {
		t.Fatalf("finished jobs: switched %v, flat %v, want both of 2", swJCT, flJCT)
	}
	var ms, mf float64
	for job, s := range swJCT {
		f, ok := flJCT[job]
		if !ok {
			t.Fatalf("job %s finished in switched mode, not in flat", job)
		}
		t.Logf("job %s: JCT switched %.2f s, flat %.2f s (%+.1f%%)", job, s, f, 100*(f/s-1))
		ms += s / float64(len(swJCT))
		mf += f / float64(len(swJCT))
	}
	t.Logf("mean JCT: switched %.2f s, flat %.2f s (%+.1f%%)", ms, mf, 100*(mf/ms-1))
	if math.Abs(mf/ms-1) > 0.15 {
		t.Errorf("mean JCT: flat %.2f s, switched %.2f s: off by %+.1f%%, want within 15%%", mf, ms, 100*(mf/ms-1))
	}
}

// readLinks reads a run's links.csv: each rack link's ("up 0", "down 2")
// utilisation samples in time order.
func readLinks(t *testing.T, run string) map[string][]float64 {
	t.Helper()
	rows := readCSV(t, filepath.Join(run, "links.csv"))
	out := map[string][]float64{}
	for _, r := range rows {
		u, err := strconv.ParseFloat(r["utilisation"], 64)
		if err != nil {
			t.Fatalf("%s links.csv: %v", run, err)
		}
		k := r["direction"] + " " + r["rack"]
		out[k] = append(out[k], u)
	}
	return out
}

// readPlacement reads how many of each stage's succeeded attempts ran on
// each host ("job/stage@host×n", sorted). Reducers of a stage are alike
// (their partitions are equal), so which index runs where does not matter.
func readPlacement(t *testing.T, run string) []string {
	t.Helper()
	n := map[string]int{}
	for _, r := range readCSV(t, filepath.Join(run, "attempts.csv")) {
		if r["outcome"] == "succeeded" {
			n[r["job"]+"/"+r["stage"]+"@"+r["host"]]++
		}
	}
	var out []string
	for k, c := range n {
		out = append(out, fmt.Sprintf("%s×%d", k, c))
	}
	sort.Strings(out)
	return out
}

// readJCTs reads a run's finished jobs' completion times by job, from
// their submission (a child job is submitted when its parent finishes).
func readJCTs(t *testing.T, run string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range readCSV(t, filepath.Join(run, "jobs.csv")) {
		if r["state"] == "failed" || r["state"] == "unfinished" {
			continue
		}
		sub, err1 := strconv.ParseFloat(r["submitted_s"], 64)
		fin, err2 := strconv.ParseFloat(r["finished_s"], 64)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("%s jobs.csv: %v", run, err)
		}
		out[r["job"]] = fin - sub
	}
	return out
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v (%d records)", path, err, len(recs))
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		out = append(out, m)
	}
	return out
}

func sortedKeys(m map[string][]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func mean(xs []float64) float64 { return sum(xs) / float64(len(xs)) }

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// series is the mean over racks of one direction's samples, as text.
func series(links map[string][]float64, dir string) string {
	var acc []float64
	n := 0
	for k, xs := range links {
		if len(k) <= len(dir) || k[:len(dir)+1] != dir+" " {
			continue
		}
		n++
		for i, x := range xs {
			if i >= len(acc) {
				acc = append(acc, 0)
			}
			acc[i] += x
		}
	}
	out := ""
	for _, x := range acc {
		out += fmt.Sprintf(" %.2f", x/float64(max(n, 1)))
	}
	return out
}
