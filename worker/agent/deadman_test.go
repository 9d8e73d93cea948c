package agent

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/racklab/racklab/shaping"
	"github.com/spf13/cobra"
	"github.com/vishvananda/netlink"
)

// asWorker, in the environment, makes the test binary run the worker's
// command line instead of the tests: the root tests start it as a real
// worker process, and it re-executes itself (/proc/self/exe) as that
// worker's guardian.
const asWorker = "RACKLAB_AGENT_TEST_AS_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(asWorker) == "1" {
		if err := Command().Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestWatchGoodbyeLeavesTheShaping(t *testing.T) {
	reason, remove := watch(strings.NewReader("...q"), time.Minute, func() bool { return true })
	if remove {
		t.Fatalf("a goodbye made the guardian remove the shaping (%s)", reason)
	}
}

func TestWatchEOFRemoves(t *testing.T) {
	reason, remove := watch(strings.NewReader("..."), time.Minute, func() bool { return true })
	if !remove || !strings.Contains(reason, "exited") {
		t.Fatalf("the worker's end of the pipe closed without a goodbye: remove %v (%s)", remove, reason)
	}
}

func TestWatchSilenceRemoves(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	reason, remove := watch(r, MinDeadMan, func() bool { return true })
	if !remove || !strings.Contains(reason, "no refresh") {
		t.Fatalf("a silent worker: remove %v (%s)", remove, reason)
	}
}

