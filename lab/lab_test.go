package lab

import (
	"context"
	"os"
	"os/exec"
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
