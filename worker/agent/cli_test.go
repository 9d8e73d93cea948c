package agent

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A worker given no tier keeps its blocks in a directory of its own under
// the temporary directory, and removes it when a signal stops it, even
// while it is still waiting for NATS.
func TestDefaultTierDirectoryIsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := filepath.Join(tmp, "racklab-h9")
	cmd := Command()
	cmd.SetArgs([]string{"--host", "h9", "--rack", "r0", "--nats", "nats://127.0.0.1:1", "--metrics-addr", ""})
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(dir); err == nil {
			break // the store is open: the signals are caught
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker made no %s", dir)
		}
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a worker stopped by a signal returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the worker did not stop on SIGINT")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", dir, err)
	}
}
