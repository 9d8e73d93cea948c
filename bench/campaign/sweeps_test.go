package campaign

import (
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/report"
)

// runSetSweepCampaign has workloads a and b; the unnamed sim run set runs
// both with fifo and fair, run sets n2 and n3 (other clusters) run a with
// them, run set both runs a and b, and run set lone runs a with fair
// alone; then the sweeps section given.
func runSetSweepCampaign(sweeps string) string {
	return "name: s\ncluster: {racks: 2, hosts_per_rack: 3}\nworkloads:\n" +
		"  a: {generator: {name: recurring, set: w1, scale: 0.01}}\n" +
		"  b: {generator: {name: recurring, set: w1, scale: 0.02}}\n" +
		"runs:\n" +
		"  - {mode: sim, policies: [fifo, fair]}\n" +
		"  - {mode: sim, name: n2, cluster: {racks: 2, hosts_per_rack: 2}, workloads: [a], policies: [fifo, fair]}\n" +
		"  - {mode: sim, name: n3, cluster: {racks: 3, hosts_per_rack: 2}, workloads: [a], policies: [fifo, fair]}\n" +
		"  - {mode: sim, name: both, policies: [fifo, fair]}\n" +
		"  - {mode: sim, name: lone, workloads: [a], policies: [fair]}\n" +
		"sweeps:\n" + sweeps
}

// A point may be a run set: @<run set> is its only workload,
// <workload>@<run set> one of its workloads, and a plain workload beside
// them the unnamed run set's. Such a sweep is over run sets.
func TestSweepOverRunSets(t *testing.T) {
	c, err := Load(writeCampaign(t, runSetSweepCampaign(
		"  - {name: hosts, x: hosts a rack, metric: makespan_s, policies: [fair], baseline: fifo, points: {'@n2': 2, a@n3: 3, a: 3.5, b@both: 4}}\n"+
			"  - {name: err, x: e, metric: makespan_s, policies: [fair], baseline: fifo, points: {a: 0, b: 1}}\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := []report.SweepPoint{{Workload: "a", RunSet: "n2", X: 2}, {Workload: "a", RunSet: "n3", X: 3}, {Workload: "a", X: 3.5}, {Workload: "b", RunSet: "both", X: 4}}
	if sw := c.Sweeps[0]; !sw.OverRunSets || !slices.Equal(sw.Points, want) {
		t.Errorf("sweep over run sets: %+v, want points %+v", sw, want)
	}
	if sw := c.Sweeps[1]; sw.OverRunSets || sw.Points[0] != (report.SweepPoint{Workload: "a"}) {
		t.Errorf("sweep over workloads: %+v", sw)
	}
	if got := c.Sweeps[0].Points[1].Name(); got != "a@n3" {
		t.Errorf("point name %q, want a@n3", got)
	}

	// a campaign of one workload has run set points only
	one := "name: s\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload: {generator: {name: recurring, set: w1, scale: 0.01}}\nruns:\n" +
		"  - {mode: sim, name: n2, cluster: {racks: 2, hosts_per_rack: 2}, policies: [fifo, fair]}\n" +
		"  - {mode: sim, name: n3, cluster: {racks: 3, hosts_per_rack: 2}, policies: [fifo, fair]}\n" +
		"sweeps: [{name: racks, x: racks, metric: makespan_s, policies: [fair], baseline: fifo, points: {'@n2': 2, '@n3': 3}}]\n"
	c, err = Load(writeCampaign(t, one))
	if err != nil {
		t.Fatal(err)
	}
	if sw := c.Sweeps[0]; !sw.OverRunSets || !slices.Equal(sw.Points, []report.SweepPoint{{RunSet: "n2", X: 2}, {RunSet: "n3", X: 3}}) {
		t.Errorf("one workload: %+v", sw)
	}
}

func TestSweepOverRunSetsErrors(t *testing.T) {
	const ok = "name: h, x: hosts, metric: makespan_s, policies: [fair], baseline: fifo"
	cases := map[string]struct{ points, want string }{
		"unknown run set":   {"{'@n2': 2, '@n9': 9}", `c.yaml:13: sweeps[0] points: unknown run set "n9": the campaign's named run sets are n2, n3, both, lone`},
		"no run set":        {"{'@n2': 2, 'a@': 9}", `c.yaml:13: sweeps[0] points: "a@" names no run set after '@'`},
		"several workloads": {"{'@n2': 2, '@both': 9}", "c.yaml:13: sweeps[0] points: run set both runs workloads a, b: say which, as <workload>@both"},
		"not its workload":  {"{'@n2': 2, 'b@n3': 9}", "c.yaml:13: sweeps[0] points: no run set runs fair on workload b in run set n3"},
		"policy not run":    {"{'@n2': 2, '@lone': 9}", "c.yaml:13: sweeps[0] points: no run set runs fifo on workload a in run set lone"},
		"unknown workload":  {"{'@n2': 2, 'z@n3': 9}", `c.yaml:13: sweeps[0] points: unknown workload "z"`},
		"same point twice":  {"{'@n2': 2, 'a@n2': 9}", "c.yaml:13: sweeps[0] points: a@n2 is the point a@n2 again"},
		"one point":         {"{'@n2': 2}", "c.yaml:13: sweeps[0]: a sweep needs at least two points (<workload>@<run set>: x), got 1"},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, runSetSweepCampaign("  - {"+ok+", points: "+tc.points+"}\n")))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	// a plain workload beside run sets is the unnamed run set's, which
	// this campaign does not have
	noMain := "name: s\ncluster: {racks: 2, hosts_per_rack: 3}\nworkloads:\n  a: {generator: {name: recurring, set: w1, scale: 0.01}}\nruns:\n" +
		"  - {mode: sim, name: n2, policies: [fifo, fair]}\n" +
		"sweeps: [{" + ok + ", points: {'@n2': 2, a: 3}}]\n"
	if _, err := Load(writeCampaign(t, noMain)); err == nil || !strings.Contains(err.Error(), "c.yaml:7: sweeps[0] points: a is the workload of the unnamed run set in a sweep over run sets, and the campaign has none") {
		t.Errorf("no unnamed run set: error %v", err)
	}
}
