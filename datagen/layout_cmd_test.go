package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

// --placement octopus puts one replica of each block on each tier; with a
// tier mix, or an unknown name, the command refuses before reading files.
func TestLayoutCommandOctopus(t *testing.T) {
	dir := t.TempDir()
	wp, dp, tp, op := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml"), filepath.Join(dir, "t.yaml"), filepath.Join(dir, "placed.yaml")
	if err := os.WriteFile(tp, []byte("uniform: {racks: 3, hosts_per_rack: 4, slots: 2, nic_gbps: 10, oversubscription: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "mix", "--preset", "hibench-small", "--out-workload", wp, "--out-datasets", dp); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "layout", "--topology", tp, "--datasets", dp, "--out", op, "--placement", "octopus", "--seed", "5"); err != nil {
		t.Fatal(err)
	}
	topo, _ := cluster.LoadTopology(tp)
	_, ds := load(t, wp, op, topo)
	for _, d := range ds.Datasets {
		for b, blk := range d.Blocks {
			var n [cluster.NumTierKinds]int
			for _, r := range blk.Replicas {
				n[r.Tier]++
			}
			if n != [cluster.NumTierKinds]int{1, 1, 1} {
				t.Fatalf("dataset %s block %d: %+v, want one replica per tier", d.Name, b, blk.Replicas)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--placement", "octopus", "--tier-mix", "memory=1"}, "a tier mix is a setting of the hdfs placer"},
		{[]string{"--placement", "gfs"}, `unknown placement "gfs": hdfs or octopus`},
	} {
		args := append([]string{"layout", "--topology", filepath.Join(dir, "none.yaml"), "--datasets", dp, "--out", op}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
