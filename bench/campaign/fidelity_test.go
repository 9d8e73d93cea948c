package campaign

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/local"
)

// fidelityCampaign runs the same two shuffle-heavy jobs, same seed, on an
// emulated 3-rack × 2-host cluster in switched mode (rack links shaped on
// the rack switch's veths) and in flat mode (each worker shapes its own
// traffic, sharing its rack's links by demand: share_links defaults to
// true). 25 MB/s NICs, 4:1 oversubscribed: 12.5 MB/s rack links, which the
// shuffles (2/3 of 2 × 192 MiB crosses racks) keep busy for several
// seconds. Compute sleeps, so that the machine's cores go to the data
// plane.
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
      - {name: reduce, kind: reduce, tasks: 6, after: [map], selectivity: 1}
  - id: sort-b
    arrival_s: 1
    stages:
      - {name: map, kind: map, input: b, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 6, after: [map], selectivity: 1}
`

const fidelityDatasets = `block_size_bytes: 16777216
replication: 1
datasets:
  - {name: a, size_bytes: 201326592}
  - {name: b, size_bytes: 201326592}
`

// Issue 16's fidelity test: the same campaign in switched and in flat
// mode (sharing on). A rack link is saturated in a sample (links.csv, one
// per 0.5 s) where switched mode carries at least 90% of its rate; over
// each link's N saturated samples in switched mode, flat mode's N busiest
// samples of that link carry on average within 10% of switched's mean
// (the two runs do not start their shuffles at the same instant, so the
// samples are matched by rank, not by time). The jobs' mean completion
// time is within 15%. Needs root.
//
// It does not hold yet (flat mode's sender and receiver classes each cut
// the other's flows: issue 16 stays open), so it runs only when asked,
// RACKLAB_FIDELITY=1, not in make test: a test that always fails would
// only hide the others' results.
func TestFlatMatchesSwitched(t *testing.T) {
	if os.Getenv("RACKLAB_FIDELITY") != "1" {
		t.Skip("flat mode does not match switched yet (issue 16): RACKLAB_FIDELITY=1 runs it")
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
	for name, text := range map[string]string{"c.yaml": fidelityCampaign, "workload.yaml": fidelityWorkload, "datasets.yaml": fidelityDatasets} {
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	if err := Execute(ctx, c, Options{Out: out, WorkerCommand: []string{bin, "worker"}, Prefix: prefix, Logf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	t.Logf("both runs took %v", time.Since(start).Round(time.Second))
	sw, fl := filepath.Join(out, "local", "fifo-seed1"), filepath.Join(out, "local-flat", "fifo-seed1")
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

// readJCTs reads a run's finished jobs' completion times by job.
func readJCTs(t *testing.T, run string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range readCSV(t, filepath.Join(run, "jobs.csv")) {
		if r["state"] == "failed" || r["state"] == "unfinished" {
			continue
		}
		x, err := strconv.ParseFloat(r["jct_s"], 64)
		if err != nil {
			t.Fatalf("%s jobs.csv: %v", run, err)
		}
		out[r["job"]] = x
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
