package policy_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/capacity"
	"github.com/racklab/racklab/coordinator/policy/fair"
)

// Every registered declaration is well formed and builds with its
// defaults, by Build and by New alike.
func TestEveryPolicyBuildsWithDefaults(t *testing.T) {
	names := policy.Names()
	if want := []string{"capacity", "corral", "dawn", "delay", "even", "fair", "fifo", "hadoop", "hscheduler", "kmn", "neat", "pushbox", "quartet", "replay", "shadow", "shufflewatcher", "sparkdefault", "trident"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Names() = %v, want %v", names, want)
	}
	// a replay has no default records to replay
	required := map[string]map[string]any{"replay": {"file": "replay/testdata/records/replay.csv"}}
	for _, name := range names {
		spec := policy.Spec{Name: name, Args: required[name]}
		if spec.Args != nil {
			if _, err := policy.New(name); err == nil {
				t.Errorf("New(%s) without its required args: no error", name)
			}
		}
		p, err := policy.Build(spec)
		if err != nil {
			t.Fatalf("Build(%s): %v", name, err)
		}
		if p.Name() != name {
			t.Errorf("Build(%s) made policy %q", name, p.Name())
		}
		q, err := policy.Build(spec)
		if err != nil {
			t.Fatalf("Build(%s) again: %v", name, err)
		}
		if p == q {
			t.Errorf("%s: two builds share one policy value", name)
		}
	}
}

func TestDeclaredArgs(t *testing.T) {
	want := map[string][]string{
		"fifo":         {"classes", "network_priorities"},
		"fair":         {"classes", "network_priorities", "node_threshold", "rack_threshold", "slow_start", "yarn_am"},
		"capacity":     {"heartbeat", "node_locality_delay", "off_switch_locations", "one_off_switch_per_heartbeat", "single_queue", "yarn_am"},
		"sparkdefault": {"locality_wait", "order"},
	}
	for name, args := range want {
		f, err := policy.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.ArgNames(); !reflect.DeepEqual(got, args) {
			t.Errorf("%s args %v, want %v", name, got, args)
		}
	}
	f, _ := policy.Lookup("fair")
	defaults := map[string]float64{"node_threshold": 1, "rack_threshold": 1, "slow_start": 0}
	for _, a := range f.Args() {
		switch a.Name {
		case "yarn_am":
			if a.Type != "boolean" || a.Default != false {
				t.Errorf("fair arg yarn_am: type %s, default %v; want boolean, false", a.Type, a.Default)
			}
			continue
		case "network_priorities":
			if a.Type != "string" || a.Default != "none" {
				t.Errorf("fair arg network_priorities: type %s, default %v; want string, none", a.Type, a.Default)
			}
			continue
		case "classes":
			if a.Type != "integer" || a.Default != 4 {
				t.Errorf("fair arg classes: type %s, default %v; want integer, 4", a.Type, a.Default)
			}
			continue
		}
		if a.Type != "number" || a.Default != defaults[a.Name] {
			t.Errorf("fair arg %s: type %s, default %v; want number, %g", a.Name, a.Type, a.Default, defaults[a.Name])
		}
	}
}

