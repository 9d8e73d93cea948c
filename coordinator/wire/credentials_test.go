package wire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var testHosts = []string{"r0h0", "r0h1", "r1h0"}

// The coordinator's secret is in no worker's file, each worker's file
// holds only its own password, and a worker refuses a file not its own.
func TestWorkerFilesHoldOnlyTheirOwnSecret(t *testing.T) {
	dir := t.TempDir()
	c, wrote, err := EnsureCredentials(dir, testHosts)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != len(testHosts)+1 {
		t.Fatalf("wrote %v, want the coordinator's file and one per host", wrote)
	}
	for _, h := range testHosts {
		path := WorkerFile(dir, h)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), c.Coordinator) {
			t.Errorf("%s holds the coordinator's secret:\n%s", path, b)
		}
		for _, o := range testHosts {
			if o != h && strings.Contains(string(b), c.Workers[o]) {
				t.Errorf("%s holds %s's secret", path, o)
			}
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", path, fi.Mode().Perm(), err)
		}
		pw, err := LoadWorkerSecret(path, h)
		if err != nil || pw != c.Workers[h] {
			t.Errorf("%s: loaded %q, %v; want its password", path, pw, err)
		}
	}
	if _, err := LoadWorkerSecret(WorkerFile(dir, "r0h1"), "r0h0"); err == nil || !strings.Contains(err.Error(), `host "r0h1"`) {
		t.Errorf("r0h0 loaded r0h1's file: %v", err)
	}
	if _, err := LoadWorkerSecret(CoordinatorFile(dir), "r0h0"); err == nil || !strings.Contains(err.Error(), "coordinator's secret") {
		t.Errorf("a worker loaded the coordinator's file: %v", err)
	}
	// again, with a host more: the files that exist are kept
	again, wrote, err := EnsureCredentials(dir, append(testHosts, "r1h1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 1 || wrote[0] != WorkerFile(dir, "r1h1") || again.Coordinator != c.Coordinator || again.Workers["r0h0"] != c.Workers["r0h0"] {
		t.Errorf("a second run wrote %v and changed secrets it should have kept", wrote)
	}
}

// Two files that hold the same password are refused, naming both; so are
// in-memory credentials that share one.
func TestIdenticalSecretsAreRefused(t *testing.T) {
	for name, copyFrom := range map[string]string{"coordinator and worker": "coordinator", "two workers": "r0h1"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c, _, err := EnsureCredentials(dir, testHosts)
			if err != nil {
				t.Fatal(err)
			}
			src := CoordinatorFile(dir)
			pw := c.Coordinator
			if copyFrom != "coordinator" {
				src, pw = WorkerFile(dir, copyFrom), c.Workers[copyFrom]
			}
			// r1h0's file gets the other's password
			victim := WorkerFile(dir, "r1h0")
			if err := writeSecret(victim, Secret{User: WorkerUser("r1h0"), Host: "r1h0", Password: pw}); err != nil {
				t.Fatal(err)
			}
			_, err = LoadCredentials(dir, testHosts)
			if err == nil || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), victim) || !strings.Contains(err.Error(), "same password") {
				t.Fatalf("error %v, want a refusal naming %s and %s", err, src, victim)
			}
			if _, _, err := EnsureCredentials(dir, testHosts); err == nil {
				t.Error("EnsureCredentials kept identical secrets")
			}
			c.Workers["r1h0"] = pw
			if err := c.Check(); err == nil || !strings.Contains(err.Error(), "same password") {
				t.Errorf("Check: %v, want a refusal", err)
			}
			if err := WriteCredentials(filepath.Join(dir, "other"), c); err == nil {
				t.Error("WriteCredentials wrote identical secrets")
			}
		})
	}
}

// A file that is not a secret is refused with its name.
func TestBadCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"old.json":   `{"coordinator": "x", "worker": "y"}`,
		"empty.json": `{"user": "worker-r0h0", "host": "r0h0"}`,
		"junk.json":  `not json`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadWorkerSecret(path, "r0h0"); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	if _, err := LoadCredentials(filepath.Join(dir, "missing"), nil); err == nil {
		t.Error("a missing directory loaded")
	}
	// the single file of before
	old := filepath.Join(dir, "old.json")
	if _, _, err := EnsureCredentials(old, testHosts); err == nil || !strings.Contains(err.Error(), "where a directory is wanted") {
		t.Errorf("a credentials file for a directory: %v", err)
	}
}

// The coordinator reads who sent a report from its subject.
func TestSender(t *testing.T) {
	s, _ := NewSubjects("x")
	for subject, want := range map[string]string{
		s.Register("r0h0"): "r0h0", s.Heartbeat("r1h2"): "r1h2", s.Events("a-b"): "a-b",
		s.Worker("r0h0"): "", s.Hello(): "", s.Heartbeat("a.b"): "", "racklab.y.events.r0h0": "", s.Events(""): "",
	} {
		if got := s.Sender(subject); got != want {
			t.Errorf("Sender(%q) = %q, want %q", subject, got, want)
		}
	}
}

// A host whose name cannot be a file name gets a clear refusal, not a
// "no such file or directory" for dir/worker-a/b.json.
func TestCredentialsRefuseHostNamesWithSlashes(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := EnsureCredentials(dir, []string{"r0h0", "a/b"}); err == nil || !strings.Contains(err.Error(), `host name: "a/b" may not contain '/'`) {
		t.Errorf("EnsureCredentials: %v, want the host name refused", err)
	}
	if _, err := LoadWorkerSecret(filepath.Join(dir, "x.json"), "a/b"); err == nil || !strings.Contains(err.Error(), `host name: "a/b"`) {
		t.Errorf("LoadWorkerSecret: %v, want the host name refused", err)
	}
}

// A credentials file with more after its object is refused, as one with
// an unknown field is.
func TestSecretWithTrailingDataIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker-r0h0.json")
	for text, ok := range map[string]bool{
		`{"user":"worker-r0h0","host":"r0h0","password":"p"}` + "\n\n":                    true,
		`{"user":"worker-r0h0","host":"r0h0","password":"p"} {"password":"q"}`:            false,
		`{"user":"worker-r0h0","host":"r0h0","password":"p"}` + "\n" + `{"user":"worker"`: false,
		`{"user":"worker-r0h0","host":"r0h0","password":"p"}]`:                            false,
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		pw, err := LoadWorkerSecret(path, "r0h0")
		if ok && (err != nil || pw != "p") {
			t.Errorf("%q: %q, %v; want p", text, pw, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), path)) {
			t.Errorf("%q: %q, %v; want an error naming the file", text, pw, err)
		}
	}
}
