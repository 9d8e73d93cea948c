package campaign

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// twoWorkloads is a campaign of two tiny named workloads, ml and tpch;
// runs is its runs section.
func twoWorkloads(runs string) string {
	return `name: wl
cluster: {racks: 2, hosts_per_rack: 3}
workloads:
  ml:
    generator: {name: ml, workloads: 3, duration: 60, scale: 0.001, labels: [B1, B2]}
  tpch:
    generator: {name: tpch, scale_factor: 1, scale: 0.01, queries: [1, 6], window: 30, rounds: 1}
` + runs
}

func TestNamedWorkloadsParse(t *testing.T) {
	c, err := Load(writeCampaign(t, twoWorkloads("runs:\n  - {mode: sim, policies: [fifo]}\n  - {mode: local, policies: [fair], workloads: [tpch]}\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Named() || !slices.Equal(c.WorkloadNames(), []string{"ml", "tpch"}) {
		t.Fatalf("workloads %v, want ml, tpch in file order", c.WorkloadNames())
	}
	g := c.Workloads[0].Spec.Generator
	if g == nil || g.Duration != 60 || !slices.Equal(g.Labels, []string{"B1", "B2"}) || g.Workloads != 3 {
		t.Fatalf("ml generator %+v", g)
	}
	if g := c.Workloads[1].Spec.Generator; g == nil || g.Window != 30 || g.Rounds != 1 || !slices.Equal(g.Queries, []int{1, 6}) {
		t.Fatalf("tpch generator %+v", g)
	}
	if !slices.Equal(c.Runs[0].Workloads, []string{"ml", "tpch"}) || !slices.Equal(c.Runs[1].Workloads, []string{"tpch"}) {
		t.Fatalf("run set workloads %v and %v, want all by default, then tpch", c.Runs[0].Workloads, c.Runs[1].Workloads)
	}
	var ids []string
	for _, r := range c.Matrix("out") {
		ids = append(ids, r.ID())
	}
	want := []string{"sim/ml/fifo-seed1", "sim/tpch/fifo-seed1", "local/tpch/fair-seed1"}
	if !slices.Equal(ids, want) {
		t.Fatalf("matrix %v, want %v", ids, want)
	}
	if d := c.Matrix("out")[0].Dir; d != filepath.Join("out", "sim", "ml", "fifo-seed1") {
		t.Fatalf("run directory %s", d)
	}
}

func TestNamedWorkloadErrorsNameTheirLine(t *testing.T) {
	head := "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"
	runs := "runs: [{mode: sim, policies: [fifo]}]\n"
	gen := "    generator: {name: ml}\n"
	cases := map[string]struct{ text, want string }{
		"both": {head + "workload: {file: w.yaml}\nworkloads:\n  a:\n" + gen + runs,
			"c.yaml:4: campaign: give either workload (one workload) or workloads (named workloads), not both"},
		"neither":    {head + runs, `missing field "workload"`},
		"empty map":  {head + "workloads: {}\n" + runs, "c.yaml:3: workloads: workloads names no workload"},
		"slash name": {head + "workloads:\n  a/b:\n" + gen + runs, `c.yaml:4: workloads: the workload name "a/b" names a directory`},
		"dot name":   {head + "workloads:\n  ..:\n" + gen + runs, `c.yaml:4: workloads: the workload name ".." names a directory`},
		"twice":      {head + "workloads:\n  a:\n" + gen + "  a:\n" + gen + runs, `c.yaml:6: workloads: field "a" given twice`},
		"empty one":  {head + "workloads:\n  a:\n" + runs, "workload a is empty"},
		"bad spec":   {head + "workloads:\n  a:\n    generator: {name: nope}\n" + runs, `c.yaml:5: workloads a generator: unknown generator "nope"`},
		"unknown in run set": {head + "workloads:\n  a:\n" + gen + "runs:\n  - mode: sim\n    policies: [fifo]\n    workloads: [a, b]\n",
			`c.yaml:9: runs[0]: unknown workload "b": the campaign's workloads are a`},
		"listed twice": {head + "workloads:\n  a:\n" + gen + "runs:\n  - mode: sim\n    policies: [fifo]\n    workloads: [a, a]\n",
			"c.yaml:9: runs[0]: workload a is listed twice"},
		"run set lists none": {head + "workloads:\n  a:\n" + gen + "runs:\n  - mode: sim\n    policies: [fifo]\n    workloads: []\n",
			"c.yaml:9: runs[0]: workloads lists no workload"},
		"run set workloads of one workload": {head + "workload:\n" + gen + "runs:\n  - mode: sim\n    policies: [fifo]\n    workloads: [a]\n",
			"c.yaml:8: runs[0]: the campaign has one workload"},
		"option of another generator": {head + "workload:\n  generator: {name: tpch, duration: 60}\n" + runs,
			"c.yaml:4: workload generator: duration is an option of the ml and fbtiers generator, not of tpch"},
		"negative window": {head + "workload:\n  generator: {name: tpch, window: -1}\n" + runs, "c.yaml:4: workload generator: window is a span in seconds and must be positive"},
		"zero rounds":     {head + "workload:\n  generator: {name: tpch, rounds: 0}\n" + runs, "c.yaml:4: workload generator: rounds must be at least 1"},
		"bad query":       {head + "workload:\n  generator: {name: tpch, queries: [1, x]}\n" + runs, `c.yaml:4: workload generator: queries lists TPC-H query numbers: "x"`},
		"huge duration": {head + "workloads:\n  a:\n    generator: {name: ml, duration: 1e30}\n" + runs,
			"c.yaml:5: workloads a generator: duration must be at most"},
	}
	for name, c := range cases {
		_, err := Load(writeCampaign(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

// With named workloads, each mode's results hold a directory per
// workload with its own summary.csv, the inputs are made once per
// workload, and a rerun resumes every run.
func TestNamedWorkloadsLayoutAndResume(t *testing.T) {
	c, err := Load(writeCampaign(t, twoWorkloads("runs:\n  - {mode: sim, policies: [fifo, fair], repetitions: 2}\n")))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log logged
	if err := Execute(context.Background(), c, Options{Out: out, Logf: log.logf}); err != nil {
		t.Fatal(err)
	}
	for _, wl := range []string{"ml", "tpch"} {
		if got := strings.Count(strings.Join(log.lines, "\n"), "workload "+wl+": "); got != 1 {
			t.Errorf("workload %s made %d times, want once: %q", wl, got, log.lines)
		}
		if log.find("sim/"+wl+"/fair-seed2: done", "") == "" {
			t.Errorf("no log line names run sim/%s/fair-seed2: %q", wl, log.lines)
		}
		for _, run := range []string{"fifo-seed1", "fair-seed1", "fifo-seed2", "fair-seed2"} {
			if _, err := os.Stat(filepath.Join(out, "sim", wl, run, doneFile)); err != nil {
				t.Errorf("run %s of %s: %v", run, wl, err)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, "sim", wl, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != 5 {
			t.Errorf("sim/%s/summary.csv has %d lines, want a header and 4 runs", wl, n)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "sim", "summary.csv")); err == nil {
		t.Error("a mode of named workloads has a summary.csv of its own")
	}
	sets, rows := c.Summaries(out)
	if !slices.Equal(sets, []string{"sim/ml", "sim/tpch"}) || len(rows["sim/ml"]) != 4 || len(rows["sim/tpch"]) != 4 {
		t.Fatalf("summaries %v: %d and %d rows", sets, len(rows["sim/ml"]), len(rows["sim/tpch"]))
	}
	if rows["sim/ml"][0].Jobs == rows["sim/tpch"][0].Jobs {
		t.Errorf("both workloads ran %d jobs: the runs did not get their own workload", rows["sim/ml"][0].Jobs)
	}
	var again logged
	if err := Execute(context.Background(), c, Options{Out: out, Logf: again.logf}); err != nil {
		t.Fatal(err)
	}
	if again.find("resuming: 8 of 8 runs", "") == "" {
		t.Fatalf("the rerun did not keep all 8 runs: %q", again.lines)
	}
	if again.find("workload ", "jobs") != "" {
		t.Errorf("the rerun made a workload that no run needs: %q", again.lines)
	}
}

// A campaign of one workload keeps the layout of before named workloads:
// <out>/<mode>/<label>-seed<N> and <out>/<mode>/summary.csv, so that
// result directories written before resume.
func TestOneWorkloadKeepsItsLayout(t *testing.T) {
	c := tinyCampaign(t, 1)
	out := t.TempDir()
	for _, r := range c.Matrix(out) {
		if r.Workload != "" || r.Dir != filepath.Join(out, "sim", r.Policy.String()+"-seed1") || r.ID() != "sim/"+r.Policy.String()+"-seed1" {
			t.Fatalf("run %s in %s, want the layout <out>/sim/<label>-seed<N>", r.ID(), r.Dir)
		}
	}
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sim/summary.csv", "sim/fifo-seed1/done.json", "sim/capacity-seed1/jobs.csv"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Error(err)
		}
	}
	sets, rows := c.Summaries(out)
	if !slices.Equal(sets, []string{"sim"}) || len(rows["sim"]) != 3 {
		t.Fatalf("summaries %v", sets)
	}
	var log logged
	if err := Execute(context.Background(), c, Options{Out: out, Logf: log.logf}); err != nil {
		t.Fatal(err)
	}
	if log.find("resuming: 3 of 3 runs", "") == "" {
		t.Fatalf("a result directory of one workload did not resume: %q", log.lines)
	}
}

// A run set's own cluster replaces the campaign's for its runs, and a
// workload's window_s cuts its runs there, recording what was left.
func TestRunSetClusterAndWorkloadWindow(t *testing.T) {
	text := `name: own
cluster: {racks: 2, hosts_per_rack: 3}
workloads:
  long:
    generator: {name: ml, workloads: 6, duration: 60, scale: 0.001, labels: [B1, B2]}
    window_s: 20
  whole:
    generator: {name: ml, workloads: 6, duration: 60, scale: 0.001, labels: [B1, B2]}
runs:
  - {mode: sim, policies: [fair], cluster: {racks: 3, hosts_per_rack: 1, slots: 1}}
`
	c, err := Load(writeCampaign(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if c.Workloads[0].Spec.Window != 20 || c.Workloads[1].Spec.Window != 0 || c.Runs[0].Uniform == nil {
		t.Fatalf("window %g/%g, run set cluster %+v", c.Workloads[0].Spec.Window, c.Workloads[1].Spec.Window, c.Runs[0].Uniform)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	cut, whole := rows["sim/long"], rows["sim/whole"]
	if len(cut) != 1 || len(whole) != 1 {
		t.Fatalf("summaries %+v", rows)
	}
	if cut[0].WindowS != 20 || cut[0].UnfinishedJobs == 0 || cut[0].WorkloadsFinished >= whole[0].WorkloadsFinished {
		t.Errorf("windowed run: window %g s, %d unfinished jobs, %d of %d workloads finished (whole run: %d)",
			cut[0].WindowS, cut[0].UnfinishedJobs, cut[0].WorkloadsFinished, cut[0].Workloads, whole[0].WorkloadsFinished)
	}
	if whole[0].WindowS != 0 || whole[0].UnfinishedJobs != 0 {
		t.Errorf("run without a window: %+v", whole[0])
	}
	// the run set's cluster has 3 hosts of 1 slot: no attempt on a 4th host
	b, err := os.ReadFile(filepath.Join(out, "sim", "whole", "fair-seed1", "attempts.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		if host := strings.Split(line, ",")[5]; host != "0" && host != "1" && host != "2" {
			t.Fatalf("an attempt on host %s, outside the run set's 3-host cluster: %s", host, line)
		}
	}
}

func TestRunSetClusterErrorsNameTheirLine(t *testing.T) {
	text := "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {generator: {name: ml, workloads: 1}}\nruns:\n  - {mode: sim, policies: [fifo], cluster: {racks: 0, hosts_per_rack: 2}}\n"
	_, err := Parse("x.yaml", []byte(text))
	if err == nil || !strings.Contains(err.Error(), "x.yaml:5") {
		t.Fatalf("error %v, want one at x.yaml:5", err)
	}
	text = "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {generator: {name: ml, workloads: 1}, window_s: -3}\nruns: [{mode: sim, policies: [fifo]}]\n"
	if _, err = Parse("x.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), "window_s") {
		t.Fatalf("error %v, want one naming window_s", err)
	}
}

// A simulated run set's network is the simulator's rate allocation:
// maxmin by default, or varys; an emulated one's stays switched or flat.
func TestRunSetNetworkPerMode(t *testing.T) {
	head := "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {generator: {name: ml, workloads: 2, duration: 30, scale: 0.001, labels: [B1]}}\n"
	c, err := Parse("x.yaml", []byte(head+"runs:\n  - {mode: sim, policies: [fifo], network: varys}\n  - {mode: local, policies: [fifo]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[0].Network != "varys" || c.Runs[1].Network != "switched" {
		t.Fatalf("networks %q, %q", c.Runs[0].Network, c.Runs[1].Network)
	}
	if c, err = Parse("x.yaml", []byte(head+"runs: [{mode: sim, policies: [fifo]}]\n")); err != nil || c.Runs[0].Network != "maxmin" {
		t.Fatalf("default sim network: %v, %v", c, err)
	}
	for _, bad := range []string{"runs: [{mode: sim, policies: [fifo], network: switched}]\n", "runs: [{mode: local, policies: [fifo], network: varys}]\n"} {
		if _, err := Parse("x.yaml", []byte(head+bad)); err == nil || !strings.Contains(err.Error(), "x.yaml:4") {
			t.Errorf("%s: error %v, want one at x.yaml:4", bad, err)
		}
	}
	// the run uses it: varys and maxmin give different records
	out := t.TempDir()
	for _, nw := range []string{"maxmin", "varys"} {
		c, err := Load(writeCampaign(t, head+"runs: [{mode: sim, policies: [fair], network: "+nw+"}]\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := Execute(context.Background(), c, Options{Out: filepath.Join(out, nw)}); err != nil {
			t.Fatal(err)
		}
	}
	a, errA := os.ReadFile(filepath.Join(out, "maxmin", "sim", "fair-seed1", "attempts.csv"))
	b, errB := os.ReadFile(filepath.Join(out, "varys", "sim", "fair-seed1", "attempts.csv"))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if string(a) == string(b) {
		t.Error("the same records under maxmin and varys: the run set's network did not reach the simulator")
	}
}

// A mix preset's blocks are its source's size, as `datagen mix` makes
// them (PushBox's 1 GiB), unless the campaign gives block_size.
func TestMixPresetKeepsItsBlockSize(t *testing.T) {
	for _, tc := range []struct {
		gen  string
		want int64
	}{
		{"{name: mix, preset: pushbox-w1, scale: 0.005}", 5368709}, // 1 GiB × 0.005
		{"{name: mix, preset: pushbox-w1, scale: 0.005, block_size: 64MiB}", 335544},
		{"{name: mix, preset: hibench-small}", 128 << 20},
	} {
		c, err := Load(writeCampaign(t, "name: m\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: "+tc.gen+"\nruns:\n  - {mode: sim, policies: [fifo]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := loadSingle(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.ds.Datasets[0].BlockSize; got != tc.want {
			t.Errorf("%s: block size %d, want %d", tc.gen, got, tc.want)
		}
	}
}