func TestWatchOrphanRemoves(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go func() {
		for {
			if _, err := w.Write([]byte{refreshByte}); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	reason, remove := watch(r, time.Second, func() bool { return false })
	if !remove || !strings.Contains(reason, "gone") {
		t.Fatalf("a guardian whose worker is gone (its pipe held elsewhere): remove %v (%s)", remove, reason)
	}
}

func TestGuardArgs(t *testing.T) {
	w := Command()
	if got := guardArgs(w); strings.Join(got, " ") != "--guard" {
		t.Errorf("worker binary: guardian args %q", got)
	}
	bench := &cobra.Command{Use: "bench"}
	bench.AddCommand(w)
	if got := guardArgs(w); strings.Join(got, " ") != "worker --guard" {
		t.Errorf("bench worker: guardian args %q", got)
	}
}

// deadManInterval is the workers' --deadman in the root tests.
const deadManInterval = time.Second

// slack is how much longer than the interval a removal may take before
// a root test fails: generous, since other tests share the machine.
const slack = 10 * time.Second

// shapingWorker is a worker process with host shaping on in its own
// network namespace.
type shapingWorker struct {
	cmd      *exec.Cmd
	exited   chan struct{}
	log      string // its stdout and stderr, and its guardian's
	netns    string
	dev      string
	guardian int
}

// startShapingWorker brings up a one-host flat cluster and starts a worker
// in its namespace with --shape and --deadman (and extraArgs); it returns once the qdisc
// and the guardian are there. Everything goes when the test ends, whatever
// its outcome.
func startShapingWorker(t *testing.T, extraArgs ...string) *shapingWorker {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	prefix := fmt.Sprintf("dm%d", os.Getpid()%10000)
	c, err := shaping.Up(shaping.ClusterSpec{Prefix: prefix, Mode: shaping.Flat, Racks: []shaping.RackSpec{{Hosts: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Down(); err != nil {
			t.Error(err)
		}
	})
	h := c.Hosts[0]
	w := &shapingWorker{exited: make(chan struct{}), log: filepath.Join(t.TempDir(), "worker.log"), netns: h.Netns, dev: h.DataDev}
	logf, err := os.Create(w.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	w.cmd = exec.Command("/proc/self/exe", "--host", h.Name, "--rack", "r0", "--nats", "nats://127.0.0.1:1",
		"--data-addr", h.DataIP.String()+":0", "--member-addr", h.MgmtIP.String(), "--data-dev", h.DataDev,
		"--tier", "mem:"+filepath.Join(t.TempDir(), "mem"), "--shape", "1MB", "--deadman", deadManInterval.String())
	w.cmd.Args = append(w.cmd.Args, extraArgs...)
	w.cmd.Env = append(os.Environ(), asWorker+"=1")
	w.cmd.Stdout, w.cmd.Stderr = logf, logf
	// the worker dies with the test (its guardian then cleans up and
	// exits), and leads its own process group, as under a shell or the
	// emulator
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := shaping.StartIn(h.Netns, w.cmd); err != nil {
		t.Fatal(err)
	}
	go func() { _ = w.cmd.Wait(); close(w.exited) }()
	t.Cleanup(func() {
		if w.guardian != 0 && alive(w.guardian) {
			_ = syscall.Kill(w.guardian, syscall.SIGKILL)
		}
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
		_ = w.cmd.Process.Kill()
		<-w.exited
		if t.Failed() {
			t.Logf("worker's log:\n%s", w.logText())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !w.shaped(t) || w.guardian == 0 {
		if w.guardian == 0 {
			w.guardian = childOf(w.cmd.Process.Pid)
		}
		select {
		case <-w.exited:
			t.Fatalf("the worker exited: %v", w.cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no shaping on %s or no guardian (pid %d) 30 s after the worker started", h.DataDev, w.guardian)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return w
}

func (w *shapingWorker) logText() string {
	b, _ := os.ReadFile(w.log)
	return string(b)
}

// shaped reports whether racklab's root qdisc is on the worker's data NIC.
func (w *shapingWorker) shaped(t *testing.T) bool {
	t.Helper()
	var found bool
	err := shaping.Do(w.netns, func() error {
		link, err := netlink.LinkByName(w.dev)
		if err != nil {
			return err
		}
		qs, err := netlink.QdiscList(link)
		if err != nil {
			return err
		}
		for _, q := range qs {
			a := q.Attrs()
			if a.Parent == netlink.HANDLE_ROOT && a.Handle>>16 == shaping.QdiscMajor {
				found = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("qdiscs of %s in %s: %v", w.dev, w.netns, err)
	}
	return found
}

// waitUnshaped fails the test unless the qdisc goes within the dead-man
// interval plus slack; it returns how long it took.
func (w *shapingWorker) waitUnshaped(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	for w.shaped(t) {
		if time.Since(start) > deadManInterval+slack {
			t.Fatalf("racklab's qdisc still on %s %v after the worker stopped (dead-man interval %v)", w.dev, time.Since(start), deadManInterval)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// waitGuardianGone fails the test unless the guardian exits in time.
func (w *shapingWorker) waitGuardianGone(t *testing.T) {
	t.Helper()
	start := time.Now()
	for alive(w.guardian) {
		if time.Since(start) > slack {
			t.Fatalf("the guardian (pid %d) is still running %v after removing the shaping", w.guardian, time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDeadManSIGKILL(t *testing.T) {
	w := startShapingWorker(t)
	// the whole process group, as `kill -9 -PGID` or a terminal would:
	// the guardian, in its own session, must survive it
	if err := syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	took := w.waitUnshaped(t)
	w.waitGuardianGone(t)
	t.Logf("qdisc gone %v after SIGKILL (dead-man interval %v)", took.Round(time.Millisecond), deadManInterval)
}

func TestDeadManSIGSTOP(t *testing.T) {
	w := startShapingWorker(t)
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	took := w.waitUnshaped(t)
	w.waitGuardianGone(t)
	t.Logf("qdisc gone %v after SIGSTOP (dead-man interval %v)", took.Round(time.Millisecond), deadManInterval)
	// resumed, the worker finds its guardian gone and stops: it must not
	// run on unshaped
	if err := w.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.exited:
	case <-time.After(slack):
		t.Fatal("the worker runs on after its guardian removed its shaping")
	}
	if w.cmd.ProcessState.Success() {
		t.Error("the worker exited successfully after losing its shaping")
	}
	if !strings.Contains(w.logText(), "dead-man guardian") {
		t.Errorf("the worker's log does not say why it stopped:\n%s", w.logText())
	}
}

func TestDeadManCleanExit(t *testing.T) {
	w := startShapingWorker(t)
	// refreshed, the guardian leaves a live worker's shaping alone
	time.Sleep(3 * deadManInterval)
	if !w.shaped(t) {
		t.Fatalf("the shaping went while the worker ran:\n%s", w.logText())
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.exited:
	case <-time.After(slack):
		t.Fatal("the worker did not exit on SIGTERM")
	}
	if w.shaped(t) {
		t.Error("the worker exited leaving its qdisc")
	}
	// the worker waits for its guardian before exiting
	if alive(w.guardian) {
		t.Errorf("the guardian (pid %d) outlived its worker", w.guardian)
	}
	if strings.Contains(w.logText(), "worker guardian (") {
		t.Errorf("the guardian acted on a clean exit:\n%s", w.logText())
	}
}

// childOf returns the pid of a child of pid, or 0.
func childOf(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		if child, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			return child
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie, waiting for init to reap it,
// does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}
