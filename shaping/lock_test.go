package shaping

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
