package shaping

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lockChild is the test binary run again as another process that asks
// for the prefix's lock (LockPrefix) or cleans it up (Cleanup).
func lockChild(t *testing.T, op, prefix string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockChild$")
	cmd.Env = append(os.Environ(), "SHAPING_LOCK_CHILD="+op+":"+prefix)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line, _, _ := strings.Cut(string(out), "\n") // then the test binary's PASS
	return line
}

// TestLockChild is the child's side: it prints what it was told.
func TestLockChild(t *testing.T) {
	op, prefix, ok := strings.Cut(os.Getenv("SHAPING_LOCK_CHILD"), ":")
	if !ok {
		t.Skip("run by TestPrefixLock as another process")
	}
	var err error
	switch op {
	case "lock":
		var l *PrefixLock
		if l, err = LockPrefix(prefix); err == nil {
			l.Release()
		}
	case "cleanup":
		err = Cleanup(prefix)
	}
	var inUse *InUseError
	switch {
	case errors.As(err, &inUse):
		fmt.Printf("in use by %d: %v\n", inUse.PID, err)
	case err != nil:
		fmt.Printf("error: %v\n", err)
	default:
		fmt.Println("free")
	}
}

// A prefix this process holds is refused to another process, naming this
// one, for a cluster and for a cleanup; holds are counted within the
// process, and the lock is free again when the last is released.
func TestPrefixLock(t *testing.T) {
	const prefix = "lk"
	first, err := LockPrefix(prefix)
	if err != nil {
		t.Fatal(err)
	}
	second, err := LockPrefix(prefix) // the same process: a second hold
	if err != nil {
		t.Fatalf("a second hold in the holding process: %v", err)
	}
	want := "in use by " + strconv.Itoa(os.Getpid()) + ": shaping: cluster lk is in use by process " + strconv.Itoa(os.Getpid())
	for _, op := range []string{"lock", "cleanup"} {
		if got := lockChild(t, op, prefix); !strings.HasPrefix(got, want) {
			t.Errorf("%s from another process while held: %q, want %q…", op, got, want)
		}
	}
	first.Release()
	first.Release() // a second Release of one hold does nothing
	if got := lockChild(t, "lock", prefix); !strings.HasPrefix(got, "in use by") {
		t.Errorf("lock with one hold left: %q, want it in use", got)
	}
	second.Release()
	if got := lockChild(t, "lock", prefix); got != "free" {
		t.Errorf("lock after every hold was released: %q, want free", got)
	}
	if err := InUse(prefix); err != nil {
		t.Errorf("InUse of a free prefix: %v", err)
	}
}

// Two clusters built at once, of prefixes whose management subnets are
// looked for from the same block (q23 and q52), get different subnets:
// the choice and the address that claims it are made under one lock.
// Before, 6 of 10 such pairs got the same subnet, one bridge address for
// both clusters' NATS servers.
func TestConcurrentClustersGetTheirOwnManagementSubnets(t *testing.T) {
	needNetns(t)
	for try := range 3 {
		var cs [2]*Cluster
		var errs [2]error
		var wg sync.WaitGroup
		for i, p := range []string{"q23", "q52"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cs[i], errs[i] = Up(ClusterSpec{Prefix: p, Mode: Switched, Racks: racks(1, 1, 0, 0)})
			}()
		}
		wg.Wait()
		for _, c := range cs {
			if c != nil {
				defer c.Down()
			}
		}
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("try %d: %v / %v", try, errs[0], errs[1])
		}
		if cs[0].MgmtNet.String() == cs[1].MgmtNet.String() {
			t.Fatalf("try %d: both clusters on %v", try, cs[0].MgmtNet)
		}
		for _, c := range cs {
			if err := c.Down(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