// Args land in the policy's Config over its defaults.
func TestArgsReachTheConfig(t *testing.T) {
	p, err := policy.Build(policy.Spec{Name: "fair", Args: map[string]any{"node_threshold": -1}})
	if err != nil {
		t.Fatal(err)
	}
	got := p.(*fair.Policy).Config()
	if want := (fair.Config{NodeThreshold: -1, RackThreshold: 1, NetworkPriorities: "none", Classes: 4}); got != want {
		t.Errorf("fair config %+v, want %+v", got, want)
	}
	p, err = policy.Build(policy.Spec{Name: "capacity", Args: map[string]any{"node_locality_delay": 7.0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*capacity.Policy).Config(); got.NodeLocalityDelay != 7 {
		t.Errorf("capacity config %+v, want delay 7", got)
	}
}

func TestBadArgsNameThePolicyAndTheArg(t *testing.T) {
	cases := []struct {
		spec policy.Spec
		want string
	}{
		{policy.Spec{Name: "fair", Args: map[string]any{"node_treshold": 1}},
			`policy fair: unknown arg "node_treshold" (known: classes, network_priorities, node_threshold, rack_threshold, slow_start, yarn_am)`},
		{policy.Spec{Name: "fair", Args: map[string]any{"node_threshold": "high"}},
			`policy fair: arg node_threshold: want a number, got "high"`},
		{policy.Spec{Name: "fair", Args: map[string]any{"rack_threshold": true}},
			`policy fair: arg rack_threshold: want a number, got true`},
		{policy.Spec{Name: "fair", Args: map[string]any{"rack_threshold": nil}},
			`policy fair: arg rack_threshold: want a number, got nothing`},
		{policy.Spec{Name: "fair", Args: map[string]any{"rack_threshold": []any{1, 2}}},
			`policy fair: arg rack_threshold: want a number, got a list`},
		{policy.Spec{Name: "capacity", Args: map[string]any{"node_locality_delay": 2.5}},
			`policy capacity: arg node_locality_delay: want a whole number, got 2.5`},
		{policy.Spec{Name: "capacity", Args: map[string]any{"node_locality_delay": 1e30}},
			`policy capacity: arg node_locality_delay: 1e+30 is out of range`},
		{policy.Spec{Name: "capacity", Args: map[string]any{"node_locality_delay": -3}},
			`policy capacity: node_locality_delay is -3`},
		{policy.Spec{Name: "fifo", Args: map[string]any{"x": 1}},
			`policy fifo: unknown arg "x" (known: classes, network_priorities)`},
		{policy.Spec{Name: "fifo", Args: map[string]any{"network_priorities": "fair"}},
			`policy fifo: fifo: network_priorities "fair": want none or job_fifo`},
		{policy.Spec{Name: "replay", Args: map[string]any{"file": "replay/testdata/records/replay.csv", "placer_args": "{placement: hdfs}"}},
			`arg placer_args needs arg placer`},
		{policy.Spec{Name: "replay", Args: map[string]any{"file": "replay/testdata/records/replay.csv", "placer": "fifo"}},
			`arg placer: policy fifo does not place datasets`},
		{policy.Spec{Name: "replay", Args: map[string]any{"file": "replay/testdata/records/replay.csv", "placer": "replay"}},
			`arg placer: a replay places no datasets of its own`},
		{policy.Spec{Name: "replay", Args: map[string]any{"file": "replay/testdata/records/replay.csv", "placer": "corral", "placer_args": "[1, 2]"}},
			`arg placer_args: want a YAML mapping`},
		{policy.Spec{Name: "replay", Args: map[string]any{"file": "replay/testdata/records/replay.csv", "placer": "corral", "placer_args": "{placement: far}"}},
			`arg placer: policy corral: `},
		{policy.Spec{Name: "fare"}, `unknown policy "fare" (known: capacity, corral, dawn, delay, even, fair, fifo, hadoop, hscheduler, kmn, neat, pushbox, quartet, replay, shadow, shufflewatcher, sparkdefault, trident)`},
	}
	for _, c := range cases {
		_, err := policy.Build(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%+v): error %v, want it to contain %q", c.spec, err, c.want)
		}
	}
	var ae *policy.ArgError
	_, err := policy.Build(policy.Spec{Name: "fair", Args: map[string]any{"node_threshold": "high"}})
	if !errors.As(err, &ae) || ae.Arg != "node_threshold" || ae.Policy != "fair" {
		t.Errorf("error %v is not an ArgError naming fair's node_threshold", err)
	}
}

// testConfig covers every kind of field Define accepts.
type testConfig struct {
	Rate    float64       `yaml:"rate"`
	Count   int8          `yaml:"count"`
	Size    uint32        `yaml:"size"`
	On      bool          `yaml:"on"`
	Mode    string        `yaml:"mode,omitempty"`
	Wait    time.Duration `yaml:"wait"`
	Skipped int           `yaml:"-"`
	hidden  int
}

type testPolicy struct {
	engine.Policy
	cfg testConfig
}

func defineTest() policy.Factory {
	return policy.Define("test", testConfig{Rate: 0.5, Mode: "a", hidden: 1}, func(c testConfig) *testPolicy { return &testPolicy{cfg: c} })
}

func TestDefineDecodesEveryKind(t *testing.T) {
	f := defineTest()
	p, err := f.Build(map[string]any{"rate": 2, "count": int64(-5), "size": 4e3, "on": true, "mode": "b", "wait": "1m30s"})
	if err != nil {
		t.Fatal(err)
	}
	got := p.(*testPolicy).cfg
	want := testConfig{Rate: 2, Count: -5, Size: 4000, On: true, Mode: "b", Wait: 90 * time.Second, hidden: 1}
	if got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
	// the defaults are copied, not shared, between builds
	p, err = f.Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*testPolicy).cfg; got != (testConfig{Rate: 0.5, Mode: "a", hidden: 1}) {
		t.Errorf("defaults %+v after an earlier build with args", got)
	}
	bad := map[string]string{
		"count": "300 is out of range",
		"size":  "want a non-negative integer, got -1",
		"on":    `want true or false, got "yes"`,
		"mode":  "want a string, got 3",
		"wait":  `want a duration such as 30s, got "soon"`,
	}
	vals := map[string]any{"count": 300, "size": -1, "on": "yes", "mode": 3, "wait": "soon"}
	for arg, want := range bad {
		_, err := f.Build(map[string]any{arg: vals[arg]})
		if err == nil || err.Error() != "policy test: arg "+arg+": "+want {
			t.Errorf("%s = %v: error %v, want %q", arg, vals[arg], err, want)
		}
	}
	_, err = f.Build(map[string]any{"Skipped": 1})
	if err == nil || !strings.Contains(err.Error(), "(known: count, mode, on, rate, size, wait)") {
		t.Errorf("a yaml:\"-\" field is settable: %v", err)
	}
}

