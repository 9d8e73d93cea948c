package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
			Password: creds.Workers[h.Name], Cluster: clusterName, DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
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

// computingInputs are smallJob's with maps that compute ns a byte, so
// that the run lasts long enough for a test to act during it.
func computingInputs(t testing.TB, topo *cluster.Topology, ns int) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	return parseInputs(t, topo, strings.Replace(smallJob, "input: in, selectivity: 1}", fmt.Sprintf("input: in, selectivity: 1, compute_ns_per_byte: %d}", ns), 1))
}

// Malformed and unknown messages are rejected, logged and counted, and
// crash neither the coordinator nor a worker; a client without
// credentials cannot connect, and a worker's credentials cannot launch.
// A client holding host r0h0's credentials can neither hear host r1h0's
// commands nor register or heartbeat as r1h0, and r1h0 keeps its work.
func TestBadMessagesAndCredentials(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	subj, _ := wire.NewSubjects("bad")
	var url string
	var rogue, spy *nats.Conn
	var spied, watched *nats.Subscription // r1h0's commands, as r0h0's credentials and the coordinator's hear them
	var probeErr error
	var refusedMu sync.Mutex
	var refused []string // the server's permission violations, as the rogue heard them
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "bad", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	cfg.OnListening = func(u string) {
		url = u
		// no credentials, a wrong password, or the coordinator's password
		// for a worker's user: refused
		for name, opt := range map[string]nats.Option{
			"no credentials":               nil,
			"a wrong password":             nats.UserInfo(wire.WorkerUser("r0h0"), "wrong"),
			"r1h0's password for r0h0":     nats.UserInfo(wire.WorkerUser("r0h0"), creds.Workers["r1h0"]),
			"the coordinator's for a host": nats.UserInfo(wire.WorkerUser("r0h0"), creds.Coordinator),
		} {
			opts := []nats.Option{nats.MaxReconnects(0)}
			if opt != nil {
				opts = append(opts, opt)
			}
			if nc, err := nats.Connect(u, opts...); err == nil {
				nc.Close()
				probeErr = fmt.Errorf("a client with %s connected", name)
				return
			}
		}
		// a client with r0h0's credentials, misbehaving
		onErr := nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			refusedMu.Lock()
			refused = append(refused, err.Error())
			refusedMu.Unlock()
		})
		rogue, err = nats.Connect(u, nats.UserInfo(wire.WorkerUser("r0h0"), creds.Workers["r0h0"]), onErr)
		if err != nil {
			probeErr = err
			return
		}
		for _, m := range [][]byte{
			[]byte("not json"),
			[]byte(`{"type":"explode","v":3,"body":{}}`),
			[]byte(`{"type":"heartbeat","v":3,"body":{"host":"r0h0","bogus":true}}`),
			[]byte(`{"type":"heartbeat","v":9,"body":{"host":"r0h0"}}`),
			wire.MustEncode(wire.TypeLaunch, &wire.Launch{Attempt: 1, Kind: wire.KindNoop}), // not a coordinator message
		} {
			_ = rogue.Publish(subj.Heartbeat("r0h0"), m)
			_ = rogue.Publish(subj.Events("r0h0"), m)
		}
		// it tries to hear r1h0's commands, on a connection of its own so
		// that the server's refusal is not lost among the others
		if spy, err = nats.Connect(u, nats.UserInfo(wire.WorkerUser("r0h0"), creds.Workers["r0h0"]), onErr); err != nil {
			probeErr = err
			return
		}
		if spied, err = spy.SubscribeSync(subj.Worker("r1h0")); err != nil {
			probeErr = err
			return
		}
		_ = spy.Flush()
		_ = rogue.Flush()
		watch, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			probeErr = err
			return
		}
		t.Cleanup(watch.Close)
		if watched, err = watch.SubscribeSync(subj.Worker("r1h0")); err != nil {
			probeErr = err
			return
		}
		_ = watch.Flush()
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
		_ = admin.Publish(subj.Worker("r0h0"), []byte(`{"type":"launch","v":3,"body":{"attempt":7,"kind":"explode"}}`))
		_ = admin.Publish(subj.Worker("r0h0"), []byte(`{{{{`))
		_ = admin.Flush()
		// a worker's credentials may not publish a launch to any worker
		_ = rogue.Publish(subj.Worker("r1h0"), wire.MustEncode(wire.TypeLaunch, &wire.Launch{Attempt: 99, Kind: wire.KindNoop}))
		// r0h0's credentials pose as r1h0, a new process of it: on r0h0's
		// subjects the coordinator refuses the lie, and on r1h0's the
		// server does
		impostor := wire.MustEncode(wire.TypeRegister, &wire.Register{Host: "r1h0", Rack: "r1", Slots: 2,
			Tiers: []wire.TierInfo{{Kind: "mem"}}, DataAddr: "127.0.0.1:1", MemberAddr: "127.0.0.1:1", Pid: 1})
		silence := wire.MustEncode(wire.TypeHeartbeat, &wire.Heartbeat{Host: "r1h0", Seq: 1 << 40})
		for _, on := range []string{"r0h0", "r1h0"} {
			_ = rogue.Publish(subj.Register(on), impostor)
			_ = rogue.Publish(subj.Heartbeat(on), silence)
		}
		// nor may it have the coordinator answer on r1h0's command subject
		_ = rogue.PublishRequest(subj.Register("r0h0"), subj.Worker("r1h0"), impostor)
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
	var overheard int
	if spied != nil {
		for {
			if _, err := spied.NextMsg(10 * time.Millisecond); err != nil {
				break
			}
			overheard++
		}
	}
	var reflected int
	if watched != nil {
		for {
			m, err := watched.NextMsg(10 * time.Millisecond)
			if err != nil {
				break
			}
			if typ, _ := wire.Peek(m.Data); typ == wire.TypeRegistered {
				reflected++
			}
		}
	}
	for _, nc := range []*nats.Conn{rogue, spy} {
		if nc != nil {
			nc.Close()
		}
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
	if reflected != 0 {
		t.Error("r0h0's credentials had the coordinator answer on r1h0's command subject")
	}
	if overheard != 0 {
		t.Errorf("r0h0's credentials heard %d commands meant for r1h0", overheard)
	}
	if len(res.HostsLost) != 0 {
		t.Errorf("hosts %v lost: r0h0's credentials evicted another host", res.HostsLost)
	}
	if res.MalformedMessages < 13 {
		t.Errorf("%d messages rejected, want at least the 10 bad ones and the 3 lies", res.MalformedMessages)
	}
	refusedMu.Lock()
	violations := strings.Join(refused, "\n")
	refusedMu.Unlock()
	for _, want := range []string{subj.Worker("r1h0"), subj.Register("r1h0"), subj.Heartbeat("r1h0")} {
		if !strings.Contains(strings.ToLower(violations), "permissions violation") || !strings.Contains(violations, want) {
			t.Errorf("the server did not refuse r0h0's credentials on %s; it said:\n%s", want, violations)
		}
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rejected-message", "unknown message type", "unknown field", "protocol version", "worker-problem", "unknown kind",
		`a message for host \"r1h0\" came on host \"r0h0\"'s subject`, "not its own inbox"} {
		if !strings.Contains(string(events), want) {
			t.Errorf("events.jsonl does not mention %q", want)
		}
	}
	if strings.Contains(string(events), "restarted") {
		t.Error("a host was declared restarted")
	}
}

