package live

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy/fifo"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/store"
)

// memOutputs writes every output's one replica in the writer's memory.
type memOutputs struct{}

func (memOutputs) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	return []workload.Replica{{Host: writer, Tier: cluster.Mem}}
}

// With the memory LRU on, job outputs written to memory are demoted by
// moves of the outputs (engine.TierMove of an attempt's output) that the
// workers execute under the outputs' keys; the child job reads its
// parent's outputs wherever they are, and no move or attempt fails.
// outputKeyInText finds an output's key (OutputKey) in an event's text.
var outputKeyInText = regexp.MustCompile(wire.OutputObjects + `/[0-9a-z]+/a[0-9]+`)

func TestOutputDemotionsReachTheWorkers(t *testing.T) {
	const block = 1 << 20
	// first writes 4 MiB of outputs, its child 4 more: 8 MiB into 4 MiB
	// of memory
	topo, w, ds, creds := tierCluster(t, []cluster.Tier{
		{Kind: cluster.Mem, ReadBps: 2e9, WriteBps: 2e9, CapacityBytes: 2 * block},
		{Kind: cluster.HDD, ReadBps: 2e9, WriteBps: 2e9},
	}, `jobs:
  - id: first
    stages:
      - {name: map, kind: map, input: in, selectivity: 1}
  - id: child
    parents: [first]
    stages:
      - {name: map, kind: map, input: "@first", selectivity: 1}
`)
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", PolicyImpl: &fifo.Policy{}, Seed: 1, Cluster: "outlru",
		OutputPlacer: memOutputs{}, MemoryLRU: true,
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	var tierDirs map[string][2]string
	cfg.OnListening, tierDirs = tierWorkers(t, topo, creds, "outlru", func(mem, hdd string) []store.TierConfig {
		return []store.TierConfig{{Kind: cluster.Mem, Dir: mem, Capacity: 2 * block}, {Kind: cluster.HDD, Dir: hdd}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 2 || res.FailedJobs != 0 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ev := string(events)
	if strings.Contains(ev, "replica-move-failed") || strings.Contains(ev, "replica-move-un") || strings.Contains(ev, `"kind":"attempt-failed"`) {
		t.Errorf("a move or an attempt failed, or a move was left undone:\n%s", ev)
	}
	moved := 0
	for _, line := range strings.Split(ev, "\n") {
		if strings.Contains(line, `"kind":"replica-moved"`) && outputKeyInText.MatchString(line) {
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("no output was moved:\n%s", ev)
	}
	for host, dirs := range tierDirs {
		dir := dirs[0]
		if n := countFiles(t, filepath.Join(dir, wire.OutputObjects)); n > 2 {
			t.Errorf("host %s holds %d outputs in memory, room for 2", host, n)
		}
	}
	t.Logf("%d output moves", moved)
}
