package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --stall-timeout reaches the live driver: one not longer than the
// heartbeat timeout (3 s) is refused before the run starts.
func TestStallTimeoutFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	topo := write("topo.yaml", "uniform: {racks: 2, hosts_per_rack: 1}\n")
	ds := write("ds.yaml", "block_size_bytes: 1048576\nreplication: 1\ndatasets:\n  - {name: in, size_bytes: 1048576}\n")
	wl := write("wl.yaml", "jobs:\n  - id: j\n    stages:\n      - {name: map, kind: map, input: in}\n")
	cmd := command()
	cmd.SetArgs([]string{"--topology", topo, "--datasets", ds, "--workload", wl, "--out", filepath.Join(dir, "out"),
		"--credentials", filepath.Join(dir, "creds.json"), "--listen", "127.0.0.1:0", "--metrics-addr", "", "--stall-timeout", "2s"})
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "stall timeout 2s must be longer than the heartbeat timeout 3s") {
		t.Fatalf("coordinator --stall-timeout 2s: %v", err)
	}
}
