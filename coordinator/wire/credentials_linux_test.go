package wire

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A secret whose write fails (here: past a file size limit of 40 bytes,
// set in a child process) leaves the file as it was, and no part of a
// file: before, an existing secret was cut short, and a new one left a
// truncated file that later runs kept and failed to read. The files
// EnsureCredentials lists as written (the coordinator prints each) are
// only those it wrote.
func TestFailedSecretWritesLeaveNothingHalfDone(t *testing.T) {
	if os.Getenv("RACKLAB_WIRE_FSIZE_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFailedSecretWritesLeaveNothingHalfDone$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RACKLAB_WIRE_FSIZE_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	old := filepath.Join(t.TempDir(), "coordinator.json")
	oldText := `{"user":"coordinator","password":"old"}` // under the limit
	if err := os.WriteFile(old, []byte(oldText), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()

	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 40, Max: 40}); err != nil {
		t.Skip(err)
	}

	err := writeSecret(old, Secret{User: CoordinatorUser, Password: strings.Repeat("n", 36)})
	if err == nil || !strings.Contains(err.Error(), old) {
		t.Errorf("write past the limit: %v, want an error naming %s", err, old)
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != oldText {
		t.Errorf("the secret was %q, is %q (%v)", oldText, b, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(old)); len(ents) != 1 {
		t.Errorf("left %v, want only %s", ents, old)
	}

	_, wrote, err := EnsureCredentials(fresh, testHosts)
	if err == nil {
		t.Fatal("EnsureCredentials wrote past the limit")
	}
	if len(wrote) != 0 {
		t.Errorf("EnsureCredentials failed (%v) and says it wrote %v", err, wrote)
	}
	if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
		t.Errorf("EnsureCredentials failed (%v) and left %v", err, ents)
	}
}
