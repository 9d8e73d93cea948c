package workload

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

const exampleWorkload = `jobs:
  - id: job-a
    arrival_s: 0
    stages:
      - {name: map, kind: map, input: tbl}
  - id: job0
    arrival_s: 49.5
    queue: default
    recurring: etl-daily
    parents: [job-a]
    stages:
      - {name: map, kind: map, input: in-job0, selectivity: 3.1, compute_ns_per_byte: 5}
      - {name: side, kind: map, input: "@job-a", tasks: 2}
      - name: reduce
        kind: reduce
        tasks: 3
        after: [map, side]
        output_bytes: 627471
        skew: 0.5
        output_replicas: 1
`

const exampleDatasets = `block_size_bytes: 134217728
replication: 3
datasets:
  - {name: in-job0, size_bytes: 740773}
  - {name: small, size_bytes: 10, block_size_bytes: 4, replication: 1}
  - name: tbl
    blocks:
      - {size_bytes: 134217728, replicas: ["r0h0:hdd", "r1h2:ssd"]}
      - {size_bytes: 5, replicas: ["r1h0:mem"]}
`

func testTopology(t testing.TB) *cluster.Topology {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 3, Slots: 4, NICBps: 1.25e9, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func TestParseExamples(t *testing.T) {
	topo := testTopology(t)
	ds, err := ParseDatasets("d.yaml", []byte(exampleDatasets), topo)
	if err != nil {
		t.Fatal(err)
	}
	wantDS := &Datasets{Datasets: []Dataset{
		{Name: "in-job0", Size: 740773, BlockSize: 128 << 20, Replication: 3},
		{Name: "small", Size: 10, BlockSize: 4, Replication: 1},
		{Name: "tbl", Blocks: []Block{
			{Size: 128 << 20, Replicas: []Replica{{Host: 0, Tier: cluster.HDD}, {Host: 5, Tier: cluster.SSD}}},
			{Size: 5, Replicas: []Replica{{Host: 3, Tier: cluster.Mem}}},
		}},
	}}
	if !reflect.DeepEqual(ds, wantDS) {
		t.Errorf("datasets:\n got %+v\nwant %+v", ds, wantDS)
	}
	w, err := ParseWorkloadFor("w.yaml", []byte(exampleWorkload), ds)
	if err != nil {
		t.Fatal(err)
	}
	want := &Workload{Jobs: []Job{
		{ID: "job-a", Stages: []Stage{{Name: "map", Kind: Map, Input: "tbl"}}},
		{ID: "job0", Arrival: 49.5, Queue: "default", Recurring: "etl-daily", Parents: []string{"job-a"}, Stages: []Stage{
			{Name: "map", Kind: Map, Input: "in-job0", Selectivity: 3.1, ComputeNsPerByte: 5},
			{Name: "side", Kind: Map, Input: "@job-a", Tasks: 2},
			{Name: "reduce", Kind: Reduce, Tasks: 3, After: []string{"map", "side"}, OutputBytes: 627471, Skew: 0.5, OutputReplicas: 1},
		}},
	}}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("workload:\n got %+v\nwant %+v", w, want)
	}
	roundTripWorkload(t, w)
	roundTripDatasets(t, ds, topo)
}

func roundTripWorkload(t testing.TB, w *Workload) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteWorkload(&buf, w); err != nil {
		t.Fatal(err)
	}
	back, err := ParseWorkload("rt.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, w) {
		t.Fatalf("round trip differs:\nwrote\n%s\ngot  %+v\nwant %+v", buf.String(), back, w)
	}
}

func roundTripDatasets(t testing.TB, ds *Datasets, topo *cluster.Topology) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteDatasets(&buf, ds, topo); err != nil {
		t.Fatal(err)
	}
	back, err := ParseDatasets("rt.yaml", buf.Bytes(), topo)
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, ds) {
		t.Fatalf("round trip differs:\nwrote\n%s\ngot  %+v\nwant %+v", buf.String(), back, ds)
	}
}

