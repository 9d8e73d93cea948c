package shaping

import (
	"net"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Switched, Flat} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
		var u Mode
		b, _ := m.MarshalText()
		if err := u.UnmarshalText(b); err != nil || u != m {
			t.Errorf("text round trip of %v: %v, %v", m, u, err)
		}
	}
	if _, err := ParseMode("star"); err == nil {
		t.Error("ParseMode(star) succeeded")
	}
}

func TestValidate(t *testing.T) {
	ok := ClusterSpec{Prefix: "rl", Racks: racks(2, 3, 1e6, 0)}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v): %v", ok, err)
	}
	bad := []ClusterSpec{
		{Prefix: "", Racks: racks(1, 1, 0, 0)},
		{Prefix: "toolong7", Racks: racks(1, 1, 0, 0)},
		{Prefix: "RL", Racks: racks(1, 1, 0, 0)},
		{Prefix: "r-l", Racks: racks(1, 1, 0, 0)},
		{Prefix: "rl"},
		{Prefix: "rl", Racks: racks(1, 0, 0, 0)},
		{Prefix: "rl", Racks: racks(1, 255, 0, 0)},
		{Prefix: "rl", Racks: racks(257, 1, 0, 0)},
		{Prefix: "rl", Racks: racks(1, 1, -1, 0)},
		{Prefix: "rl", Mode: 7, Racks: racks(1, 1, 0, 0)},
	}
	for _, s := range bad {
		if err := s.Validate(); err == nil {
			t.Errorf("Validate(%+v) succeeded", s)
		}
	}
}

func TestNames(t *testing.T) {
	// The longest names fit in IFNAMSIZ-1.
	if n := hostNetns("abcdef", MaxRacks-1, MaxHostsPerRack-1); len(n) > 15 {
		t.Errorf("%s is longer than 15 characters", n)
	}
	for _, n := range []string{rackDownDev(MaxRacks - 1), rackBridge(MaxRacks - 1), hostName(MaxRacks-1, MaxHostsPerRack-1)} {
		if len(n) > 15 {
			t.Errorf("%s is longer than 15 characters", n)
		}
	}
	yes := []string{"rl-core", "rl-mgmt", "rl-r0h1", "rl-r12h345"}
	no := []string{"rl", "rl-", "rlx-core", "r-core", "rl-r0", "rl-r0h", "rl-foo", "xrl-mgmt", "rl-mgmt2"}
	for _, n := range yes {
		if !owned("rl", n) {
			t.Errorf("owned(rl, %s) = false", n)
		}
	}
	for _, n := range no {
		if owned("rl", n) {
			t.Errorf("owned(rl, %s) = true", n)
		}
	}
}

func TestAddressing(t *testing.T) {
	ip := dataIP("rl", 3, 4)
	if ip[0] != 10 || ip[2] != 3 || ip[3] != 5 {
		t.Errorf("dataIP(rl, 3, 4) = %v", ip)
	}
	p := mgmtPlan{base: mgmtBase + 5<<mgmtBlockBits}
	n := p.net()
	_, bench, _ := net.ParseCIDR("198.18.0.0/15")
	for _, a := range []net.IP{p.bridgeIP(), p.hostIP(0), p.hostIP(maxHosts - 1)} {
		if !n.Contains(a) || !bench.Contains(a) {
			t.Errorf("%v is outside %v or %v", a, n, bench)
		}
	}
	if p.hostIP(maxHosts - 1).Equal(u32IP(p.base + mgmtBlockSize - 1)) {
		t.Error("last host has the broadcast address")
	}
}

func TestClassNumbering(t *testing.T) {
	for _, r := range []int{0, 1, 17, maxRack} {
		if got := minorRack(rackMinor(r)); got != r {
			t.Errorf("minorRack(rackMinor(%d)) = %d", r, got)
		}
		if m := rackMinor(r); m > 0xffff || m == defaultMinor {
			t.Errorf("rackMinor(%d) = %#x", r, m)
		}
	}
	if minorRack(defaultMinor) != -1 {
		t.Error("default class maps to a rack")
	}
}