// A flood of bad messages is counted exactly, but logged only in part:
// the events file and the log stay small.
func TestRejectedFloodLogsStayBounded(t *testing.T) {
	// 20,000 lines logged in full would be about 4 MB
	const flood = 20_000
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	subj, _ := wire.NewSubjects("flood")
	var logMu sync.Mutex
	var logBytes, logLines int
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "flood", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true}
	cfg.Logf = func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		logMu.Lock()
		logBytes += len(line)
		logLines++
		logMu.Unlock()
	}
	floodErr := make(chan error, 1)
	cfg.OnListening = func(u string) {
		// the run's goroutine waits for registrations meanwhile, and
		// drains what the flood sends
		go func() {
			nc, err := nats.Connect(u, nats.UserInfo(wire.WorkerUser("r0h0"), creds.Workers["r0h0"]))
			if err != nil {
				floodErr <- err
				return
			}
			defer nc.Close()
			for i := range flood {
				if err := nc.Publish(subj.Heartbeat("r0h0"), []byte("not json")); err != nil {
					floodErr <- err
					return
				}
				if i%500 == 499 {
					// paced (50,000 a second), so that the coordinator's
					// inbox never overflows and drops some even on a busy
					// machine: the count must be exact
					_ = nc.Flush()
					time.Sleep(10 * time.Millisecond)
				}
			}
			floodErr <- nc.Flush()
			startWorkers(t, topo, u, creds, "flood")
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-floodErr; err != nil {
		t.Fatal(err)
	}
	if res.MalformedMessages != flood {
		t.Errorf("%d messages rejected, want %d", res.MalformedMessages, flood)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) > 64<<10 {
		t.Errorf("events.jsonl grew to %d bytes with a flood of %d bad messages", len(events), flood)
	}
	logMu.Lock()
	if logBytes > 64<<10 {
		t.Errorf("the log grew to %d bytes in %d lines with a flood of %d bad messages", logBytes, logLines, flood)
	}
	logMu.Unlock()
	// what is logged in full and what the summaries count add up to the
	// flood
	var full, summed int
	summary := regexp.MustCompile(`^(\d+) more rejected in the last \d+ s`)
	for _, line := range strings.Split(strings.TrimSpace(string(events)), "\n") {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		if ev.Kind != "rejected-message" {
			continue
		}
		if m := summary.FindStringSubmatch(ev.Detail); m != nil {
			n, _ := strconv.Atoi(m[1])
			summed += n
		} else {
			full++
		}
	}
	if full+summed != flood || summed == 0 {
		t.Errorf("events.jsonl logs %d rejected messages in full and sums up %d more, want %d in all, most summed up", full, summed, flood)
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
	creds, err := wire.NewCredentials(hostNames(topo))
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

// hostNames are the names of topo's hosts, for their credentials.
func hostNames(topo *cluster.Topology) []string {
	var names []string
	for _, h := range topo.Hosts {
		names = append(names, h.Name)
	}
	return names
}
