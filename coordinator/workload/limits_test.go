package workload

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
)

// Values that parsed before the limits and then overflowed the engine's
// byte arithmetic or exhausted its memory are refused with the file, the
// line, the field and the limit.
func TestWorkloadLimits(t *testing.T) {
	const ds = "block_size_bytes: 1073741824\ndatasets:\n  - {name: big, size_bytes: 4000000000000000000, block_size_bytes: 1099511627776, replication: 1}\n  - {name: small, size_bytes: 1000}\n"
	datasets, err := ParseDatasets("d.yaml", []byte(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, src, want string }{
		{"arrival huge", "jobs:\n  - id: a\n    arrival_s: 1e300\n    stages: [{name: m, kind: map, input: small}]\n",
			`w.yaml:3: job "a": arrival_s must be at most 1e+09`},
		{"tasks huge", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: small}\n      - {name: r, kind: reduce, after: [m], tasks: 2000000000}\n",
			`w.yaml:5: job "a" stage "r": tasks must be between 0 and 10000000`},
		{"selectivity huge", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: small, selectivity: 1e7}]\n",
			`w.yaml:3: job "a" stage "m": selectivity must be at most 1e+06`},
		{"output bytes huge", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: small, output_bytes: 9000000000000000000}]\n",
			`w.yaml:3: job "a" stage "m": output_bytes must be at most 2^62`},
		{"compute huge", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: small, compute_ns_per_byte: 1e12}]\n",
			`w.yaml:3: job "a" stage "m": compute_ns_per_byte must be at most 1e+06`},
		{"output replicas huge", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: small, output_replicas: 100000}]\n",
			`w.yaml:3: job "a" stage "m": output_replicas must be between 0 and 512`},
		// products: each factor is in bounds, the product is not
		{"selectivity × size", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: big, selectivity: 3}\n",
			`w.yaml:4: job "a" stage "m": output (selectivity × input) is 1.2e+19 bytes, above the limit of 2^62`},
		{"selectivity chain", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: small, selectivity: 1e6}\n      - {name: r, kind: reduce, tasks: 1, after: [m], selectivity: 1e6}\n      - {name: g, kind: generic, tasks: 1, after: [r], selectivity: 1e6}\n",
			`w.yaml:6: job "a" stage "g": output (selectivity × input) is 1e+21 bytes`},
		{"through parents", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: small, selectivity: 1e6}]\n  - id: b\n    parents: [a]\n    stages: [{name: m, kind: map, input: \"@a\", selectivity: 1e6}]\n  - id: c\n    parents: [b]\n    stages:\n      - {name: m, kind: map, input: \"@b\", selectivity: 1e6}\n",
			`w.yaml:10: job "c" stage "m": output (selectivity × input) is 1e+21 bytes`},
		{"workload total", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: big}]\n  - id: b\n    stages: [{name: m, kind: map, input: big}]\n",
			`w.yaml:5: job "b" stage "m": the workload's total of stage inputs and outputs is 8e+18 bytes`},
		{"total tasks", "jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: small}\n      - {name: r, kind: reduce, after: [m], tasks: 6000000}\n      - {name: g, kind: generic, after: [r], tasks: 6000000}\n",
			`w.yaml:6: job "a" stage "g": the workload's tasks add up to more than the limit of 10000000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkloadFor("w.yaml", []byte(tc.src), datasets)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

func TestDatasetLimits(t *testing.T) {
	topo := testTopology(t)
	for _, tc := range []struct{ name, src, want string }{
		{"size huge", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: 9223372036854775807}\n",
			`d.yaml:3: dataset "a": size_bytes must be at most 2^62`},
		{"block size huge", "datasets:\n  - {name: a, size_bytes: 1, block_size_bytes: 9223372036854775807}\n",
			`d.yaml:2: dataset "a": block_size_bytes must be at most 2^62`},
		{"default block size huge", "block_size_bytes: 9223372036854775807\ndatasets: []\n",
			`d.yaml:1: block_size_bytes must be at most 2^62`},
		{"too many blocks", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: 4000000000000000000}\n",
			`d.yaml:3: dataset "a": size_bytes / block_size_bytes gives 4000000000000000000 blocks, above the limit of 10000000`},
		{"replication huge", "block_size_bytes: 1\ndatasets:\n  - {name: a, size_bytes: 1, replication: 2000000000}\n",
			`d.yaml:3: dataset "a": replication must be between 0 and 512`},
		{"placed blocks sum", "datasets:\n  - name: a\n    blocks:\n      - {size_bytes: 4000000000000000000, replicas: [\"r0h0:hdd\"]}\n      - {size_bytes: 4000000000000000000, replicas: [\"r0h0:hdd\"]}\n",
			`d.yaml:5: dataset "a" block #2: the dataset's blocks add up to more than 2^62`},
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
}

