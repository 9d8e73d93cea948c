package campaign

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/metrics"
)

// tinyCampaign is a campaign of small simulated runs: three policies,
// repetitions of each.
func tinyCampaign(t *testing.T, repetitions int) *Campaign {
	t.Helper()
	c, err := Load(writeCampaign(t, fmt.Sprintf(`name: tiny
cluster: {racks: 2, hosts_per_rack: 3}
workload:
  generator: {name: recurring, set: w1, scale: 0.01}
runs:
  - mode: sim
    policies: [fifo, fair, capacity]
    repetitions: %d
`, repetitions)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logged collects a campaign's log lines.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logged) find(prefix, word string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) && strings.Contains(s, word) {
			return s
		}
	}
	return ""
}

// The lock holder for TestLockRefusesASecondBench: a process of its own,
// so that it can be killed.
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("RACKLAB_TEST_HOLD_LOCK")
	if dir == "" {
		t.Skip("only run as the lock holder of TestLockRefusesASecondBench")
	}
	if _, err := Lock(dir); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// A second campaign into a locked result directory is refused with the
// holder's pid; once the holder is killed, the directory is free.
func TestLockRefusesASecondBench(t *testing.T) {
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	holder.Env = append(os.Environ(), "RACKLAB_TEST_HOLD_LOCK="+dir)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("the holder said %q (%v)", line, err)
	}

	_, err = Lock(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != holder.Process.Pid {
		t.Fatalf("Lock: %v, want the holder's pid %d", err, holder.Process.Pid)
	}
	if want := fmt.Sprintf("pid %d", holder.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not name %s", err, want)
	}
	c := tinyCampaign(t, 1)
	if err := Execute(context.Background(), c, Options{Out: dir, Parallel: 1}); !errors.As(err, &le) {
		t.Fatalf("Execute into a locked directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "campaign.yaml")); err == nil {
		t.Error("the refused campaign wrote campaign.yaml")
	}

	// SIGKILL: the kernel releases the lock
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	release, err := Lock(dir)
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	// in one process too, a second taker is refused while the first holds it
	if _, err := Lock(dir); !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second Lock in one process: %v", err)
	}
	release()
	if err := Execute(context.Background(), c, Options{Out: dir, Parallel: 1}); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// A run whose records or done.json do not match is redone, and the log
// says why; the other runs are kept.
func TestUntrustedRunsAreRedone(t *testing.T) {
	c := tinyCampaign(t, 3)
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	runs := c.Matrix(out)
	if len(runs) != 9 {
		t.Fatalf("%d runs", len(runs))
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	editDone := func(r Run, from, to string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(r.Dir, doneFile))
		if err != nil || !strings.Contains(string(b), from) {
			t.Fatalf("%s: no %q in done.json (%v)", r.ID(), from, err)
		}
		write(filepath.Join(r.Dir, doneFile), strings.Replace(string(b), from, to, 1))
	}
	outside := filepath.Join(t.TempDir(), "outside.csv")
	write(outside, "outside")
	cases := []struct {
		why     string
		breakIt func(r Run)
	}{
		{"is missing", func(r Run) { os.Remove(filepath.Join(r.Dir, "jobs.csv")) }},
		{"bytes, done.json says", func(r Run) { os.Truncate(filepath.Join(r.Dir, "attempts.csv"), 100) }},
		{"has changed since the run", func(r Run) {
			p := filepath.Join(r.Dir, "links.csv")
			b, _ := os.ReadFile(p)
			b[len(b)-2] ^= 1 // same size, another content
			write(p, string(b))
		}},
		{"lists no record files", func(r Run) { write(filepath.Join(r.Dir, doneFile), "{}\n") }},
		{"lists no record files", func(r Run) { write(filepath.Join(r.Dir, doneFile), "null\n") }},
		{"malformed", func(r Run) { write(filepath.Join(r.Dir, doneFile), `{"summary": {"Policy": "fifo"`) }},
		{"was edited after the run", func(r Run) { editDone(r, `"Jobs": `, `"Jobs": 1`) }},
		{"symbolic link", func(r Run) {
			p := filepath.Join(r.Dir, "attempts.csv")
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	// the last run gets the done.json of the first: of another run
	other := runs[len(runs)-1]
	for i, cs := range cases {
		cs.breakIt(runs[i])
	}
	first, err := os.ReadFile(filepath.Join(runs[0].Dir, "done.json"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(other.Dir, doneFile), string(first))
	cases = append(cases, struct {
		why     string
		breakIt func(r Run)
	}{"is of run", nil})

	var log logged
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2, Logf: log.logf}); err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i := range cases {
		r := runs[i]
		if i == len(cases)-1 {
			r = other
		}
		idx[r.ID()] = i
		if line := log.find(r.ID()+": redone", cases[i].why); line == "" {
			t.Errorf("%s (%s): the log does not say it is redone because it %s: %q", r.ID(), cases[i].why, cases[i].why, log.lines)
		}
		if log.find(r.ID()+": done in", "") == "" {
			t.Errorf("%s (%s) was not redone", r.ID(), cases[i].why)
		}
		if _, err := CheckDone(r); err != nil {
			t.Errorf("%s after the rerun: %v", r.ID(), err)
		}
	}
	for _, r := range runs {
		if _, broken := idx[r.ID()]; !broken && log.find(r.ID()+": done in", "") != "" {
			t.Errorf("%s was intact and was redone", r.ID())
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Errorf("the file outside the result directory was written: %q", b)
	}
}

// A summary with non-finite values (a link skew is +Inf when a rack link
// carried nothing) makes a done.json that reads back as it was.
func TestDoneMarkerKeepsNonFiniteValues(t *testing.T) {
	c := tinyCampaign(t, 1)
	r := c.Matrix(t.TempDir())[0]
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range metrics.RecordFiles {
		if err := os.WriteFile(filepath.Join(r.Dir, name), []byte("header\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := metrics.Summary{Policy: r.Policy.String(), Seed: r.Seed, Jobs: 3, JCTMeanS: 1.25, LinkSkew: math.Inf(1)}
	sum.TierFrac[1] = math.NaN()
	sum.Bytes[1][2] = 12345
	if err := markDone(r, sum); err != nil {
		t.Fatal(err)
	}
	got, err := CheckDone(r)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got.TierFrac[1]) {
		t.Fatalf("TierFrac %v", got.TierFrac)
	}
	got.TierFrac[1], sum.TierFrac[1] = 0, 0
	if !reflect.DeepEqual(got, sum) {
		t.Fatalf("read back %+v, want %+v", got, sum)
	}
}

// Symbolic links planted in a result directory, at the files a campaign
// writes, do not lead its writes outside the directory.
func TestPlantedLinksAreNotFollowed(t *testing.T) {
	c := tinyCampaign(t, 1)
	out := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	plant := func(path string) {
		t.Helper()
		os.Remove(path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, path); err != nil {
			t.Fatal(err)
		}
	}
	runs := c.Matrix(out)
	plant(filepath.Join(out, "sim", "summary.csv"))
	plant(filepath.Join(out, "meta.json"))
	plant(filepath.Join(runs[0].Dir, doneFile))
	plant(filepath.Join(runs[0].Dir, "done.json.tmp")) // the old fixed temporary name
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	// a rerun: a finished run's done.json and records, and the summary
	plant(filepath.Join(out, "sim", "summary.csv"))
	plant(filepath.Join(runs[1].Dir, doneFile))
	plant(filepath.Join(runs[2].Dir, "attempts.csv"))
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Fatalf("a write went outside the result directory: the file there holds %.80q", b)
	}
	for _, r := range runs {
		if _, err := CheckDone(r); err != nil {
			t.Errorf("%s: %v", r.ID(), err)
		}
	}
	if st, err := os.Lstat(filepath.Join(out, "sim", "summary.csv")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("summary.csv: %v %v", st, err)
	}
	// a mode directory that is a link is refused
	out2 := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(out2, "sim")); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out2, Parallel: 1}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a mode directory that is a link: %v", err)
	}
}

// The runs a result directory's campaign plans: modes × policies ×
// repetitions.
func TestPlannedRuns(t *testing.T) {
	c := tinyCampaign(t, 3)
	out := t.TempDir()
	if n, err := PlannedRuns(out); n != 0 || err != nil {
		t.Fatalf("no campaign.yaml: %d, %v", n, err)
	}
	if err := os.WriteFile(filepath.Join(out, "campaign.yaml"), c.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := PlannedRuns(out); n != 9 || err != nil {
		t.Fatalf("PlannedRuns: %d, %v; want 9", n, err)
	}
}
