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
