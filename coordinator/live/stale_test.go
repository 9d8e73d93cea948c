package live

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

// deadCoordinator stands for a coordinator that died (killed, out of
// memory) without resetting its workers: it answers their registrations,
// launches attempts 0..n-1 on each host (their outputs written at 1 MiB/s
// for about 3 s), and is gone. The workers stay up, on the server at url.
func deadCoordinator(t *testing.T, topo *cluster.Topology, url string, subj wire.Subjects, creds wire.Credentials, clusterName string, hosts, n int) {
	t.Helper()
	old, err := nats.Connect(url, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
	if err != nil {
		t.Fatal(err)
	}
	var regs sync.WaitGroup
	regs.Add(hosts)
	once := make([]sync.Once, hosts)
	racks := make([]string, len(topo.Racks))
	for i, rk := range topo.Racks {
		racks[i] = rk.Name
	}
	for i, h := range topo.Hosts[:hosts] {
		if _, err := old.Subscribe(subj.Register(h.Name), func(m *nats.Msg) {
			_ = m.Respond(wire.MustEncode(wire.TypeRegistered, &wire.Registered{OK: true, Racks: racks}))
			once[i].Do(regs.Done)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for _, h := range topo.Hosts[:hosts] {
		wcfg := agent.Config{Host: h.Name, Rack: topo.Racks[h.Rack].Name, Slots: 2, NATSURL: url, Password: creds.Workers[h.Name], Cluster: clusterName,
			DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1", SleepCompute: true,
			Tiers: []store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(t.TempDir(), h.Name)},
				{Kind: cluster.HDD, Dir: filepath.Join(t.TempDir(), h.Name+"hdd"), WriteBps: 1 << 20}}}
		wg.Add(1)
		go func() { defer wg.Done(); _ = agent.Run(ctx, wcfg) }()
	}
	regs.Wait()
	for _, h := range topo.Hosts[:hosts] {
		for id := range int64(n) {
			_ = old.Publish(subj.Worker(h.Name), wire.MustEncode(wire.TypeLaunch, &wire.Launch{Attempt: id, Run: "old", Job: "old", Stage: "map",
				Kind: wire.KindMap, Class: "input", OutputKey: "out/old/" + h.Name + string(rune('a'+id)), OutputTier: "hdd", OutputBytes: 3 << 20}))
		}
	}
	_ = old.Flush()
	old.Close()
}

// The next run on workers a dead coordinator left busy is this run's: its
// maps (about 8 s of compute each) are not taken as done when the old
// attempts of the same IDs end. Before, the old ends were recorded as
// the new attempts' successes (after 3.4 s, with the old phases and
// bytes), the workers refused the new launches as launched twice, and
// the run hung.
func TestStaleAttemptsOfADeadCoordinatorAreNotThisRuns(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := computingInputs(t, topo, 8000)
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("stale")
	srv, err := StartServer("127.0.0.1:0", subj, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	deadCoordinator(t, topo, srv.URL(), subj, creds, "stale", 2, 4)
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "stale", NATSURL: srv.URL(),
		Creds: creds, OutDir: out, Logf: t.Logf}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil || res.Jobs != len(w.Jobs) || res.FailedJobs != 0 {
		t.Fatalf("run: %v, %d of %d jobs, %d failed", err, res.Jobs, len(w.Jobs), res.FailedJobs)
	}
	f, err := os.Open(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var a attemptRecord
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Stage == 0 && a.Outcome == "succeeded" && a.End-a.Start < 5 {
			t.Errorf("map attempt %d succeeded after %.2f s; its compute alone takes about 8 s: another run's end", a.ID, a.End-a.Start)
		}
	}
}

// An attempt's end that arrives while the run still waits for its hosts
// to register (the engine not yet made) is a late report, not a crash:
// before, the coordinator dereferenced its nil engine.
func TestAttemptEndedBeforeTheRunHasAnEngine(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("early")
	srv, err := StartServer("127.0.0.1:0", subj, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	deadCoordinator(t, topo, srv.URL(), subj, creds, "early", 1, 1) // r1h0 never comes
	var late []string
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "early", NATSURL: srv.URL(),
		Creds: creds, OutDir: t.TempDir(), RegisterTimeout: 4 * time.Second, Logf: t.Logf,
		OnEvent: func(ev Event) {
			if ev.Kind == "late-report" {
				late = append(late, ev.Detail)
			}
		}}
	_, err = Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "did not register") {
		t.Errorf("run: %v, want r1h0 not registered", err)
	}
	if len(late) == 0 {
		t.Error("the old attempt's end made no late-report event")
	}
}

// A NATS server that is gone for 4 s in the middle of a run (an external
// server, as on a lab cluster), every worker alive, loses no host: the
// heartbeats the coordinator missed were missed by it. Before, every
// host was declared lost (and reset) and the job failed.
func TestNATSOutageLosesNoHost(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := computingInputs(t, topo, 8000)
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("blip")
	addr := freeAddr(t)
	srv, err := StartServer(addr, subj, creds)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	cur := srv
	defer func() { mu.Lock(); cur.Close(); mu.Unlock() }()
	startWorkers(t, topo, srv.URL(), creds, "blip")
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "blip", NATSURL: srv.URL(),
		Creds: creds, OutDir: t.TempDir(), StallTimeout: 10 * time.Second, Logf: t.Logf}
	restarted := make(chan struct{})
	cfg.OnEvent = func(ev Event) {
		if ev.Kind != "started" {
			return
		}
		go func() {
			defer close(restarted)
			time.Sleep(time.Second)
			mu.Lock()
			cur.Close()
			mu.Unlock()
			time.Sleep(4 * time.Second)
			s, err := StartServer(addr, subj, creds)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			cur = s
			mu.Unlock()
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	<-restarted
	if err != nil || len(res.HostsLost) > 0 || res.FailedJobs > 0 {
		t.Errorf("a 4 s NATS outage, every worker alive: %v, hosts lost %v, %d jobs failed", err, res.HostsLost, res.FailedJobs)
	}
}
