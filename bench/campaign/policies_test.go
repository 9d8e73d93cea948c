package campaign

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/coordinator/policy"
)

const policiesHead = "name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns:\n  - mode: sim\n"

func TestPolicyEntriesAreNamesOrMappings(t *testing.T) {
	c, err := Load(writeCampaign(t, policiesHead+`    policies:
      - fair
      - {name: fair, label: fair-nodelay, args: {node_threshold: -1, rack_threshold: -1}}
      - name: capacity
        args:
          node_locality_delay: 3
      - {name: fifo, args: {}}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.Spec{
		{Name: "fair"},
		{Name: "fair", Label: "fair-nodelay", Args: map[string]any{"node_threshold": -1, "rack_threshold": -1}},
		{Name: "capacity", Args: map[string]any{"node_locality_delay": 3}},
		{Name: "fifo", Args: map[string]any{}},
	}
	if got := c.Runs[0].Policies; !reflect.DeepEqual(got, want) {
		t.Fatalf("policies %+v, want %+v", got, want)
	}
	var dirs []string
	for _, r := range c.Matrix("out") {
		dirs = append(dirs, filepath.Base(r.Dir))
	}
	if want := []string{"fair-seed1", "fair-nodelay-seed1", "capacity-seed1", "fifo-seed1"}; !reflect.DeepEqual(dirs, want) {
		t.Errorf("run directories %v, want %v", dirs, want)
	}
}

func TestBadPolicyEntriesNameTheirLine(t *testing.T) {
	cases := map[string]struct{ policies, want string }{
		"unknown arg": {"    policies:\n      - fifo\n      - name: fair\n        args:\n          rack_threshold: 2\n          node_treshold: 1\n",
			`c.yaml:11: runs[0] policies[1] args: policy fair: unknown arg "node_treshold" (known: classes, network_priorities, node_threshold, rack_threshold, slow_start, yarn_am)`},
		"ill-typed arg": {"    policies:\n      - name: fair\n        args: {node_threshold: high}\n",
			`c.yaml:8: runs[0] policies[0] args: policy fair: arg node_threshold: want a number, got "high"`},
		"empty arg": {"    policies:\n      - name: fair\n        args:\n          node_threshold:\n",
			`c.yaml:9: runs[0] policies[0] args: policy fair: arg node_threshold: want a number, got nothing`},
		"list arg": {"    policies:\n      - name: capacity\n        args: {node_locality_delay: [1, 2]}\n",
			"c.yaml:8: runs[0] policies[0] args: policy capacity: arg node_locality_delay: want an integer, got a list"},
		"invalid value": {"    policies:\n      - name: capacity\n        args: {node_locality_delay: -2}\n",
			"c.yaml:8: runs[0] policies[0]: policy capacity: node_locality_delay is -2"},
		"args to fifo": {"    policies: [{name: fifo, args: {x: 1}}]\n",
			`c.yaml:6: runs[0] policies[0] args: policy fifo: unknown arg "x" (known: classes, network_priorities)`},
		"args not a mapping": {"    policies: [{name: fair, args: [1]}]\n",
			"c.yaml:6: runs[0] policies[0] args: want a mapping of fields, got a list"},
		"unknown key": {"    policies:\n      - {name: fair, labl: x}\n",
			`c.yaml:7: runs[0] policies[0]: unknown field "labl" (want one of: name, label, args)`},
		"missing name": {"    policies:\n      - fifo\n      - {label: x, args: {node_threshold: 1}}\n",
			`c.yaml:8: runs[0] policies[1]: missing field "name"`},
		"unknown policy": {"    policies:\n      - {name: nosuch, args: {theta: 0.7}}\n",
			`c.yaml:7: runs[0] policies[0]: unknown policy "nosuch" (known: ` + strings.Join(policy.Names(), ", ") + `)`},
		"bad label": {"    policies:\n      - {name: fair, label: fair/nodelay}\n",
			`c.yaml:7: runs[0] policies[0]: label "fair/nodelay" has '/'`},
		"duplicate name": {"    policies: [fair, fifo, fair]\n",
			`c.yaml:6: runs[0] policies[2]: label "fair" is used twice (first at line 6)`},
		"duplicate label": {"    policies:\n      - {name: fifo, label: base}\n      - name: fair\n        label: base\n",
			`c.yaml:8: runs[0] policies[1]: label "base" is used twice (first at line 7)`},
		"label of another's name": {"    policies:\n      - fifo\n      - {name: fair, label: fifo}\n",
			`c.yaml:8: runs[0] policies[1]: label "fifo" is used twice (first at line 7)`},
		"neither name nor mapping": {"    policies: [[fair]]\n",
			"c.yaml:6: runs[0] policies[0]: want a policy name or a mapping {name, label, args}"},
		"none": {"    policies: []\n", "policies lists none"},
	}
	for name, c := range cases {
		_, err := Load(writeCampaign(t, policiesHead+c.policies))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

// Two labels of one policy are two rows of the summary, and delay
// scheduling, on in one and off in the other, shows in their locality.
func TestTwoLabelsOfOnePolicyAreTwoRows(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// every block on one host: a map is node-local on one host of six
		"ds.yaml": "block_size_bytes: 1048576\nreplication: 1\ndatasets:\n" +
			"  - {name: a, size_bytes: 25165824}\n  - {name: b, size_bytes: 25165824}\n  - {name: c, size_bytes: 25165824}\n",
		"wl.yaml": "jobs:\n" +
			"  - {id: ja, stages: [{name: map, kind: map, input: a}, {name: reduce, kind: reduce, tasks: 2, after: [map]}]}\n" +
			"  - {id: jb, stages: [{name: map, kind: map, input: b}, {name: reduce, kind: reduce, tasks: 2, after: [map]}]}\n" +
			"  - {id: jc, stages: [{name: map, kind: map, input: c}, {name: reduce, kind: reduce, tasks: 2, after: [map]}]}\n",
		"c.yaml": `name: labels
cluster: {racks: 2, hosts_per_rack: 3, slots: 1}
workload: {file: wl.yaml, datasets: ds.yaml}
runs:
  - mode: sim
    policies: [fair, {name: fair, label: fair-nodelay, args: {node_threshold: -1, rack_threshold: -1}}]
    repetitions: 2
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	set, err := report.LoadResultSet(filepath.Join(out, ModeSim))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fair", "fair-nodelay"}; !reflect.DeepEqual(set.Policies, want) {
		t.Fatalf("summary.csv policies %v, want %v", set.Policies, want)
	}
	_, rows := c.Summaries(out)
	local := map[string]float64{}
	for _, s := range rows[ModeSim] {
		if s.Jobs != 3 || s.FailedJobs != 0 {
			t.Errorf("%s seed %d: %d jobs, %d failed", s.Policy, s.Seed, s.Jobs, s.FailedJobs)
		}
		local[s.Policy] += s.NodeLocalFrac / 2
	}
	t.Logf("node-local share: %v", local)
	if !(local["fair"] > local["fair-nodelay"]) {
		t.Errorf("node-local share: fair %.3f, fair-nodelay %.3f; want delay scheduling to raise it", local["fair"], local["fair-nodelay"])
	}
	for _, r := range c.Matrix(out) {
		if _, ok := Done(r); !ok {
			t.Errorf("run %s has no %s", r.ID(), doneFile)
		}
	}
}
