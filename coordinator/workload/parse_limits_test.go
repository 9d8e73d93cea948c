package workload

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
)

// A job of many stages is read in time linear in its size: each stage
// name was compared with every earlier one, and 120,000 stages (5 MB)
// took 16 s.
func TestManyStagesInLinearTime(t *testing.T) {
	const n = 120000
	var b strings.Builder
	b.WriteString("jobs:\n  - id: a\n    stages:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "      - {name: s%d, kind: map, input: x}\n", i)
	}
	start := time.Now()
	w, err := ParseWorkload("w.yaml", []byte(b.String()))
	if elapsed := time.Since(start); elapsed > 6*time.Second {
		t.Errorf("reading a job of %d stages took %v", n, elapsed)
	}
	if err != nil || len(w.Jobs[0].Stages) != n {
		t.Fatalf("%v", err)
	}
	b.WriteString("      - {name: s7, kind: map, input: x}\n")
	if _, err := ParseWorkload("w.yaml", []byte(b.String())); err == nil ||
		!strings.HasPrefix(err.Error(), fmt.Sprintf(`w.yaml:%d: job "a" stage "s7": stage name "s7" is used twice in the job (first at line 11)`, n+4)) {
		t.Errorf("duplicate stage: %v", err)
	}
}

// A block listing more replicas than MaxReplicas is refused at its
// replicas field before each replica is compared with the earlier ones:
// 200,000 replicas took many seconds to be refused by Validate.
func TestTooManyReplicasRefusedEarly(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: cluster.MaxHosts, Slots: 1, NICBps: 1e6, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200000
	var b strings.Builder
	b.WriteString("datasets:\n  - name: a\n    blocks:\n      - size_bytes: 1\n        replicas:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "          - r0h%d:%s\n", i%cluster.MaxHosts, []string{"hdd", "ssd"}[i/cluster.MaxHosts])
	}
	start := time.Now()
	_, err = ParseDatasets("d.yaml", []byte(b.String()), topo)
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Errorf("refusing %d replicas took %v", n, elapsed)
	}
	if err == nil || !strings.HasPrefix(err.Error(), `d.yaml:6: dataset "a" block #1: replicas: 200000 replicas is above the limit of 512`) {
		t.Errorf("too many replicas: %v", err)
	}
}

// An empty job id, stage name or dataset name is refused at its line;
// Validate said only "w.yaml: job #1 has no id" for the second job of a
// file, with no line and counting from 0.
func TestEmptyNamesNamedWithLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"jobs:\n  - {id: a, stages: [{name: m, kind: map, input: x}]}\n  - {id: \"\", stages: [{name: m, kind: map, input: x}]}\n",
			`w.yaml:3: job #2: id must not be empty`},
		{"jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: x}\n      - {name: \"\", kind: map, input: x}\n",
			`w.yaml:5: job "a" stage #2: name must not be empty`},
	} {
		if _, err := ParseWorkload("w.yaml", []byte(tc.src)); err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
	_, err := ParseDatasets("d.yaml", []byte("datasets:\n  - {name: b, size_bytes: 1, block_size_bytes: 1}\n  - {name: \"\", size_bytes: 1, block_size_bytes: 1}\n"), nil)
	if want := `d.yaml:3: dataset #2: name must not be empty`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	w := &Workload{Jobs: []Job{{ID: "a"}, {}}}
	if err := w.Validate(nil); err == nil || err.Error() != "job #2 has no id" {
		t.Errorf("Validate: %v", err)
	}
}

// Datasets.Validate without a topology refuses a placed dataset instead
// of panicking on the nil topology.
func TestValidatePlacedWithoutTopology(t *testing.T) {
	ds := &Datasets{Datasets: []Dataset{{Name: "a", Blocks: []Block{{Size: 1, Replicas: []Replica{{Host: 0}}}}}}}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	if err := ds.Validate(nil); err == nil || !strings.Contains(err.Error(), `dataset "a" is placed`) {
		t.Errorf("Validate(nil): %v", err)
	}
}
