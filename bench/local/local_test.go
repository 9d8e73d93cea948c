package local

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/shaping"
)

// benchBin is the bench binary the emulator starts workers with, built
// once by TestMain.
var benchBin string

func TestMain(m *testing.M) {
	code := func() int {
		// the tests skip themselves; the iperf3 test's child needs no workers
		if os.Geteuid() != 0 || os.Getenv("RACKLAB_IPERF3_CHILD") != "" {
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "racklab-local-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		benchBin = filepath.Join(dir, "bench")
		build := exec.Command("go", "build", "-o", benchBin, "github.com/racklab/racklab/bench")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build bench:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
}

func topology(t *testing.T, racks, hosts int) *cluster.Topology {
	t.Helper()
	// 1 Gbit/s NICs, 2:1 oversubscribed: 125 MB/s rack links
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

const shuffleJob = `jobs:
  - id: shuffle
    stages:
      - {name: map, kind: map, input: in, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 4, after: [map], selectivity: 1}
`

func inputs(t *testing.T, topo *cluster.Topology, wl string, blocks int, blockSize int64, replication int) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	dsYAML := fmt.Sprintf("block_size_bytes: %d\nreplication: %d\ndatasets:\n  - {name: in, size_bytes: %d}\n", blockSize, replication, int64(blocks)*blockSize)
	ds, err := workload.ParseDatasets("test-datasets", []byte(dsYAML), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("test-workload", []byte(wl), ds)
	if err != nil {
		t.Fatal(err)
	}
	return w, ds
}

func options(t *testing.T, prefix string, mode shaping.Mode, topo *cluster.Topology) Options {
	return Options{Prefix: prefix, Mode: mode, Topology: topo, WorkerCommand: []string{benchBin, "worker"},
		Dir: filepath.Join(t.TempDir(), "cluster"), NATSPort: 14222, Cluster: "test", Logf: t.Logf}
}

// checkGone fails the test if anything of the cluster is left: namespaces,
// links, worker processes or the cluster's directory.
func checkGone(t *testing.T, opt Options) {
	t.Helper()
	left, err := Leftovers(opt.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
		_ = Cleanup(opt.Prefix)
	}
	if _, err := os.Stat(opt.Dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s still exists (%v)", opt.Dir, err)
	}
	if pids := workerPids(); len(pids) > 0 {
		t.Errorf("worker processes still running: %v", pids)
	}
}

func crossRackMatchesKernel(t *testing.T, mode shaping.Mode, prefix string) {
	needRoot(t)
	topo := topology(t, 3, 2)
	w, ds := inputs(t, topo, shuffleJob, 6, 4<<20, 1)
	opt := options(t, prefix, mode, topo)
	t.Cleanup(func() { checkGone(t, opt) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, opt, live.Config{Workload: w, Datasets: ds, Policy: "fifo", Seed: 3, OutDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 1 || res.FailedJobs != 0 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	exp, rep, kern := float64(res.ExpectedCrossBytes), float64(res.ReportedCrossBytes), res.KernelCrossBytes
	t.Logf("%s: cross-rack payload: engine %.0f B, workers %.0f B, kernel %.0f B (kernel/engine %.4f)", mode, exp, rep, kern, kern/exp)
	if exp < 8<<20 {
		t.Fatalf("the engine expected only %.0f cross-rack bytes: the job does not cross racks enough to test", exp)
	}
	if math.Abs(rep-exp)/exp > 0.001 {
		t.Errorf("workers counted %.0f cross-rack bytes, the engine expected %.0f", rep, exp)
	}
	if math.Abs(kern-exp)/exp > 0.03 {
		t.Errorf("kernel counted %.0f cross-rack payload bytes, the engine expected %.0f: off by %.2f%%", kern, exp, 100*(kern/exp-1))
	}
}

func TestSwitchedCrossRackBytesMatchKernel(t *testing.T) {
	crossRackMatchesKernel(t, shaping.Switched, fmt.Sprintf("ts%d", os.Getpid()%10000))
}

func TestFlatCrossRackBytesMatchKernel(t *testing.T) {
	crossRackMatchesKernel(t, shaping.Flat, fmt.Sprintf("tf%d", os.Getpid()%10000))
}

const longJobs = `jobs:
  - id: long
    stages:
      - {name: map, kind: map, input: in, selectivity: 0.25}
      - {name: reduce, kind: reduce, tasks: 4, after: [map], selectivity: 1}
`

// A worker killed with SIGKILL mid-job: the coordinator declares its host
// lost within seconds, reruns its attempts and lost outputs elsewhere, and
// the job completes; the records say what happened.
func TestWorkerKilledMidJob(t *testing.T) {
	needRoot(t)
	topo := topology(t, 3, 2)
	// slow disks rather than CPU burn, which would starve the 2-core
	// machine: 36 maps of 4 MiB read at 4 MB/s take 1 s each, in three
	// waves over the 12 slots
	for i := range topo.Hosts {
		topo.Hosts[i].Tiers = []cluster.Tier{{Kind: cluster.HDD, ReadBps: 4e6, WriteBps: 200e6, CapacityBytes: 1 << 30}}
	}
	w, ds := inputs(t, topo, longJobs, 36, 4<<20, 2)
	opt := options(t, fmt.Sprintf("tk%d", os.Getpid()%10000), shaping.Switched, topo)
	t.Cleanup(func() { checkGone(t, opt) })
	e := startEmulator(t, opt)
	const victim = "r1h1"
	var killedAt time.Time
	var lostAfter time.Duration
	out := t.TempDir()
	cfg := live.Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 5, OutDir: out,
		Cluster: opt.Cluster, Listen: e.NATSListen(), Creds: e.Creds, MemberAddr: e.Net.MgmtIP.String(),
		Counters: e.Counters, StopWorkers: true, Logf: t.Logf}
	cfg.OnEvent = func(ev live.Event) {
		switch {
		case ev.Kind == "started":
			go func() {
				time.Sleep(1500 * time.Millisecond)
				killedAt = time.Now()
				if err := e.Kill(victim, syscall.SIGKILL); err != nil {
					t.Error(err)
				}
			}()
		case ev.Kind == "host-lost" && ev.Host == victim:
			lostAfter = time.Since(killedAt)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := live.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedJobs != 0 || res.Jobs != 1 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	if res.MalformedMessages != 0 {
		t.Errorf("%d messages rejected in a run without bad actors", res.MalformedMessages)
	}
	if len(res.HostsLost) != 1 || res.HostsLost[0] != victim {
		t.Fatalf("hosts lost %v, want [%s]", res.HostsLost, victim)
	}
	t.Logf("host loss noticed %v after the kill", lostAfter)
	if lostAfter <= 0 || lostAfter > 5*time.Second {
		t.Errorf("host loss noticed %v after the kill, want within 5 s", lostAfter)
	}
	// the records: a host-lost event, and failed attempts on the victim
	// whose tasks succeeded elsewhere
	failed := map[string]bool{}
	succeeded := map[string]string{}
	f, err := os.Open(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a struct {
			Stage, Index  int
			Host, Outcome string
			InputDoneS    *float64 `json:"input_done_s"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Outcome == "succeeded" && a.InputDoneS == nil {
			t.Errorf("attempt %d/%d succeeded on %s, but the engine never heard its input was done", a.Stage, a.Index, a.Host)
		}
		task := fmt.Sprintf("%d/%d", a.Stage, a.Index)
		if a.Host == victim && a.Outcome == "failed" {
			failed[task] = true
		}
		if a.Outcome == "succeeded" {
			succeeded[task] = a.Host
		}
	}
	if len(failed) == 0 {
		t.Fatal("no attempt on the killed worker is recorded as failed")
	}
	for task := range failed {
		if h, ok := succeeded[task]; !ok || h == victim {
			t.Errorf("task %s failed on %s and did not succeed elsewhere (%q)", task, victim, h)
		}
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(events), `"kind":"host-lost","host":"`+victim+`"`) {
		t.Error("events.jsonl has no host-lost record for the victim")
	}
}

// workerPids lists the processes running the test's worker binary.
func workerPids() []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 1 && args[0] == benchBin && args[1] == "worker" {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// On a lab cluster the coordinator cannot read the switches: with host
// shaping, the workers' class counters, sent in their heartbeats, are the
// kernel's count. They too match the engine's expectation.
func TestFlatWorkerReportedCountersMatch(t *testing.T) {
	needRoot(t)
	topo := topology(t, 3, 2)
	w, ds := inputs(t, topo, shuffleJob, 6, 4<<20, 1)
	opt := options(t, fmt.Sprintf("tw%d", os.Getpid()%10000), shaping.Flat, topo)
	t.Cleanup(func() { checkGone(t, opt) })
	e := startEmulator(t, opt)
	var counted bool
	cfg := live.Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 3, OutDir: t.TempDir(),
		Cluster: opt.Cluster, Listen: e.NATSListen(), Creds: e.Creds, MemberAddr: e.Net.MgmtIP.String(), StopWorkers: true, Logf: t.Logf,
		OnEvent: func(ev live.Event) { counted = counted || ev.Kind == "counters" }}
	res, err := live.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !counted {
		t.Fatal("the coordinator did not take its counts from the workers' shaping classes")
	}
	exp, kern := float64(res.ExpectedCrossBytes), res.KernelCrossBytes
	t.Logf("engine %.0f B, workers' kernel counters %.0f B (%.4f)", exp, kern, kern/exp)
	if exp < 8<<20 || math.Abs(kern-exp)/exp > 0.03 {
		t.Errorf("workers' kernel counters %.0f B, engine %.0f B", kern, exp)
	}
}

// startEmulator brings up a cluster that the test takes down when it
// ends, failed or not.
func startEmulator(t *testing.T, opt Options) *Emulator {
	t.Helper()
	e, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// What a crash leaves outside the network is found and removed too: the
// cluster's directory (a crash between making it and mounting its tmpfs
// leaves it empty) and the files 'bench local up' writes.
func TestCleanupRemovesClusterFiles(t *testing.T) {
	needRoot(t)
	prefix := fmt.Sprintf("cf%d", os.Getpid()%10000)
	creds, topo := UpFiles(prefix)
	for _, d := range []string{ClusterDir(prefix), creds} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(topo, []byte("racks: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(ClusterDir(prefix)); _ = os.RemoveAll(creds); _ = os.Remove(topo) })
	left, err := Leftovers(prefix)
	want := []string{"dir:" + ClusterDir(prefix), "dir:" + creds, "file:" + topo}
	if err != nil || !slices.Equal(left, want) {
		t.Fatalf("leftovers %v (%v), want %v", left, err, want)
	}
	if err := Cleanup(prefix); err != nil {
		t.Fatal(err)
	}
	if left, err := Leftovers(prefix); err != nil || len(left) != 0 {
		t.Fatalf("after cleanup: %v (%v)", left, err)
	}
}
