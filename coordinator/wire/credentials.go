package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Credentials are a cluster's NATS passwords: the coordinator's, and one
// per worker host. The coordinator holds them all (its embedded server
// admits the workers with them); each worker holds only its own file.
type Credentials struct {
	Coordinator string
	Workers     map[string]string // host name → password
}

// A Secret is one user's credentials file: the coordinator's
// (coordinator.json) or a worker's (worker-HOST.json, whose Host says
// which host it is for).
type Secret struct {
	User     string `json:"user"`
	Host     string `json:"host,omitempty"`
	Password string `json:"password"`
}

// CoordinatorFile is the coordinator's secret in a credentials directory.
func CoordinatorFile(dir string) string { return filepath.Join(dir, "coordinator.json") }

// WorkerFile is host's secret in a credentials directory: the only file
// that host is given.
func WorkerFile(dir, host string) string { return filepath.Join(dir, WorkerUser(host)+".json") }

func newPassword() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// NewCredentials makes random passwords for the coordinator and every
// host, for a cluster that runs its own server.
func NewCredentials(hosts []string) (Credentials, error) {
	c := Credentials{Workers: map[string]string{}}
	var err error
	if c.Coordinator, err = newPassword(); err != nil {
		return c, err
	}
	for _, h := range hosts {
		if err := CheckHostName(h); err != nil {
			return c, err
		}
		if c.Workers[h], err = newPassword(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Check refuses empty passwords and passwords that two users share: a
// worker holding another's password could act as it.
func (c Credentials) Check() error {
	owner := map[string]string{}
	add := func(user, pw string) error {
		if pw == "" {
			return fmt.Errorf("credentials: user %s has no password", user)
		}
		if prev, ok := owner[pw]; ok {
			return fmt.Errorf("credentials: users %s and %s have the same password; every user needs its own", prev, user)
		}
		owner[pw] = user
		return nil
	}
	if err := add(CoordinatorUser, c.Coordinator); err != nil {
		return err
	}
	for _, h := range c.hosts() {
		if err := add(WorkerUser(h), c.Workers[h]); err != nil {
			return err
		}
	}
	return nil
}

func (c Credentials) hosts() []string {
	hosts := make([]string, 0, len(c.Workers))
	for h := range c.Workers {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	return hosts
}

// WriteCredentials writes dir/coordinator.json and one
// dir/worker-HOST.json per host, each readable only by its owner; the
// directory is made if missing, readable only by its owner.
func WriteCredentials(dir string, c Credentials) error {
	if err := c.Check(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	if err := writeSecret(CoordinatorFile(dir), Secret{User: CoordinatorUser, Password: c.Coordinator}); err != nil {
		return err
	}
	for _, h := range c.hosts() {
		if err := writeSecret(WorkerFile(dir, h), Secret{User: WorkerUser(h), Host: h, Password: c.Workers[h]}); err != nil {
			return err
		}
	}
	return nil
}

// writeSecret writes s to path through a temporary file renamed over it,
// so that a failed or interrupted write leaves the file as it was, not
// cut short (a secret lost), and the new secret is never in a file that
// others may read: a file that exists would keep its mode.
func writeSecret(path string, s Secret) (err error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*") // made 0600
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("credentials %s: %w", path, err)
		}
	}()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ReadSecret reads one credentials file.
func ReadSecret(path string) (Secret, error) {
	var s Secret
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("credentials: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("credentials %s: %w (want {\"user\": ..., \"password\": ...})", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return s, fmt.Errorf("credentials %s: more after the secret's object (want only {\"user\": ..., \"password\": ...})", path)
	}
	if s.Password == "" {
		return s, fmt.Errorf("credentials %s: no password", path)
	}
	return s, nil
}

// LoadWorkerSecret reads host's credentials file and returns its
// password. The coordinator's file, or another host's, is refused.
func LoadWorkerSecret(path, host string) (string, error) {
	if err := CheckHostName(host); err != nil {
		return "", fmt.Errorf("credentials %s: %w", path, err)
	}
	s, err := ReadSecret(path)
	if err != nil {
		return "", err
	}
	if s.User == CoordinatorUser {
		return "", fmt.Errorf("credentials %s: this is the coordinator's secret, which a worker must not hold; give the worker its own %s", path, filepath.Base(WorkerFile("", host)))
	}
	if s.Host != host || s.User != WorkerUser(host) {
		return "", fmt.Errorf("credentials %s: the secret of host %q (user %q), not of %q", path, s.Host, s.User, host)
	}
	return s.Password, nil
}

// LoadCredentials reads the coordinator's secret and those of hosts
// from dir. Two files holding the same password are refused, naming
// both files.
func LoadCredentials(dir string, hosts []string) (Credentials, error) {
	c := Credentials{Workers: map[string]string{}}
	if err := checkDir(dir); err != nil {
		return c, err
	}
	s, err := ReadSecret(CoordinatorFile(dir))
	if err != nil {
		return c, err
	}
	if s.User != CoordinatorUser {
		return c, fmt.Errorf("credentials %s: user %q, want %q", CoordinatorFile(dir), s.User, CoordinatorUser)
	}
	c.Coordinator = s.Password
	fileOf := map[string]string{s.Password: CoordinatorFile(dir)}
	for _, h := range hosts {
		path := WorkerFile(dir, h)
		pw, err := LoadWorkerSecret(path, h)
		if err != nil {
			return c, err
		}
		if prev, ok := fileOf[pw]; ok {
			return c, fmt.Errorf("credentials: %s and %s hold the same password; every user needs its own (remove both and issue new ones with `coordinator credentials`)", prev, path)
		}
		fileOf[pw] = path
		c.Workers[h] = pw
	}
	return c, nil
}

// EnsureCredentials loads dir's credentials for hosts, first writing the
// files that are missing with new passwords; it returns the files it
// wrote. Files that exist are kept, so that it can run again after a
// host is added.
func EnsureCredentials(dir string, hosts []string) (Credentials, []string, error) {
	if err := checkDir(dir); err != nil {
		return Credentials{}, nil, err
	}
	fresh, err := NewCredentials(hosts)
	if err != nil {
		return Credentials{}, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Credentials{}, nil, fmt.Errorf("credentials: %w", err)
	}
	var wrote []string
	write := func(path string, s Secret) error {
		if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// listed only once written: the caller tells of each file
		if err := writeSecret(path, s); err != nil {
			return err
		}
		wrote = append(wrote, path)
		return nil
	}
	if err := write(CoordinatorFile(dir), Secret{User: CoordinatorUser, Password: fresh.Coordinator}); err != nil {
		return Credentials{}, wrote, err
	}
	for _, h := range hosts {
		if err := write(WorkerFile(dir, h), Secret{User: WorkerUser(h), Host: h, Password: fresh.Workers[h]}); err != nil {
			return Credentials{}, wrote, err
		}
	}
	c, err := LoadCredentials(dir, hosts)
	return c, wrote, err
}

// checkDir refuses a credentials path that is a file, such as the single
// file of every password that racklab used before each host had its own.
func checkDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("credentials %s: a file, where a directory is wanted (coordinator.json and worker-HOST.json; `coordinator credentials --out DIR` writes one)", dir)
	}
	return nil
}
