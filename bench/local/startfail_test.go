package local

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/racklab/racklab/shaping"
)

// A start that fails once the cluster is partly made (here its workers
// cannot start) takes down what it made and says why: before, its
// cleanup ran on the nil emulator the failed start returned, and the
// process panicked with the namespaces, the tmpfs and the lock left.
func TestFailedStartTakesDownWhatItMade(t *testing.T) {
	needRoot(t)
	opt := options(t, fmt.Sprintf("sf%d", os.Getpid()%10000), shaping.Switched, topology(t, 2, 1))
	opt.WorkerCommand = []string{"/nonexistent/racklab-worker"}
	e, err := Start(opt)
	if err == nil {
		e.Stop()
		t.Fatal("a cluster started with no worker binary")
	}
	if e != nil || !strings.Contains(err.Error(), "racklab-worker") {
		t.Errorf("Start: %v, %v; want no emulator and the worker's error", e, err)
	}
	checkGone(t, opt)
	// the prefix's lock is free again: the same cluster starts
	opt.WorkerCommand = []string{benchBin, "worker"}
	if e, err = Start(opt); err != nil {
		t.Fatalf("start again: %v", err)
	}
	if err := e.Stop(); err != nil {
		t.Error(err)
	}
	checkGone(t, opt)
}
