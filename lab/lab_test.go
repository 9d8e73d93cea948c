package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// labTimeout bounds the whole path (about 2.5 min on 2 cores); past it
// lab.sh is sent SIGTERM, on which it takes the lab down.
const labTimeout = 8 * time.Minute

// TestLabInABox deploys racklab with ansible/site.yml to a lab in a box
// of three hosts (a rack each), runs a remote campaign against the
// workers, and checks that the kernel's cross-rack bytes are within 3% of
// the engine's and that teardown.yml and `lab.sh down` leave no process,
// qdisc, file, user, namespace or link (lab.sh test; its output says what
// it checked). It needs root, Debian's ansible and openssh-server;
// RACKLAB_SKIP_LAB=1 skips it.
func TestLabInABox(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("-short: the lab test takes minutes")
	case os.Getenv("RACKLAB_SKIP_LAB") == "1":
		t.Skip("RACKLAB_SKIP_LAB=1")
	case os.Geteuid() != 0:
		t.Skip("needs root (network namespaces, bind mounts)")
	}
	for _, c := range []string{"ansible-playbook", "/usr/sbin/sshd", "make"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("needs %s (apt-get install -y ansible openssh-server)", c)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), labTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "lab.sh", "test", "3")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	// a lab directory of the test's own: a lab a developer has up is not
	// touched (lab.sh refuses to start while its namespaces exist)
	dir := t.TempDir()
	cmd.Env = append(os.Environ(), "RACKLAB_LAB_DIR="+dir+"/lab", "RACKLAB_LAB_RESULTS="+dir+"/results")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lab.sh test 3: %v\n%s", err, out)
	}
	t.Logf("lab.sh test 3:\n%s", out)
}

// A lab directory that ssh, sshd or sh would split (a blank, a quote) is
// refused before anything is made, saying why: it used to make the lab
// and then fail with "ssh does not answer". Any command checks it; check
// makes nothing either way.
func TestLabDirWithBlankRefused(t *testing.T) {
	for _, dir := range []string{"/tmp/racklab lab", "/tmp/racklab'lab", "/tmp/racklab$lab"} {
		cmd := exec.Command("bash", "lab.sh", "check")
		cmd.Env = append(os.Environ(), "RACKLAB_LAB_DIR="+dir)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the lab directory '"+dir+"' has a blank, a quote") {
			t.Errorf("RACKLAB_LAB_DIR=%q lab.sh check: %v, want a refusal naming it:\n%s", dir, err, out)
		}
	}
}

// A relative lab directory is made absolute: sshd reads a relative
// AuthorizedKeysFile from root's home, and `test` runs the playbooks from
// the repository. `up` says where the lab directory is when it exists
// already, before it makes anything.
func TestLabDirMadeAbsolute(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("lab.sh up needs root before it looks at the lab directory")
	}
	if _, err := exec.LookPath("/usr/sbin/sshd"); err != nil {
		t.Skip("lab.sh up needs sshd before it looks at the lab directory")
	}
	script, err := filepath.Abs("lab.sh")
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "rel"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "up", "1")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "RACKLAB_LAB_DIR=rel")
	out, err := cmd.CombinedOutput()
	if want := "lab: " + filepath.Join(cwd, "rel") + " exists"; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("RACKLAB_LAB_DIR=rel lab.sh up 1 (in %s): %v, want %q:\n%s", cwd, err, want, out)
	}
}

// checkKernel runs lab.sh's check_kernel on a result directory holding
// summary.csv.
func checkKernel(t *testing.T, summary string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	// the script's functions, without its commands
	script := `eval "$(sed -n '/^die()/p;/^check_kernel()/,/^}/p' lab.sh)" && check_kernel "$1"`
	return exec.Command("bash", "-c", script, "bash", dir).CombinedOutput()
}

// check_kernel passes a summary whose kernel counts are within 3% of the
// engine's, and fails one without a run: it used to pass that, checking
// nothing.
func TestCheckKernel(t *testing.T) {
	const header = "policy,seed,jobs,failed_jobs,cross_rack_bytes,measured_cross_rack_bytes\n"
	if out, err := checkKernel(t, header+"fair,1,4,0,1000000,1010000\n"); err != nil {
		t.Errorf("kernel within 1%%: %v\n%s", err, out)
	}
	if out, err := checkKernel(t, header+"fair,1,4,0,1000000,1100000\n"); err == nil {
		t.Errorf("kernel 10%% over: passed\n%s", out)
	}
	if out, err := checkKernel(t, header); err == nil || !strings.Contains(string(out), "no run in") {
		t.Errorf("no run: %v, want a failure saying so\n%s", err, out)
	}
}
