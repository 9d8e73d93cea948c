package campaign

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
)

const storageHead = "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n"

// A run set's placement, tier_mix and memory_lru are read, with their
// defaults (hdfs, no mix, no LRU), in every mode.
func TestStorageKeys(t *testing.T) {
	c, err := Load(writeCampaign(t, storageHead+
		"  - {mode: sim, policies: [fifo]}\n"+
		"  - {mode: sim, name: oct, policies: [fifo], placement: octopus, memory_lru: true}\n"+
		"  - {mode: sim, name: mix, policies: [fifo], placement: hdfs, tier_mix: {memory: 1, ssd: 2, hdd: 0.5}}\n"+
		"  - {mode: local, policies: [fifo], tier_mix: {mem: 1}, memory_lru: false}\n"+
		"  - {mode: sim, name: inputs, policies: [fifo], placement: octopus, place_outputs: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []RunSet{
		{Placement: "hdfs"},
		{Placement: "octopus", OutputPlacement: true, MemoryLRU: true},
		{Placement: "hdfs", OutputPlacement: true, TierMix: placement.TierMix{1, 2, 0.5}},
		{Placement: "hdfs", TierMix: placement.TierMix{1, 0, 0}},
		{Placement: "octopus"},
	} {
		got := c.Runs[i]
		if got.Placement != want.Placement || got.OutputPlacement != want.OutputPlacement || got.TierMix != want.TierMix || got.MemoryLRU != want.MemoryLRU {
			t.Errorf("run set %d: placement %q (outputs %v), tier mix %v, memory LRU %v; want %q (%v), %v, %v", i, got.Placement, got.OutputPlacement, got.TierMix, got.MemoryLRU,
				want.Placement, want.OutputPlacement, want.TierMix, want.MemoryLRU)
		}
	}
	for _, tc := range []struct{ run, want string }{
		{"  - {mode: sim, policies: [fifo], placement: ceph}\n", `c.yaml:6: runs[0]: unknown placement "ceph": hdfs or octopus`},
		{"  - {mode: sim, policies: [fifo], placement: octopus, tier_mix: {memory: 1}}\n", `runs[0]: tier_mix is a setting of the hdfs placement: octopus puts one replica on each tier`},
		{"  - {mode: sim, policies: [fifo], tier_mix: {memory: -1}}\n", `runs[0] tier_mix: the share of memory is a weight, 0 or more: got -1`},
		{"  - {mode: sim, policies: [fifo], tier_mix: {flash: 1}}\n", `unknown tier kind "flash" (want memory, ssd or hdd)`},
		{"  - {mode: sim, policies: [fifo], tier_mix: {mem: 1, memory: 2}}\n", `mem and memory are one tier`},
		{"  - {mode: sim, policies: [fifo], tier_mix: {hdd: 0}}\n", `the shares add up to 0`},
		{"  - {mode: sim, policies: [fifo], tier_mix: {hdd: x}}\n", `c.yaml:6`},
		{"  - {mode: sim, policies: [fifo], tier_mix: 3}\n", `c.yaml:6`},
		{"  - {mode: sim, policies: [fifo], memory_lru: maybe}\n", `runs[0]: memory_lru: want true or false, got "maybe"`},
		{"  - {mode: sim, policies: [fifo], place_outputs: true}\n", `runs[0]: place_outputs says whether the run set's placement also writes job outputs: give placement with it`},
	} {
		if _, err := Load(writeCampaign(t, storageHead+tc.run)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.run, err, tc.want)
		}
	}
}

