package campaign

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// twoNetworks is a campaign that runs the same policies twice in
// simulation: in its unnamed run set (max-min), and in one named varys.
const twoNetworks = `name: nets
cluster: {racks: 2, hosts_per_rack: 3}
workload:
  generator: {name: recurring, set: w1, scale: 0.01}
runs:
  - mode: sim
    policies: [fifo, capacity]
  - mode: sim
    name: varys
    network: varys
    policies: [fifo, capacity]
`

func TestNamedRunSetsHaveTheirOwnResults(t *testing.T) {
	c, err := Load(writeCampaign(t, twoNetworks))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 2 || c.Runs[0].Dir() != "sim" || c.Runs[1].Dir() != "sim-varys" || c.Runs[1].Network != "varys" || c.Runs[0].Network != "maxmin" {
		t.Fatalf("run sets %+v", c.Runs)
	}
	out := t.TempDir()
	var ids, dirs []string
	for _, r := range c.Matrix(out) {
		ids = append(ids, r.ID())
		rel, _ := filepath.Rel(out, r.Dir)
		dirs = append(dirs, rel)
	}
	// the unnamed run set keeps the paths of a campaign of one run set per
	// mode, so that result directories written before run sets had names
	// still resume
	want := []string{"sim/fifo-seed1", "sim/capacity-seed1", "sim-varys/fifo-seed1", "sim-varys/capacity-seed1"}
	if !reflect.DeepEqual(ids, want) || !reflect.DeepEqual(dirs, want) {
		t.Fatalf("ids %v, dirs %v, want %v", ids, dirs, want)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(want, "sim", "sim-varys") {
		name := "done.json"
		if !strings.Contains(p, "/") {
			name = "summary.csv"
		}
		if _, err := os.Stat(filepath.Join(out, p, name)); err != nil {
			t.Errorf("%v", err)
		}
	}
	sets, rows := c.Summaries(out)
	if !reflect.DeepEqual(sets, []string{"sim", "sim-varys"}) || len(rows["sim"]) != 2 || len(rows["sim-varys"]) != 2 {
		t.Fatalf("summaries %v: %d and %d rows", sets, len(rows["sim"]), len(rows["sim-varys"]))
	}
	// each summary.csv holds its own run set's runs: two, not four
	for _, set := range sets {
		b, err := os.ReadFile(filepath.Join(out, set, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(strings.TrimSpace(string(b)), "\n"); n != 2 {
			t.Errorf("%s/summary.csv has %d runs, want 2:\n%s", set, n, b)
		}
	}
	// a rerun resumes every run of both run sets
	var log logged
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2, Logf: log.logf}); err != nil {
		t.Fatal(err)
	}
	if s := log.find("resuming", "4 of 4"); s == "" {
		t.Errorf("the rerun did not resume every run: %q", log.lines)
	}
}

func TestRunSetDirsWithNamedWorkloads(t *testing.T) {
	c, err := Parse("c.yaml", []byte(`name: n
cluster: {racks: 2, hosts_per_rack: 3}
workloads:
  a: {generator: {name: recurring, set: w1}}
  b: {generator: {name: recurring, set: w2}}
runs:
  - {mode: sim, policies: [fifo]}
  - {mode: sim, name: big, policies: [fifo], workloads: [b], cluster: {racks: 4, hosts_per_rack: 3}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range c.Matrix("out") {
		ids = append(ids, r.ID())
		if !strings.HasSuffix(filepath.ToSlash(r.Dir), "out/"+r.ID()) {
			t.Errorf("run %s in %s", r.ID(), r.Dir)
		}
	}
	if want := []string{"sim/a/fifo-seed1", "sim/b/fifo-seed1", "sim-big/b/fifo-seed1"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	// the result sets a report names before any run of them finished
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), c.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	sets, err := ResultDirSets(dir)
	if want := []string{"sim/a", "sim/b", "sim-big/b"}; err != nil || !reflect.DeepEqual(sets, want) {
		t.Errorf("result sets %v %v, want %v", sets, err, want)
	}
}

func TestRunSetNames(t *testing.T) {
	const head = `name: n
cluster: {racks: 2, hosts_per_rack: 3}
workload: {generator: {name: recurring, set: w1}}
runs:
`
	cases := map[string]struct{ runs, want string }{
		"two unnamed": {"  - {mode: sim, policies: [fifo]}\n  - {mode: sim, policies: [fair]}\n",
			"c.yaml:6: runs[1]: mode sim has a run set without a name already (line 5)"},
		"one name twice": {"  - {mode: sim, name: x, policies: [fifo]}\n  - mode: sim\n    policies: [fair]\n    name: x\n",
			"c.yaml:8: runs[1]: mode sim has a run set named x already (line 5)"},
		"a path":   {"  - {mode: sim, name: a/b, policies: [fifo]}\n", `c.yaml:5: runs[0]: the run set name "a/b" has '/'`},
		"an at":    {"  - {mode: sim, name: a@b, policies: [fifo]}\n", `c.yaml:5: runs[0]: the run set name "a@b" has '@'`},
		"empty":    {"  - {mode: sim, name: '', policies: [fifo]}\n", "c.yaml:5: runs[0]: empty name"},
		"a dot":    {"  - {mode: sim, name: .x, policies: [fifo]}\n", `c.yaml:5: runs[0]: the run set name ".x" starts with '.'`},
		"ok":       {"  - {mode: sim, policies: [fifo]}\n  - {mode: sim, name: x, policies: [fifo]}\n  - {mode: local, name: x, policies: [fifo]}\n", ""},
		"named ok": {"  - {mode: sim, name: x, policies: [fifo]}\n  - {mode: sim, name: y, policies: [fifo]}\n", ""},
	}
	for name, tc := range cases {
		_, err := Parse("c.yaml", []byte(head+tc.runs))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// TestPrioritiesAndNICShapingAreLocalSwitches: an emulated run set turns
// on priority leaves, host-NIC shaping and sleeping compute; elsewhere, and with a value
// that is not true or false, the campaign is refused at the line.
func TestPrioritiesAndNICShapingAreLocalSwitches(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: local, policies: [fifo], priorities: true, shape_nics: true, compute: sleep, tcp_congestion: reno}\n  - {mode: local, name: plain, policies: [fifo], compute: burn}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Runs[0].Priorities || !c.Runs[0].ShapeNICs || !c.Runs[0].SleepCompute || c.Runs[0].Congestion != "reno" ||
		c.Runs[1].Priorities || c.Runs[1].ShapeNICs || c.Runs[1].SleepCompute || c.Runs[1].Congestion != "" {
		t.Fatalf("run sets %+v", c.Runs)
	}
	for _, tc := range []struct{ run, want string }{
		{"  - {mode: sim, policies: [fifo], priorities: true}\n", `c.yaml:6: runs[0]: priorities is an option of an emulated cluster (mode local)`},
		{"  - {mode: sim, policies: [fifo], shape_nics: false}\n", `c.yaml:6: runs[0]: shape_nics is an option of an emulated cluster`},
		{"  - {mode: local, policies: [fifo], priorities: yes}\n", `c.yaml:6: runs[0]: priorities: want true or false, got "yes"`},
		{"  - {mode: local, policies: [fifo], compute: nap}\n", `c.yaml:6: runs[0]: unknown compute "nap": burn`},
		{"  - {mode: sim, policies: [fifo], compute: sleep}\n", `c.yaml:6: runs[0]: compute is an option of an emulated cluster`},
		{"  - {mode: sim, policies: [fifo], tcp_congestion: cubic}\n", `c.yaml:6: runs[0]: tcp_congestion is an option of an emulated cluster`},
		{"  - {mode: local, policies: [fifo], tcp_congestion: \"cu bic\"}\n", `c.yaml:6: runs[0]: tcp_congestion "cu bic" is not the name`},
	} {
		_, err := Load(writeCampaign(t, head+tc.run))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.run, err, tc.want)
		}
	}
}

// A simulated run set may ask for exact max-min at every change
// (full_recompute: -1) or another period; elsewhere, or 0, is refused.
func TestFullRecomputeIsASimOption(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: sim, policies: [fifo], full_recompute: -1}\n  - {mode: sim, name: b, policies: [fifo]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[0].FullRecompute != -1 || c.Runs[1].FullRecompute != 0 {
		t.Fatalf("run sets %+v", c.Runs)
	}
	for _, tc := range []struct{ run, want string }{
		{"  - {mode: local, policies: [fifo], full_recompute: 5}\n", `c.yaml:6: runs[0]: full_recompute is an option of the simulator`},
		{"  - {mode: sim, policies: [fifo], full_recompute: 0}\n", `c.yaml:6: runs[0]: full_recompute 0 is the default`},
	} {
		if _, err := Load(writeCampaign(t, head+tc.run)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.run, err, tc.want)
		}
	}
}

// A run set of any mode may set the simulator's time step for wherever
// it is simulated (its twin and fidelity's simulations, for a live one);
// a step out of range is refused at its line.
func TestResolutionIsTheSimulatorsStep(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: sim, policies: [fifo], resolution: 0.001}\n  - {mode: local, policies: [fifo], resolution: 0.002}\n  - {mode: sim, name: b, policies: [fifo]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[0].Resolution != 0.001 || c.Runs[1].Resolution != 0.002 || c.Runs[2].Resolution != 0 {
		t.Fatalf("run sets %+v", c.Runs)
	}
	spec, err := c.SimSpec(c.Matrix(t.TempDir())[1])
	if err != nil {
		t.Fatal(err)
	}
	if spec.Options.Resolution != 0.002 {
		t.Errorf("the local run's simulation steps %g s, want its run set's 0.002", spec.Options.Resolution)
	}
	// a live run is simulated exactly, as its twin is; a simulated run
	// keeps its run set's (here the default, 0)
	if spec.Options.FullRecompute != -1 {
		t.Errorf("the local run is simulated with full_recompute %g, want exact max-min (-1)", spec.Options.FullRecompute)
	}
	if simSpec, err := c.SimSpec(c.Matrix(t.TempDir())[0]); err != nil || simSpec.Options.FullRecompute != 0 {
		t.Errorf("the sim run's full_recompute %g (err %v), want its run set's default 0", simSpec.Options.FullRecompute, err)
	}
	for _, run := range []string{"  - {mode: sim, policies: [fifo], resolution: 0}\n", "  - {mode: sim, policies: [fifo], resolution: 2}\n"} {
		if _, err := Load(writeCampaign(t, head+run)); err == nil || !strings.Contains(err.Error(), "c.yaml:6: runs[0]: resolution is the simulator's time step") {
			t.Errorf("%q: err %v", run, err)
		}
	}
}

// TestShareLinksIsAFlatSwitch: a flat run set shares its rack links by
// demand unless it says share_links: false; a switched one does not, and
// the key is refused, at its line, outside flat local run sets.
func TestShareLinksIsAFlatSwitch(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: local, policies: [fifo], network: flat}\n  - {mode: local, name: static, policies: [fifo], network: flat, share_links: false}\n"+
		"  - {mode: local, name: sw, policies: [fifo], network: switched}\n  - {mode: local, name: on, policies: [fifo], network: flat, share_links: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Runs[0].ShareLinks || c.Runs[1].ShareLinks || c.Runs[2].ShareLinks || !c.Runs[3].ShareLinks {
		t.Fatalf("run sets %+v", c.Runs)
	}
	for _, tc := range []struct{ run, want string }{
		{"  - {mode: local, policies: [fifo], network: switched, share_links: true}\n", `c.yaml:6: runs[0]: share_links is an option of flat mode (network: flat)`},
		{"  - {mode: local, policies: [fifo], share_links: false}\n", `c.yaml:6: runs[0]: share_links is an option of flat mode`},
		{"  - {mode: sim, policies: [fifo], share_links: true}\n", `c.yaml:6: runs[0]: share_links is an option of an emulated cluster (mode local) in flat mode`},
		{"  - {mode: local, policies: [fifo], network: flat, share_links: 1}\n", `c.yaml:6: runs[0]: share_links: want true or false`},
	} {
		_, err := Load(writeCampaign(t, head+tc.run))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.run, err, tc.want)
		}
	}
}

// A run set's slowstart takes the place of the campaign's for its runs,
// in the simulator and in the twin of a live run alike; others keep the
// campaign's. 0 or more than 1 is refused at its line.
func TestRunSetSlowStartOverridesTheCampaigns(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nslowstart: 0.8\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: sim, policies: [fifo], slowstart: 1}\n  - {mode: local, policies: [fifo], slowstart: 0.5}\n  - {mode: sim, name: b, policies: [fifo]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 0.5, 0.8} {
		if got := c.SlowStartOf(c.Runs[i]); got != want {
			t.Errorf("run set %d: slow-start %g, want %g", i, got, want)
		}
	}
	for i, want := range []float64{1, 0.5, 0.8} {
		spec, err := c.SimSpec(c.Matrix(t.TempDir())[i])
		if err != nil {
			t.Fatal(err)
		}
		if spec.SlowStart != want {
			t.Errorf("run %d is simulated with slow-start %g, want %g", i, spec.SlowStart, want)
		}
	}
	for _, run := range []string{"  - {mode: sim, policies: [fifo], slowstart: 0}\n", "  - {mode: sim, policies: [fifo], slowstart: 1.5}\n"} {
		if _, err := Load(writeCampaign(t, head+run)); err == nil || !strings.Contains(err.Error(), "c.yaml:7: runs[0]: a run set's slowstart must be above 0 and at most 1") {
			t.Errorf("%q: err %v", run, err)
		}
	}
}

// A run set of any mode may write outputs as HDFS's pipeline, and its runs
// (and a live one's twin) do.
func TestOutputPipelineInEveryMode(t *testing.T) {
	const head = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"
	c, err := Load(writeCampaign(t, head+"  - {mode: sim, policies: [fifo], output_pipeline: true}\n  - {mode: local, policies: [fifo], output_pipeline: true}\n  - {mode: sim, name: b, policies: [fifo]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.Matrix(t.TempDir())
	for i, want := range []bool{true, true, false} {
		if c.Runs[i].OutputPipeline != want {
			t.Fatalf("run set %d: output pipeline %v, want %v", i, c.Runs[i].OutputPipeline, want)
		}
		spec, err := c.SimSpec(m[i])
		if err != nil {
			t.Fatal(err)
		}
		if spec.OutputPipeline != want {
			t.Errorf("run %s: simulated with output pipeline %v, want %v", m[i].ID(), spec.OutputPipeline, want)
		}
	}
}
