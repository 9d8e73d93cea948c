package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/wire"
)

// 'coordinator credentials' writes the coordinator's secret and one per
// host, keeps them when run again, and refuses a directory where two
// files hold the same password.
func TestCredentialsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "creds")
	run := func(args ...string) (string, error) {
		cmd := command()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append([]string{"credentials", "--out", dir}, args...))
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("--hosts", "r0h0,r1h0")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{wire.CoordinatorFile(dir), wire.WorkerFile(dir, "r0h0"), wire.WorkerFile(dir, "r1h0")} {
		if !strings.Contains(out, "wrote "+f) {
			t.Errorf("output does not say it wrote %s:\n%s", f, out)
		}
	}
	before, err := wire.LoadCredentials(dir, []string{"r0h0", "r1h0"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err = run("--hosts", "r0h0,r1h0"); err != nil || strings.Contains(out, "wrote") {
		t.Errorf("a second run wrote again (%v):\n%s", err, out)
	}
	if after, _ := wire.LoadCredentials(dir, []string{"r0h0", "r1h0"}); after.Workers["r0h0"] != before.Workers["r0h0"] {
		t.Error("a second run changed r0h0's secret")
	}
	// r1h0's file made with r0h0's password
	b, err := os.ReadFile(wire.WorkerFile(dir, "r1h0"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(before.Workers["r1h0"]), []byte(before.Workers["r0h0"]))
	if err := os.WriteFile(wire.WorkerFile(dir, "r1h0"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run("--hosts", "r0h0,r1h0"); err == nil || !strings.Contains(err.Error(), "same password") || !strings.Contains(err.Error(), wire.WorkerFile(dir, "r0h0")) {
		t.Errorf("identical secrets: %v, want a refusal naming the files", err)
	}
	if _, err := run(); err == nil {
		t.Error("no hosts: no error")
	}
}

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

// --window reaches the live driver: a window longer than --max-run-time
// is refused before the run starts.
func TestWindowFlag(t *testing.T) {
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
		"--credentials", filepath.Join(dir, "creds.json"), "--listen", "127.0.0.1:0", "--metrics-addr", "",
		"--window", "10s", "--max-run-time", "5s"})
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--max-run-time 5s is shorter than --window 10s") {
		t.Fatalf("coordinator --window 10s --max-run-time 5s: %v", err)
	}
	// refused before anything is written
	for _, p := range []string{filepath.Join(dir, "creds.json"), filepath.Join(dir, "out")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written before the refusal", p)
		}
	}
}

// A host named twice is refused before any secret is written, saying
// so: it used to get two files and the refusal "the same password".
func TestCredentialsHostTwice(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topo.yaml")
	if err := os.WriteFile(topo, []byte("uniform: {racks: 2, hosts_per_rack: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--hosts", "a,b,a"}, {"--topology", topo, "--hosts", "r1h0"}} {
		creds := filepath.Join(t.TempDir(), "creds")
		cmd := command()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append([]string{"credentials", "--out", creds}, args...))
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "is named twice") {
			t.Errorf("credentials %v: %v, want a refusal of the host named twice", args, err)
		}
		if _, err := os.Stat(creds); err == nil {
			t.Errorf("credentials %v: secrets written before the refusal", args)
		}
	}
}

// A negative duration, or no time to register in, is refused before
// anything is read or written (the credentials' directory stays absent).
func TestDurationFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--register-timeout", "-1s"}, "--register-timeout -1s is negative"},
		{[]string{"--register-timeout", "0s"}, "--register-timeout must be positive"},
		{[]string{"--max-run-time", "-5s"}, "--max-run-time -5s is negative"},
		{[]string{"--window", "-5s"}, "--window -5s is negative"},
	} {
		dir := t.TempDir()
		creds := filepath.Join(dir, "creds")
		cmd := command()
		cmd.SetArgs(append([]string{"--topology", filepath.Join(dir, "none.yaml"), "--workload", filepath.Join(dir, "none.yaml"),
			"--credentials", creds, "--out", filepath.Join(dir, "out")}, tc.args...))
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(creds); err == nil {
			t.Errorf("%v: the credentials were written before the refusal", tc.args)
		}
	}
}