// A placement given explicitly also places job outputs, with the same
// placer; without the key, outputs keep the engine's default.
func TestPlacementKeyPlacesOutputs(t *testing.T) {
	for _, tc := range []struct {
		set  RunSet
		want string // the output placer's type; "" for none
	}{
		{RunSet{Placement: "hdfs"}, ""},
		{RunSet{Placement: "hdfs", TierMix: placement.TierMix{1, 0, 0}}, ""},
		{RunSet{Placement: "hdfs", OutputPlacement: true}, "*hdfs.Placer"},
		{RunSet{Placement: "octopus", OutputPlacement: true}, "*octopus.Placer"},
	} {
		placer, outputs, err := placers(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if outputs != nil {
			got = fmt.Sprintf("%T", outputs)
			if any(outputs) != any(placer) {
				t.Errorf("%+v: the output placer is not the dataset placer", tc.set)
			}
		}
		if got != tc.want {
			t.Errorf("%+v: output placer %q, want %q", tc.set, got, tc.want)
		}
	}
	if _, _, err := placers(RunSet{Placement: "ceph", OutputPlacement: true}); err == nil {
		t.Error("unknown placement: no error")
	}
}

// The simulator honours the placement: with HDFS's default every map
// reads HDD; with octopus, or a memory tier mix, maps read memory.
func TestStorageKeysReachTheSimulator(t *testing.T) {
	c, err := Load(writeCampaign(t, storageHead+
		"  - {mode: sim, policies: [fifo]}\n"+
		"  - {mode: sim, name: oct, policies: [fifo], placement: octopus}\n"+
		"  - {mode: sim, name: mem, policies: [fifo], tier_mix: {memory: 1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	memFrac := func(set string) float64 {
		t.Helper()
		f, err := os.Open(filepath.Join(SetDir(out, set, ""), "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s summary: %d rows, %v", set, len(rows), err)
		}
		col := slices.Index(rows[0], "tier_"+cluster.Mem.String()+"_frac")
		if col < 0 {
			t.Fatalf("%s summary has no memory tier column: %v", set, rows[0])
		}
		x, err := strconv.ParseFloat(rows[1][col], 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	def, oct, mem := memFrac("sim"), memFrac("sim-oct"), memFrac("sim-mem")
	if def != 0 || oct <= 0 || oct >= 1 || mem <= oct {
		t.Fatalf("share of maps reading memory: hdfs %g, octopus %g, hdfs with a memory mix %g; want 0, in (0,1), above octopus", def, oct, mem)
	}
}

// writer_racks reaches the hdfs placer; it is refused with octopus and
// when it is not a list of rack indexes.
func TestWriterRacksKey(t *testing.T) {
	c, err := Load(writeCampaign(t, storageHead+"  - {mode: sim, policies: [fifo], writer_racks: [1]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	placer, _, err := placers(c.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if hp, ok := placer.(*hdfs.Placer); !ok || len(hp.WriterRacks) != 1 || hp.WriterRacks[0] != 1 {
		t.Fatalf("placer %#v, want hdfs writing from rack 1", placer)
	}
	for run, want := range map[string]string{
		"  - {mode: sim, policies: [fifo], placement: octopus, writer_racks: [0]}\n":                     "writer_racks is a setting of the hdfs placement, not of octopus",
		"  - {mode: sim, policies: [fifo], writer_racks: [-1]}\n":                                        `writer rack "-1" is not a rack index`,
		"  - {mode: sim, policies: [fifo], writer_racks: []}\n":                                          "give at least one",
		"  - {mode: sim, policies: [fifo], writer_racks: [0, 2]}\n":                                      "c.yaml:6: runs[0]: writer_racks: rack 2 is not in the run set's cluster, whose racks are 0 to 1",
		"  - {mode: sim, policies: [fifo], cluster: {racks: 1, hosts_per_rack: 3}, writer_racks: [1]}\n": "rack 1 is not in the run set's cluster, whose racks are 0 to 0",
	} {
		if _, err := Load(writeCampaign(t, storageHead+run)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", run, err, want)
		}
	}
	// a run set's own cluster holds the rack the campaign's does not
	if _, err := Load(writeCampaign(t, storageHead+"  - {mode: sim, policies: [fifo], cluster: {racks: 4, hosts_per_rack: 1}, writer_racks: [3]}\n")); err != nil {
		t.Fatal(err)
	}
}

// A topology file's racks are known only when the runs start: a writer
// rack beyond them stops the campaign before any run, naming the line.
func TestWriterRacksBeyondATopologyFile(t *testing.T) {
	topo, err := filepath.Abs("../../examples/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, "name: p\ntopology: "+topo+"\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01}\nruns:\n  - {mode: sim, policies: [fifo], writer_racks: [3]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	err = Execute(context.Background(), c, Options{Out: out, Parallel: 1})
	if err == nil || !strings.Contains(err.Error(), "c.yaml:6: runs[0] writer_racks: rack 3 is not in the run set's cluster, whose racks are 0 to 2") {
		t.Fatalf("err %v, want writer rack 3 refused at line 6", err)
	}
	if _, err := os.Stat(filepath.Join(out, "sim")); err == nil {
		t.Fatal("a run set's directory was made: a run started")
	}
}
