package live

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

// startWorkers runs in-process workers on loopback for every host of
// topo, until the test ends.
func startWorkers(t testing.TB, topo *cluster.Topology, url string, creds wire.Credentials, clusterName string, metricsAddrs ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i, h := range topo.Hosts {
		cfg := agent.Config{Host: h.Name, Rack: topo.Racks[h.Rack].Name, Slots: h.Slots, NATSURL: url,
			Password: creds.Worker, Cluster: clusterName, DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
			Tiers: []store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(t.TempDir(), h.Name)}}}
		if i < len(metricsAddrs) {
			cfg.MetricsAddr = metricsAddrs[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := agent.Run(ctx, cfg); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("worker %s: %v", cfg.Host, err)
			}
		}()
	}
}

func memTopology(t testing.TB, racks, hosts int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: 2, NICBps: 125e6, Oversubscription: 1,
		Tiers: []cluster.Tier{{Kind: cluster.Mem, ReadBps: 2e9, WriteBps: 2e9, CapacityBytes: 1 << 30}}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

const smallJob = `jobs:
  - id: j
    stages:
      - {name: map, kind: map, input: in, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 2, after: [map], selectivity: 1}
`

func smallInputs(t testing.TB, topo *cluster.Topology) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	return parseInputs(t, topo, smallJob)
}

// Malformed and unknown messages are rejected, logged and counted, and
// crash neither the coordinator nor a worker; a client without
// credentials cannot connect, and a worker's credentials cannot launch.
func TestBadMessagesAndCredentials(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	subj, _ := wire.NewSubjects("bad")
	var url string
	var rogue *nats.Conn
	var probeErr error
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "bad", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	cfg.OnListening = func(u string) {
		url = u
		// no credentials, or a wrong password: refused
		if nc, err := nats.Connect(u, nats.MaxReconnects(0)); err == nil {
			nc.Close()
			probeErr = errors.New("a client without credentials connected")
			return
		}
		if nc, err := nats.Connect(u, nats.UserInfo(wire.WorkerUser, "wrong"), nats.MaxReconnects(0)); err == nil {
			nc.Close()
			probeErr = errors.New("a client with a wrong password connected")
			return
		}
		// a client with worker credentials, misbehaving
		rogue, err = nats.Connect(u, nats.UserInfo(wire.WorkerUser, creds.Worker))
		if err != nil {
			probeErr = err
			return
		}
		for _, m := range [][]byte{
			[]byte("not json"),
			[]byte(`{"type":"explode","v":1,"body":{}}`),
			[]byte(`{"type":"heartbeat","v":1,"body":{"host":"r0h0","bogus":true}}`),
			[]byte(`{"type":"heartbeat","v":9,"body":{"host":"r0h0"}}`),
			wire.MustEncode(wire.TypeLaunch, &wire.Launch{Attempt: 1, Kind: wire.KindNoop}), // not a coordinator message
		} {
			_ = rogue.Publish(subj.Heartbeat(), m)
			_ = rogue.Publish(subj.Events(), m)
		}
		_ = rogue.Flush()
		startWorkers(t, topo, u, creds, "bad")
	}
	var launchesSeen int
	cfg.OnEvent = func(ev Event) {
		if ev.Kind != "started" {
			return
		}
		// garbage at a worker, from the coordinator's side: the worker
		// reports it and carries on
		admin, err := nats.Connect(url, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			probeErr = err
			return
		}
		defer admin.Close()
		sub, _ := admin.SubscribeSync(subj.Worker("r1h0"))
		_ = admin.Publish(subj.Worker("r0h0"), []byte(`{"type":"launch","v":1,"body":{"attempt":7,"kind":"explode"}}`))
		_ = admin.Publish(subj.Worker("r0h0"), []byte(`{{{{`))
		_ = admin.Flush()
		// a worker's credentials may not publish a launch to any worker
		_ = rogue.Publish(subj.Worker("r1h0"), wire.MustEncode(wire.TypeLaunch, &wire.Launch{Attempt: 99, Kind: wire.KindNoop}))
		_ = rogue.Flush()
		for {
			m, err := sub.NextMsg(300 * time.Millisecond)
			if err != nil {
				break
			}
			var l wire.Launch
			if wire.Decode(m.Data, wire.TypeLaunch, &l) == nil && l.Attempt == 99 {
				launchesSeen++
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if rogue != nil {
		rogue.Close()
	}
	if probeErr != nil {
		t.Fatal(probeErr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedJobs != 0 || res.Jobs != 1 {
		t.Fatalf("jobs %d failed %d", res.Jobs, res.FailedJobs)
	}
	if launchesSeen != 0 {
		t.Fatal("a launch published with worker credentials reached a worker's subject")
	}
	if res.MalformedMessages < 10 {
		t.Errorf("%d messages rejected, want at least the 10 bad ones", res.MalformedMessages)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rejected-message", "unknown message type", "unknown field", "protocol version", "worker-problem", "unknown kind"} {
		if !strings.Contains(string(events), want) {
			t.Errorf("events.jsonl does not mention %q", want)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The coordinator and the workers serve Prometheus metrics while a run
// goes on, and the counters reflect it.
func TestPrometheusMetrics(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	workerMetrics := freeAddr(t)
	var coordURL string
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fair", Seed: 1, Cluster: "prom", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, MetricsAddr: "127.0.0.1:0", Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "prom", workerMetrics) }
	var before string
	cfg.OnEvent = func(ev Event) {
		switch ev.Kind {
		case "metrics":
			coordURL = ev.Detail
		case "started":
			before = scrape(t, coordURL)
		case "job-succeeded":
			coordURL2 := coordURL
			after := scrape(t, coordURL2)
			for _, want := range []string{`racklab_attempts_launched_total{kind="map"} 4`, `racklab_attempts_launched_total{kind="reduce"} 2`,
				`racklab_hosts_alive 2`, "racklab_decision_seconds_count"} {
				if !strings.Contains(after, want) {
					t.Errorf("coordinator metrics lack %q:\n%s", want, after)
				}
			}
			wm := scrape(t, "http://"+workerMetrics+"/metrics")
			for _, want := range []string{"racklab_worker_attempts_ended_total", `racklab_worker_bytes_read_total{class="`, `racklab_worker_tier_used_bytes{tier="mem"}`} {
				if !strings.Contains(wm, want) {
					t.Errorf("worker metrics lack %q:\n%s", want, wm)
				}
			}
		}
	}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "racklab_hosts_alive") {
		t.Errorf("no metrics before the run started:\n%s", before)
	}
}
