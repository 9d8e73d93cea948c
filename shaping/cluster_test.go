package shaping

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
)

func checkShape(t *testing.T, c *Cluster) {
	t.Helper()
	want := 0
	for _, r := range c.Spec.Racks {
		want += r.Hosts
	}
	if len(c.Hosts) != want {
		t.Fatalf("%d hosts, want %d", len(c.Hosts), want)
	}
	seen := map[string]bool{}
	for i, h := range c.Hosts {
		if i > 0 && h.Rack < c.Hosts[i-1].Rack {
			t.Errorf("hosts not in rack-major order: %v", c.Hosts)
		}
		for _, k := range []string{h.Netns, h.DataIP.String(), h.MgmtIP.String()} {
			if seen[k] {
				t.Errorf("duplicate %s", k)
			}
			seen[k] = true
		}
		if !c.DataNet.Contains(h.DataIP) || !c.MgmtNet.Contains(h.MgmtIP) {
			t.Errorf("host %s: addresses %v %v outside %v %v", h.Name, h.DataIP, h.MgmtIP, c.DataNet, c.MgmtNet)
		}
	}
}

// checkMgmt checks that a TCP server in the root namespace bound to MgmtIP
// is reachable from every host.
func checkMgmt(t *testing.T, c *Cluster) {
	t.Helper()
	ln, err := net.Listen("tcp4", net.JoinHostPort(c.MgmtIP.String(), "0"))
	if err != nil {
		t.Fatalf("listen on MgmtIP: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte("ok"))
			conn.Close()
		}
	}()
	for _, h := range c.Hosts {
		conn := dial(t, h.Netns, ln.Addr())
		buf := make([]byte, 2)
		if _, err := conn.Read(buf); err != nil || string(buf) != "ok" {
			t.Errorf("%s: read from coordinator: %q, %v", h.Name, buf, err)
		}
		if a := conn.LocalAddr().(*net.TCPAddr); !a.IP.Equal(h.MgmtIP) {
			t.Errorf("%s: connected from %v, want %v", h.Name, a.IP, h.MgmtIP)
		}
		conn.Close()
	}
}

func TestUpDownSwitched(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("ss"), Mode: Switched, Racks: racks(3, 2, 125e6, 125e6)}
	c := upCluster(t, spec)
	checkShape(t, c)
	checkMgmt(t, c)
	// Data plane: first host to last host (across the core), and within a rack.
	transfer(t, c.Hosts[0], c.Hosts[len(c.Hosts)-1], 100<<10)
	transfer(t, c.Hosts[0], c.Hosts[1], 100<<10)
	if err := c.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if left, err := Leftovers(spec.Prefix); err != nil || len(left) > 0 {
		t.Fatalf("Leftovers after Down = %v, %v", left, err)
	}
	if err := c.Down(); err != nil {
		t.Fatalf("second Down: %v", err)
	}
	if _, err := c.RackLinkCounters(); err == nil {
		t.Error("RackLinkCounters of a cluster that is down succeeded")
	}
}

func TestUpDownFlat(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sf"), Mode: Flat, Racks: racks(3, 2, 0, 0)}
	c := upCluster(t, spec)
	checkShape(t, c)
	checkMgmt(t, c)
	transfer(t, c.Hosts[0], c.Hosts[len(c.Hosts)-1], 100<<10)
	if err := c.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if left, err := Leftovers(spec.Prefix); err != nil || len(left) > 0 {
		t.Fatalf("Leftovers after Down = %v, %v", left, err)
	}
}

func TestCrashRecovery(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sr"), Mode: Switched, Racks: racks(2, 2, 0, 0)}
	needNetns(t)
	t.Cleanup(func() { Cleanup(spec.Prefix) })
	c, err := Up(spec)
	if err != nil {
		t.Fatalf("first Up: %v", err)
	}
	left, err := Leftovers(spec.Prefix)
	if err != nil || len(left) == 0 {
		t.Fatalf("Leftovers of a live cluster = %v, %v", left, err)
	}
	// "Crash": drop c without Down, then Up again with the same prefix.
	_ = c
	c = upCluster(t, spec)
	checkMgmt(t, c)
	transfer(t, c.Hosts[0], c.Hosts[3], 64<<10)
	if err := c.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if left, err := Leftovers(spec.Prefix); err != nil || len(left) > 0 {
		t.Fatalf("Leftovers after Down = %v, %v", left, err)
	}
}

// A failure half-way through Up leaves nothing behind.
func TestUpFailureCleansUp(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("su"), Mode: Switched, Racks: racks(2, 2, 1e6, 1e6)}
	needNetns(t)
	t.Cleanup(func() { Cleanup(spec.Prefix) })
	failAt := hostNetns(spec.Prefix, 1, 0)
	buildFault = func(host string) error {
		if host == failAt {
			return errors.New("injected fault")
		}
		return nil
	}
	defer func() { buildFault = nil }()
	if c, err := Up(spec); err == nil || c != nil {
		t.Fatalf("Up with a fault = %v, %v", c, err)
	}
	if left, err := Leftovers(spec.Prefix); err != nil || len(left) > 0 {
		t.Fatalf("Leftovers after a failed Up = %v, %v", left, err)
	}
}

func TestStartIn(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sx"), Mode: Flat, Racks: racks(1, 1, 0, 0)}
	c := upCluster(t, spec)
	var out bytes.Buffer
	cmd := exec.Command("cat", "/proc/net/dev")
	cmd.Stdout = &out
	if err := StartIn(c.Hosts[0].Netns, cmd); err != nil {
		t.Fatalf("StartIn: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	s := out.String()
	if !strings.Contains(s, DataDev+":") || !strings.Contains(s, MgmtDev+":") || strings.Contains(s, "eth0:") {
		t.Errorf("child does not see the host namespace:\n%s", s)
	}
}