var oddNames = []string{"job0", "123", "true", "null", "~", "a b", "x:y", "#c", "- d", "ünï", "q\"uote", "new\nline", "[x]", "{y}", "a, b", " lead", "Yes", "@", "*a", "&b", "!t", "%p", "`b"}

func randomWorkload(rng *rand.Rand, n int) (*Workload, *Datasets) {
	w := &Workload{}
	ds := &Datasets{}
	name := func(i int) string {
		if rng.Intn(4) == 0 {
			return oddNames[rng.Intn(len(oddNames))] + fmt.Sprint(i)
		}
		return fmt.Sprintf("job%d", i)
	}
	num := func() float64 {
		switch rng.Intn(4) {
		case 0:
			return 0
		case 1:
			return float64(rng.Intn(100))
		case 2:
			return rng.Float64() * 1e-6
		}
		return rng.ExpFloat64() * 1e3
	}
	for i := 0; i < n; i++ {
		j := Job{ID: name(i), Arrival: num()}
		if rng.Intn(3) == 0 {
			j.Queue = oddNames[rng.Intn(len(oddNames))]
		}
		if rng.Intn(3) == 0 {
			j.Recurring = oddNames[rng.Intn(len(oddNames))]
		}
		var parents []string
		for k := 0; k < i && k < 3; k++ {
			if rng.Intn(3) == 0 {
				parents = append(parents, w.Jobs[rng.Intn(i)].ID)
			}
		}
		seen := map[string]bool{}
		for _, p := range parents {
			if !seen[p] {
				j.Parents = append(j.Parents, p)
				seen[p] = true
			}
		}
		in := "in-" + j.ID
		if len(j.Parents) > 0 && rng.Intn(2) == 0 {
			in = ParentOutputPrefix + j.Parents[0]
		} else {
			ds.Datasets = append(ds.Datasets, Dataset{Name: in, Size: rng.Int63n(1 << 40), BlockSize: 1 << (20 + rng.Intn(8)), Replication: rng.Intn(4)})
		}
		sel := num()
		if in[:1] == ParentOutputPrefix {
			sel = min(sel, 1) // chains of selectivities above 1 would pass MaxBytes
		}
		j.Stages = append(j.Stages, Stage{Name: "map", Kind: Map, Input: in, Tasks: rng.Intn(2), Selectivity: sel, ComputeNsPerByte: num(), Skew: num()})
		if rng.Intn(2) == 0 {
			j.Stages = append(j.Stages, Stage{Name: "r:1", Kind: StageKind(1 + rng.Intn(2)), Tasks: 1 + rng.Intn(100), After: []string{"map"},
				OutputBytes: rng.Int63n(1 << 40), Skew: num(), OutputReplicas: rng.Intn(3), ComputeNsPerByte: num()})
			if r := &j.Stages[len(j.Stages)-1]; rng.Intn(3) == 0 {
				r.Skew, r.Shares = 0, make([]float64, r.Tasks)
				for k := range r.Shares {
					r.Shares[k] = num() + 1e-9
				}
			}
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w, ds
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	topo := testTopology(t)
	for iter := 0; iter < 100; iter++ {
		w, ds := randomWorkload(rng, rng.Intn(20))
		if err := w.Validate(ds); err != nil {
			t.Fatal(err)
		}
		roundTripWorkload(t, w)
		for k := 0; k < 3; k++ {
			d := Dataset{Name: fmt.Sprintf("placed %d", k)}
			if rng.Intn(2) == 0 {
				d.BlockSize, d.Replication = 1<<20, 2
			}
			for b := 0; b < 1+rng.Intn(3); b++ {
				blk := Block{Size: rng.Int63n(1 << 27)}
				for r := 0; r < 1+rng.Intn(3); r++ {
					blk.Replicas = append(blk.Replicas, Replica{Host: cluster.HostID(r*2 + rng.Intn(2)), Tier: cluster.TierKind(rng.Intn(3))})
				}
				d.Blocks = append(d.Blocks, blk)
				d.Size += blk.Size
			}
			if rng.Intn(2) == 0 {
				d.Size = 0
			}
			ds.Datasets = append(ds.Datasets, d)
		}
		if err := ds.Validate(topo); err != nil {
			t.Fatal(err)
		}
		roundTripDatasets(t, ds, topo)
	}
	roundTripWorkload(t, &Workload{})
	roundTripDatasets(t, &Datasets{}, nil)
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	topo := testTopology(t)
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(wp, []byte(exampleWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dp, []byte(exampleDatasets), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := LoadDatasets(dp, topo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkload(wp); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkloadFor(wp, ds); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkloadFor(wp, &Datasets{}); err == nil || !strings.Contains(err.Error(), `w.yaml:5: job "job-a" stage "map": unknown dataset "tbl"`) {
		t.Errorf("unknown dataset: %v", err)
	}
	if _, err := LoadWorkload(filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("loading a missing file succeeded")
	}
}

func TestWorkloadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "w.yaml: file is empty"},
		{"syntax", "jobs:\n  - id: [\n", "w.yaml:2: YAML syntax"},
		{"no jobs", "job: []\n", `w.yaml:1: unknown field "job"`},
		{"jobs not list", "jobs: 3\n", `w.yaml:1: jobs: want a list, got "3"`},
		{"no id", "jobs:\n  - arrival_s: 1\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:2: job #1: missing field "id"`},
		{"no stages", "jobs:\n  - id: a\n", `w.yaml:2: job "a": missing field "stages"`},
		{"empty stages", "jobs:\n  - id: a\n    stages: []\n", `w.yaml:3: job "a": stages: the list is empty`},
		{"unknown job field", "jobs:\n  - id: a\n    arrival: 3\n", `w.yaml:3: job "a": unknown field "arrival"`},
		{"arrival text", "jobs:\n  - id: a\n    arrival_s: soon\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:3: job "a": arrival_s: want a finite number, got "soon"`},
		{"arrival negative", "jobs:\n  - id: a\n    arrival_s: -1\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:3: job "a": arrival_s must not be negative`},
		{"dup id", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: x}]\n  - id: a\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:4: job "a": job id "a" is used twice (first at line 2)`},
		{"stage kind", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: mapper, input: x}\n", `w.yaml:4: job "a" stage "m": kind: unknown stage kind "mapper"`},
		{"stage no kind", "jobs:\n  - id: a\n    stages:\n      - {name: m, input: x}\n", `w.yaml:4: job "a" stage "m": missing field "kind"`},
		{"stage no name", "jobs:\n  - id: a\n    stages:\n      - {kind: map, input: x}\n", `w.yaml:4: job "a" stage #1: missing field "name"`},
		{"stage unknown", "jobs:\n  - id: a\n    stages:\n      - name: m\n        kind: map\n        inptu: x\n", `w.yaml:6: job "a" stage "m": unknown field "inptu"`},
		{"tasks negative", "jobs:\n  - id: a\n    stages:\n      - name: m\n        kind: map\n        tasks: -1\n", `w.yaml:6: job "a" stage "m": tasks must be between 0 and`},
		{"tasks fraction", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, tasks: 1.5}\n", `w.yaml:4: job "a" stage "m": tasks: want a whole number, got 1.5`},
		{"selectivity negative", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, selectivity: -2}\n", `w.yaml:4: job "a" stage "m": selectivity must not be negative`},
		{"skew nan", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, skew: .nan}\n", `w.yaml:4: job "a" stage "m": skew: want a finite number`},
		{"shares not list", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: 3}\n", `w.yaml:5: job "a" stage "r": shares: want a list, got "3"`},
		{"shares empty", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: []}\n", `w.yaml:5: job "a" stage "r": shares: the list is empty`},
		{"shares text", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - name: r\n        kind: reduce\n        tasks: 2\n        after: [m]\n        shares:\n          - 1\n          - lots\n", `w.yaml:11: job "a" stage "r": shares: weight #2: want a finite number, got "lots"`},
		{"shares nested", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: [1, [2]]}\n", `w.yaml:5: job "a" stage "r": shares: weight #2: want a number`},
		{"shares inf", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: [1, .inf]}\n", `w.yaml:5: job "a" stage "r": shares: weight #2: want a finite number`},
		{"output negative", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, output_bytes: -2}\n", `w.yaml:4: job "a" stage "m": output_bytes must not be negative`},
		{"dup stage", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: m, kind: map, input: x}\n", `w.yaml:5: job "a" stage "m": stage name "m" is used twice in the job (first at line 4)`},
		{"after not list", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: reduce, after: {x: 1}}\n", `w.yaml:4: job "a" stage "m": after: want a list, got a mapping`},
		{"parents bad", "jobs:\n  - id: a\n    parents: [[x]]\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:3: job "a": parents: want a list of strings, got a list in it`},
		// Errors found by Validate, placed at the job's or stage's line.
		{"unknown parent", "jobs:\n  - id: a\n    parents: [zz]\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:2: job "a": unknown parent job "zz"`},
		{"reduce without after", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 1}\n", `w.yaml:5: job "a" stage "r": a reduce stage needs earlier stages in 'after'`},
		{"reduce without tasks", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, after: [m]}\n", `w.yaml:5: job "a" stage "r": a reduce stage needs a task count`},
		{"after unknown", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 1, after: [q]}\n", `w.yaml:5: job "a" stage "r": 'after' names "q"`},
		{"map without input", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map}\n", `w.yaml:4: job "a" stage "m": a map stage needs an input`},
		{"parent output not parent", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: x}]\n  - id: b\n    stages:\n      - {name: m, kind: map, input: \"@a\"}\n", `w.yaml:6: job "b" stage "m": input "@a" is not the output of a parent job`},
		{"shares too few", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 3, after: [m], shares: [3, 1]}\n", `w.yaml:5: job "a" stage "r": shares: 2 weights for 3 tasks (want one per task)`},
		{"shares too many", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: generic, tasks: 1, after: [m], shares: [3, 1]}\n", `w.yaml:5: job "a" stage "r": shares: 2 weights for 1 tasks`},
		{"shares zero", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: [3, 0]}\n", `w.yaml:5: job "a" stage "r": shares: weight #2 is 0; each must be positive`},
		{"shares negative", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: [-1, 2]}\n", `w.yaml:5: job "a" stage "r": shares: weight #1 is -1; each must be positive`},
		{"shares huge", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], shares: [1e300, 2]}\n", `w.yaml:5: job "a" stage "r": shares: weight #1 is 1e+300; each must be positive, finite and at most`},
		{"shares and skew", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: r, kind: reduce, tasks: 2, after: [m], skew: 1, shares: [1, 2]}\n", `w.yaml:5: job "a" stage "r": give skew or shares, not both`},
		{"shares on map", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x, shares: [1]}\n", `w.yaml:4: job "a" stage "m": shares: a map stage has no partitions`},
		{"cycle", "jobs:\n  - id: a\n    parents: [b]\n    stages: [{name: m, kind: map, input: x}]\n  - id: b\n    parents: [a]\n    stages: [{name: m, kind: map, input: x}]\n", `w.yaml:2: job DAG has a cycle through job "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkload("w.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

func TestDatasetsErrors(t *testing.T) {
	topo := testTopology(t)
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "d.yaml: file is empty"},
		{"no datasets", "replication: 3\n", `d.yaml:1: missing field "datasets"`},
		{"unknown top", "datasets: []\nblock_size: 3\n", `d.yaml:2: unknown field "block_size"`},
		{"bad default block", "block_size_bytes: 0\ndatasets: []\n", "d.yaml:1: block_size_bytes must be positive"},
		{"no name", "datasets:\n  - {size_bytes: 3, block_size_bytes: 1}\n", `d.yaml:2: dataset #1: missing field "name"`},
		{"no size", "datasets:\n  - {name: a, block_size_bytes: 1}\n", `d.yaml:2: dataset "a": missing field "size_bytes" (or blocks)`},
		{"no block size", "datasets:\n  - {name: a, size_bytes: 1}\n", `d.yaml:2: dataset "a": missing field "block_size_bytes"`},
		{"negative size", "block_size_bytes: 1\ndatasets:\n  - name: a\n    size_bytes: -1\n", `d.yaml:4: dataset "a": size_bytes must not be negative`},
		{"size text", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: big}\n", `d.yaml:3: dataset "a": size_bytes: want an integer, got "big"`},
		{"negative replication", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: 1, replication: -1}\n", `d.yaml:3: dataset "a": replication must be between 0 and`},
		{"dup", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: 1}\n  - {name: a, size_bytes: 1}\n", `d.yaml:4: dataset "a": dataset name "a" is used twice (first at line 3)`},
		{"unknown field", "datasets:\n  - name: a\n    blokcs: []\n", `d.yaml:3: dataset "a": unknown field "blokcs"`},
		{"unknown host", "datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: [\"r9h0:hdd\"]}\n", `d.yaml:4: dataset "a" block #1: replicas: "r9h0:hdd": unknown host "r9h0"`},
		{"bad tier", "datasets:\n  - name: a\n    blocks:\n      - size_bytes: 1\n        replicas:\n          - r0h0:flash\n", `d.yaml:6: dataset "a" block #1: replicas: "r0h0:flash": unknown tier kind "flash"`},
		{"no colon", "datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: [r0h0]}\n", `d.yaml:4: dataset "a" block #1: replicas: "r0h0" is not "host:tier"`},
		{"no replicas", "datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: []}\n", `d.yaml:4: dataset "a" block #1: replicas: the list is empty`},
		{"dup replica", "datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: [\"r0h0:hdd\", \"r0h0:hdd\"]}\n", `d.yaml:4: dataset "a" block #1: replicas: "r0h0:hdd" is listed twice`},
		{"block no size", "datasets:\n  - name: a\n    blocks:\n      - {replicas: [\"r0h0:hdd\"]}\n", `d.yaml:4: dataset "a" block #1: missing field "size_bytes"`},
		{"block unknown", "datasets:\n  - name: a\n    blocks:\n      - {size: 1}\n", `d.yaml:4: dataset "a" block #1: unknown field "size"`},
		{"size mismatch", "datasets:\n  - name: a\n    size_bytes: 3\n    blocks:\n      - {size_bytes: 1, replicas: [\"r0h0:hdd\"]}\n", `d.yaml:3: dataset "a": size_bytes is 3 but the blocks add up to 1`},
		{"stored bytes overflow", "datasets:\n  - {name: a, size_bytes: 4611686018427387904, block_size_bytes: 4611686018427387904, replication: 1}\n  - {name: b, size_bytes: 4611686018427387904, block_size_bytes: 4611686018427387904, replication: 1}\n",
			`d.yaml:3: dataset "b": the datasets' bytes times their replicas add up to more than the limit of 2^62`},
		{"replicated bytes overflow", "datasets:\n  - {name: a, size_bytes: 4611686018427387904, block_size_bytes: 4611686018427387904}\n",
			`d.yaml:2: dataset "a": the datasets' bytes times their replicas add up to more than the limit of 2^62`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDatasets("d.yaml", []byte(tc.src), topo)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
	_, err := ParseDatasets("d.yaml", []byte(exampleDatasets), nil)
	if err == nil || !strings.HasPrefix(err.Error(), `d.yaml:8: dataset "tbl": placed datasets need a topology`) {
		t.Errorf("placed without topology: %v", err)
	}
	// A host without the tier.
	small, _ := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 1, Slots: 1, NICBps: 1, Oversubscription: 1,
		Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1, WriteBps: 1}}})
	_, err = ParseDatasets("d.yaml", []byte("datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: [\"r0h0:ssd\"]}\n"), small)
	if err == nil || !strings.HasPrefix(err.Error(), `d.yaml:4: dataset "a" block #1: replicas: "r0h0:ssd": host "r0h0" has no ssd tier`) {
		t.Errorf("missing tier: %v", err)
	}
}

func FuzzParseWorkload(f *testing.F) {
	f.Add([]byte(exampleWorkload))
	f.Add([]byte("jobs: []\n"))
	f.Add([]byte("jobs:\n  - id: \"1\"\n    arrival_s: 1e3\n    stages: [{name: m, kind: map, input: \"x:y\", tasks: 2.0}]\n"))
	f.Add([]byte("jobs:\n  - id: a\n    parents: [b]\n    stages: [{name: m, kind: map, input: x}]\n  - id: b\n    parents: [a]\n    stages: [{name: m, kind: map, input: x}]\n"))
	f.Add([]byte("s: &s {name: m, kind: map, input: x}\njobs: [{id: a, stages: [*s, {<<: *s, name: n}]}]\n"))
	f.Add([]byte("jobs:\n  - id: [\n"))
	f.Add([]byte("jobs:\n  - {id: a, stages: [{name: r, kind: reduce, tasks: -1}]}\n"))
	f.Add([]byte("jobs:\n  - {id: a, arrival_s: 1e300, stages: [{name: m, kind: map, input: x}]}\n"))
	f.Add([]byte("jobs:\n  - {id: a, stages: [{name: m, kind: map, input: x, selectivity: 1e6, output_bytes: 4611686018427387905}]}\n"))
	f.Add([]byte("jobs:\n  - {id: a, stages: [{name: m, kind: map, input: x}, {name: r, kind: reduce, after: [m], tasks: 2147483647}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		roundTripWorkload(t, w)
	})
}

func FuzzParseDatasets(f *testing.F) {
	topo := testTopology(f)
	f.Add([]byte(exampleDatasets))
	f.Add([]byte("datasets: []\n"))
	f.Add([]byte("datasets:\n  - {name: a, size_bytes: 0, block_size_bytes: 1e3}\n"))
	f.Add([]byte("datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 1, replicas: [\"r9h0:hdd\"]}\n"))
	f.Add([]byte("datasets:\n  - name: a\n    size_bytes: 3\n    blocks:\n      - {size_bytes: 1, replicas: [\"r0h0:hdd\", \"r0h1:mem\"]}\n"))
	f.Add([]byte("datasets: [\n"))
	f.Add([]byte("datasets:\n  - {name: a, size_bytes: 9223372036854775807, block_size_bytes: 1}\n"))
	f.Add([]byte("datasets:\n  - {name: a, size_bytes: 4611686018427387904, block_size_bytes: 4611686018427387904, replication: 100000}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseDatasets("f.yaml", data, topo)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		roundTripDatasets(t, ds, topo)
	})
}

// swimLike is a workload shaped like an imported SWIM trace: a map stage
// per job, and a reduce stage for most.
func swimLike(n int) (*Workload, *Datasets) {
	rng := rand.New(rand.NewSource(1))
	w := &Workload{Jobs: make([]Job, 0, n)}
	ds := &Datasets{Datasets: make([]Dataset, 0, n)}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("job%d", i)
		in := "in-" + id
		size := int64(rng.ExpFloat64() * 1e10)
		ds.Datasets = append(ds.Datasets, Dataset{Name: in, Size: size, BlockSize: 128 << 20, Replication: 3})
		j := Job{ID: id, Arrival: float64(i) * 3.7, Stages: []Stage{
			{Name: "map", Kind: Map, Input: in, Selectivity: rng.Float64() * 3, ComputeNsPerByte: 5},
		}}
		if rng.Intn(4) > 0 {
			j.Stages = append(j.Stages, Stage{Name: "reduce", Kind: Reduce, Tasks: 1 + rng.Intn(50), After: []string{"map"},
				OutputBytes: int64(rng.ExpFloat64() * 1e9), ComputeNsPerByte: 5})
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w, ds
}

func BenchmarkParseWorkload25k(b *testing.B) {
	w, _ := swimLike(25000)
	var buf bytes.Buffer
	if err := WriteWorkload(&buf, w); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseWorkload("w.yaml", buf.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteWorkload25k(b *testing.B) {
	w, _ := swimLike(25000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := WriteWorkload(&buf, w); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
	}
}

func BenchmarkParseDatasets25k(b *testing.B) {
	_, ds := swimLike(25000)
	var buf bytes.Buffer
	if err := WriteDatasets(&buf, ds, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseDatasets("d.yaml", buf.Bytes(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
