package replay_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/replay"
	"github.com/racklab/racklab/coordinator/workload"
)

const header = "job,stage,task,attempt,kind,host,start_s,end_s,outcome,duplicate,tier,source_host\n"

// Records come back in launch (id) order, whatever order the file has
// them in (a run writes them as they end).
func TestParseOrdersByID(t *testing.T) {
	lg, err := replay.Parse("a.csv", strings.NewReader(header+
		"A,1,0,7,reduce,1,5,8,succeeded,false,,\n"+
		"A,0,0,2,map,0,0,5,killed,true,ssd,3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Records) != 2 || lg.Records[0].ID != 2 || lg.Records[1].ID != 7 {
		t.Fatalf("records %+v, want ids 2 then 7", lg.Records)
	}
	r := lg.Records[0]
	if r.Line != 3 || r.Source.Host != 3 || r.Source.Tier != cluster.SSD || !r.Duplicate || r.Succeeded() {
		t.Errorf("record %+v: want line 3, source 3/ssd, a duplicate, not succeeded", r)
	}
	if lg.Records[1].Source.Host != -1 {
		t.Errorf("a reducer's source %+v, want none", lg.Records[1].Source)
	}
}

// A bad file is refused with its name and the line at fault.
func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "a.csv: empty"},
		{"job,stage\nA,0\n", `a.csv:1: no column "task"`},
		{header, "a.csv: no attempts recorded"},
		{header + "A,0,0,0,map,0,0,1,succeeded,false,hdd,0\nA,0,1,x,map,0,0,1,succeeded,false,hdd,0\n", `a.csv:3: attempt "x" is not an integer`},
		{header + "A,0,0,0,map,0,0,1,succeeded,false,hdd,0\nA,0,1,0,map,0,0,1,succeeded,false,hdd,0\n", "a.csv:3: attempt 0 is recorded twice (first on line 2)"},
		{header + "A,0,0,0,map,0,0,1,lost,false,hdd,0\n", `a.csv:2: outcome "lost" is not`},
		{header + "A,0,0,0,map,0,2,1,succeeded,false,hdd,0\n", "a.csv:2: attempt 0 ends (1 s) before it starts (2 s)"},
		{header + "A,0,0,0,map,-1,0,1,succeeded,false,hdd,0\n", `a.csv:2: host "-1" is not an integer`},
		{header + "A,0,0,0,map,0,0,1,succeeded,false,tape,0\n", `a.csv:2: tier of the source replica: unknown tier kind "tape"`},
		{header + "A,1,0,0,reduce,0,0,1,succeeded,false,,2\n", "a.csv:2: a reduce attempt has a source_host (2)"},
		{header + "A,0,0,0,sort,0,0,1,succeeded,false,hdd,0\n", `a.csv:2: unknown stage kind "sort"`},
	}
	for _, c := range cases {
		_, err := replay.Parse("a.csv", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): error %v, want it to contain %q", c.text, err, c.want)
		}
	}
}

// Records that do not fit the workload or cluster are refused before a
// run, naming the line.
func TestCheckAgainstWorkloadAndCluster(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 1,
		Tiers: []cluster.Tier{{Kind: cluster.SSD, ReadBps: 1e9, WriteBps: 1e9}, {Kind: cluster.HDD, ReadBps: 1e8, WriteBps: 1e8}}})
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "A", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "a"},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}},
	}}}}
	ok := header + "A,0,0,0,map,0,0,1,succeeded,false,hdd,3\nA,1,0,1,reduce,2,1,2,succeeded,false,,\n"
	lg, err := replay.Parse("a.csv", strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	if err := lg.Check(topo, w); err != nil {
		t.Fatalf("good records: %v", err)
	}
	cases := []struct{ line, want string }{
		{"B,0,0,5,map,0,0,1,succeeded,false,hdd,0", `a.csv:4: job "B" is not in the workload`},
		{"A,2,0,5,reduce,0,0,1,succeeded,false,,", "a.csv:4: job A has no stage 2 (it has 2)"},
		{"A,1,0,5,map,0,0,1,succeeded,false,hdd,0", "a.csv:4: stage 1 of job A is a reduce stage, recorded as map"},
		{"A,0,0,5,map,4,0,1,succeeded,false,hdd,0", "a.csv:4: host 4 is not in the cluster (hosts 0 to 3)"},
		{"A,0,0,5,map,0,0,1,succeeded,false,hdd,9", "a.csv:4: source host 9 is not in the cluster"},
		{"A,0,0,5,map,0,0,1,succeeded,false,mem,1", "a.csv:4: source host r0h1 has no mem tier"},
	}
	for _, c := range cases {
		lg, err := replay.Parse("a.csv", strings.NewReader(ok+c.line+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if err := lg.Check(topo, w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s): error %v, want it to contain %q", c.line, err, c.want)
		}
	}
}

// The registry builds a replay from its file arg, and says what is wrong
// with a missing or bad one, naming the policy and the file.
func TestBuildNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "attempts.csv")
	if err := os.WriteFile(bad, []byte(header+"A,0,0,0,map,0,0,1,maybe,false,hdd,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args map[string]any
		want string
	}{
		{nil, "policy replay: arg file: name the recorded run's attempts.csv"},
		{map[string]any{"file": filepath.Join(dir, "none.csv")}, "policy replay: replay: open " + filepath.Join(dir, "none.csv")},
		{map[string]any{"file": bad}, "policy replay: " + bad + `:2: outcome "maybe"`},
		{map[string]any{"file": "testdata/records/replay.csv", "slowstart": 2}, "policy replay: arg slowstart must be between 0 and 1"},
	}
	for _, c := range cases {
		_, err := policy.Build(policy.Spec{Name: "replay", Args: c.args})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(replay %v): error %v, want it to contain %q", c.args, err, c.want)
		}
	}
	p, err := policy.Build(policy.Spec{Name: "replay", Args: map[string]any{"file": "testdata/records/replay.csv"}})
	if err != nil || p.Name() != "replay" {
		t.Fatalf("Build(replay): %v, %v", p, err)
	}
}
