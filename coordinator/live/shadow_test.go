package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// Shadow on live workers: every block of the job's input is in rack 0, so
// delay scheduling puts all six maps there and Shadow duplicates four of
// them into the empty racks 1 and 2 (θ = every map), each reading its
// whole block across racks. The duplicates must really run on their
// workers and move their blocks (the workers' own byte counts say so),
// and no reducer may be told to fetch an output other than the one its
// task used: never a killed duplicate's partial one, never an original's
// whose duplicate won (the losers of §2.5's selection). Which side wins
// depends on the machine's timing: on an idle one the duplicates are
// accepted at T, on a loaded one rejected and killed; both are checked.
//
// On a loaded machine every duplicate may be killed before it reads a
// byte: such a run still checks that no loser is read, but says nothing
// of duplicates moving bytes, so the test runs again (up to three runs)
// until one does.
func TestShadowDuplicatesRunAndLosersAreNeverRead(t *testing.T) {
	const runs = 3
	for i := 1; i <= runs; i++ {
		dups, moved := runShadowLive(t, fmt.Sprintf("shadowlive%d", i))
		if t.Failed() || (dups > 0 && moved > 0) {
			return
		}
		t.Logf("run %d: %d duplicates launched, %d bytes moved across racks by them: no evidence, running again", i, dups, moved)
	}
	t.Fatalf("in %d runs no duplicate moved a byte across racks: the test tests nothing", runs)
}

// runShadowLive runs the job once on live workers of the named cluster,
// checks that reducers were only ever told of outputs their tasks used,
// and returns the duplicates launched and the bytes they read across
// racks, as their workers counted.
func runShadowLive(t *testing.T, cluster string) (dups int, moved int64) {
	topo := memTopology(t, 3, 2)
	for i := range topo.Hosts {
		topo.Hosts[i].Slots = 4
	}
	const block = 1 << 20
	ds, err := workload.ParseDatasets("ds", []byte(`datasets:
  - name: in
    blocks:
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r0h0:mem", "r0h1:mem"]}
`), topo)
	if err != nil {
		t.Fatal(err)
	}
	// maps of about a second, so that duplicates launched after them race
	// them for real; three reducers, one a rack
	w, err := workload.ParseWorkloadFor("wl", []byte(`jobs:
  - id: j
    stages:
      - {name: map, kind: map, input: in, selectivity: 1, compute_ns_per_byte: 1000}
      - {name: reduce, kind: reduce, tasks: 3, after: [map], selectivity: 1}
`), ds)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Build(policy.Spec{Name: "shadow", Args: map[string]any{"theta": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects(cluster)
	var mu sync.Mutex
	told := map[string]map[string]bool{} // upstream task -> output keys a reducer was told to fetch
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "shadow", PolicyImpl: pol, Seed: 1, Cluster: cluster,
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf, MaxRunTime: 60 * time.Second}
	cfg.OnListening = func(u string) {
		startWorkers(t, topo, u, creds, cluster)
		admin, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		note := func(rs []wire.Range) {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rs {
				if told[r.Task] == nil {
					told[r.Task] = map[string]bool{}
				}
				told[r.Task][r.Key] = true
			}
		}
		_, _ = admin.Subscribe(subj.WorkerWildcard(), func(m *nats.Msg) {
			var s wire.Sources
			if wire.Decode(m.Data, wire.TypeSources, &s) == nil {
				note(s.Sources)
				return
			}
			var l wire.Launch
			if wire.Decode(m.Data, wire.TypeLaunch, &l) == nil {
				note(l.Sources)
			}
		})
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 1 || sum.FailedJobs != 0 {
		t.Fatalf("%d jobs ended, %d failed: want the one to succeed", sum.Jobs, sum.FailedJobs)
	}
	f, err := os.Open(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type line struct {
		ID       int64
		Stage    int
		Index    int
		Host     string
		Outcome  string
		Dup      bool                `json:"duplicate"`
		Reported map[string][3]int64 `json:"reported_bytes"`
	}
	outcome := map[string]string{} // output key's last part (a<ID>) -> its attempt's outcome
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var a line
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Stage != 0 {
			continue
		}
		outcome[path.Base(OutputKey("", engine.AttemptID(a.ID)))] = a.Outcome
		if !a.Dup {
			continue
		}
		dups++
		if a.Host[:2] == "r0" {
			t.Errorf("duplicate %d ran on %s, in the rack it was to leave", a.ID, a.Host)
		}
		var cross int64
		for _, row := range a.Reported {
			cross += row[2]
		}
		moved += cross
		t.Logf("duplicate %d on %s: %s, %d bytes read across racks as its worker counted", a.ID, a.Host, a.Outcome, cross)
		// one that succeeded read its whole block from rack 0; one
		// killed (rejected at T, or beaten by its original) read part
		if a.Outcome == "succeeded" && cross < block {
			t.Errorf("duplicate %d on %s succeeded having read %d bytes across racks, want its block (%d)", a.ID, a.Host, cross, block)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d duplicates; reducers told %v", dups, told)
	if len(told) != 6 {
		t.Errorf("reducers were told about %d maps' outputs, want 6", len(told))
	}
	for task, keys := range told {
		// one output per split, ever: the loser's (a killed duplicate's
		// partial one, or an original's whose duplicate was chosen) never
		if len(keys) != 1 {
			t.Errorf("reducers were told of %d outputs of %s (%v), want only the one its task used", len(keys), task, keys)
		}
		for key := range keys {
			if outcome[path.Base(key)] != "succeeded" {
				t.Errorf("a reducer was told to fetch %s of %s, whose attempt ended %q", key, task, outcome[key])
			}
		}
	}
	return dups, moved
}