// Validate holds the same limits for workloads built in code (importers,
// generators), which never see the parser.
func TestValidateLimits(t *testing.T) {
	ds := &Datasets{Datasets: []Dataset{{Name: "in", Size: 1 << 40, BlockSize: 1 << 27}}}
	for _, tc := range []struct {
		name string
		job  Job
		want string
	}{
		{"arrival", Job{ID: "a", Arrival: 1e300, Stages: []Stage{{Name: "m", Kind: Map, Input: "in"}}}, `job "a": arrival_s 1e+300 is outside [0, 1e+09]`},
		{"selectivity", Job{ID: "a", Stages: []Stage{{Name: "m", Kind: Map, Input: "in", Selectivity: 1e7}}}, `job "a" stage "m": selectivity 1e+07 is outside [0, 1e+06]`},
		{"product", Job{ID: "a", Stages: []Stage{{Name: "m", Kind: Map, Input: "in", Selectivity: 1e6}}}, `job "a" stage "m": output (selectivity × input) is 1.1e+18 bytes`},
		{"tasks", Job{ID: "a", Stages: []Stage{{Name: "m", Kind: Map, Input: "in", Tasks: 1 << 30}}}, `job "a" stage "m": tasks 1073741824 is above the limit of 10000000 per stage`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &Workload{Jobs: []Job{tc.job}}
			err := w.Validate(ds)
			if tc.name == "product" {
				// 2^40 × 1e6 is within 2^62: no error; 4× more is not
				if err != nil {
					t.Fatalf("within the limit: %v", err)
				}
				ds.Datasets[0].Size = 1 << 43
				defer func() { ds.Datasets[0].Size = 1 << 40 }()
				err = w.Validate(ds)
				tc.want = `job "a" stage "m": output (selectivity × input) is 8.796e+18 bytes`
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

// A long chain of jobs, each the parent of the one before it in the file,
// validates and has its volume without a deep stack: the walks up the
// parent links keep their own. Before, they recursed, and a chain of
// 800,000 jobs overflowed the goroutine's stack (a fatal error, not a
// panic). Here the stack is held to 16 MiB, which 100,000 recursive
// calls overflow.
func TestLongChainNeedsNoDeepStack(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	const n = 100_000
	w := &Workload{Jobs: make([]Job, n)}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		j.ID = fmt.Sprintf("j%d", i)
		input := "in"
		if i < n-1 {
			j.Parents = []string{fmt.Sprintf("j%d", i+1)}
			input = fmt.Sprintf("@j%d", i+1)
		}
		j.Stages = []Stage{{Name: "m", Kind: Map, Input: input, Selectivity: 1}}
	}
	ds := &Datasets{Datasets: []Dataset{{Name: "in", Size: 1 << 20, BlockSize: 1 << 20, Replication: 1}}}
	if err := w.Validate(ds); err != nil {
		t.Fatal(err)
	}
	vol, err := w.Volume(ds)
	if err != nil || vol.Tasks != n {
		t.Fatalf("volume %+v, %v; want %d tasks", vol, err, n)
	}
	// a cycle through the chain's end is still found and named
	w.Jobs[n-1].Parents = []string{"j0"}
	if err := w.Validate(ds); err == nil || !strings.Contains(err.Error(), "job DAG has a cycle through job") {
		t.Errorf("a cycle: %v", err)
	}
}