func TestBadDeclarationsFailToBuild(t *testing.T) {
	type untagged struct{ Rate float64 }
	type nested struct {
		Inner struct{ X int } `yaml:"inner"`
	}
	type twice struct {
		A int `yaml:"a"`
		B int `yaml:"a"`
	}
	mk := func(p *testPolicy) func(any) *testPolicy { return func(any) *testPolicy { return p } }
	cases := map[string]policy.Factory{
		"has no yaml tag":   policy.Define("u", untagged{}, func(untagged) *testPolicy { return nil }),
		"which args cannot": policy.Define("n", nested{}, func(nested) *testPolicy { return nil }),
		"two config fields": policy.Define("t", twice{}, func(twice) *testPolicy { return nil }),
		"must be a struct":  policy.Define[any]("s", 3, mk(nil)),
	}
	for want, f := range cases {
		if _, err := f.Build(nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", f.Name(), err, want)
		}
	}
}

func TestLabels(t *testing.T) {
	if s := (policy.Spec{Name: "fair"}); s.String() != "fair" {
		t.Errorf("label of %+v is %q", s, s.String())
	}
	if s := (policy.Spec{Name: "fair", Label: "fair-nodelay"}); s.String() != "fair-nodelay" {
		t.Errorf("label of %+v is %q", s, s.String())
	}
	for _, bad := range []string{"", ".", "a/b", "a b", "a,b"} {
		if policy.CheckLabel(bad) == nil {
			t.Errorf("label %q accepted", bad)
		}
	}
	err := policy.CheckSet([]policy.Spec{{Name: "fair"}, {Name: "fifo"}, {Name: "fair", Args: map[string]any{"node_threshold": -1}}})
	if err == nil || !strings.Contains(err.Error(), `policies 1 and 3 have the same label "fair"`) {
		t.Errorf("duplicate labels: error %v", err)
	}
	if err := policy.CheckSet([]policy.Spec{{Name: "fair"}, {Name: "fair", Label: "fair-nodelay", Args: map[string]any{"node_threshold": -1}}}); err != nil {
		t.Errorf("two labels of one policy: %v", err)
	}
	if err := policy.CheckSet(policy.Specs("fair", "nope")); err == nil {
		t.Error("an unknown policy passes CheckSet")
	}
}

// PushBox's baselines (pushbox.md §4.1–4.5) build from the args a
// campaign names them with (README.md), and bad values are refused.
func TestPushBoxBaselinesBuild(t *testing.T) {
	for _, spec := range []policy.Spec{
		{Name: "fifo", Args: map[string]any{"network_priorities": "job_fifo"}},
		{Name: "shufflewatcher", Args: map[string]any{"network": "host", "threshold": 0.9, "reduce_racks": "largest"}},
		{Name: "neat"},
		{Name: "shufflewatcher", Args: map[string]any{"network": "host", "threshold": 0.9, "reduce_racks": "largest", "order": "fifo", "network_priorities": "job_fifo"}},
		{Name: "neat", Args: map[string]any{"order": "fifo", "network": "job_fifo"}},
	} {
		if _, err := policy.Build(spec); err != nil {
			t.Errorf("Build(%+v): %v", spec, err)
		}
	}
	for _, c := range []struct {
		spec policy.Spec
		want string
	}{
		{policy.Spec{Name: "neat", Args: map[string]any{"network": "fifo"}}, `neat: network "fifo": want scf, fair or job_fifo`},
		{policy.Spec{Name: "neat", Args: map[string]any{"classes": 0}}, `neat: classes 0: want 1 to 32`},
		{policy.Spec{Name: "neat", Args: map[string]any{"order": "capacity"}}, `neat: order "capacity": want fair or fifo`},
		{policy.Spec{Name: "shufflewatcher", Args: map[string]any{"network_priorities": "scf"}}, `shufflewatcher: network_priorities "scf": want none or job_fifo`},
		{policy.Spec{Name: "fifo", Args: map[string]any{"classes": 33}}, `fifo: classes 33: want 1 to 32`},
	} {
		if _, err := policy.Build(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%+v): error %v, want it to contain %q", c.spec, err, c.want)
		}
	}
}
