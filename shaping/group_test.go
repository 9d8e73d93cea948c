package shaping

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/racklab/racklab/internal/traffic"
)

// A group with priorities has one leaf per band of the priority table,
// each guaranteed a small share, allowed the whole rate, and served in the
// table's order; the group itself is capped at its rate.
func TestGroupClasses(t *testing.T) {
	const rate = 125e6
	m := rackMinor(2)
	cs := groupClasses(m, rate, true)
	if len(cs) != 1+int(NumPriorities) {
		t.Fatalf("%d classes, want the group and %d leaves", len(cs), NumPriorities)
	}
	if g := cs[0]; g.minor != m || g.parent != 0 || g.rate != rate || g.ceil != rate {
		t.Errorf("group class %+v, want minor %x at rate = ceil = %g", g, m, rate)
	}
	seen := map[uint32]bool{}
	var guaranteed float64
	for _, c := range cs[1:] {
		p := Priority(c.prio)
		if c.parent != m || c.minor != leafMinor(m, p) || seen[c.minor] || minorRack(c.minor) >= 0 {
			t.Errorf("leaf %+v: want a distinct leaf of group %x that no rack class claims", c, m)
		}
		seen[c.minor] = true
		if c.ceil != rate || c.rate <= 0 || c.rate > 0.05*rate {
			t.Errorf("leaf %v: rate %g ceil %g; want a small guarantee and ceil = the group's %g", p, c.rate, c.ceil, rate)
		}
		guaranteed += c.rate
	}
	if guaranteed > 0.1*rate {
		t.Errorf("leaves are guaranteed %g of %g: the highest could not take 90%%", guaranteed, rate)
	}
	// the job bands are served first, in engine priority order, and the
	// bands below them after
	for p := range uint8(traffic.NumJobBands) {
		if got := cs[1+int(traffic.PriorityBand(p))].prio; got != uint32(p) {
			t.Errorf("engine priority %d: HTB prio %d, want %d", p, got, p)
		}
	}
	if !(cs[1+int(traffic.BandJob3)].prio < cs[1+int(traffic.BandBestEffort)].prio &&
		cs[1+int(traffic.BandBestEffort)].prio < cs[1+int(traffic.BandReserved)].prio &&
		cs[1+int(traffic.BandReserved)].prio < cs[1+int(traffic.BandBackground)].prio) {
		t.Error("the bands below the job bands are not served job3 > best effort > reserved > background")
	}
	if cs := groupClasses(m, rate, false); len(cs) != 1 {
		t.Errorf("without priorities: %d classes, want the group alone", len(cs))
	}
}

// Each DSCP filter matches exactly the IPv4 headers whose TOS byte carries
// its band's codepoint (whatever the ECN bits), and sends them to that
// band's leaf; the catch-all comes last.
func TestGroupFilters(t *testing.T) {
	m := rackMinor(0)
	fs := groupFilters(m)
	if len(fs) != int(NumPriorities) {
		t.Fatalf("%d filters, want one per band (the catch-all included)", len(fs))
	}
	last := fs[len(fs)-1]
	if last.minor != leafMinor(m, traffic.BandBestEffort) || last.key != anyKey || last.proto != ethPAll {
		t.Errorf("last filter %+v: want the catch-all into the best-effort leaf", last)
	}
	for _, f := range fs[:len(fs)-1] {
		if f.pref >= last.pref || f.proto != ethPIP || f.key.Off != 0 {
			t.Errorf("filter %+v: want an IPv4 match on the first word before the catch-all", f)
		}
		for dscp := range uint8(64) {
			for ecn := range uint8(4) {
				hdr := []byte{0x45, dscp<<2 | ecn, 0, 60}
				word := binary.NativeEndian.Uint32(hdr)
				match := word&f.key.Mask == f.key.Val
				want := traffic.BandOfDSCP(dscp) != traffic.BandBestEffort && f.minor == leafMinor(m, traffic.BandOfDSCP(dscp))
				if match != want {
					t.Errorf("filter to leaf %x on TOS %#x (DSCP %d): match %v, want %v", f.minor, hdr[1], dscp, match, want)
				}
			}
		}
	}
	// the engine's priorities land in their own leaves
	for p := range uint8(traffic.NumJobBands) {
		d := traffic.PriorityDSCP(p)
		hits := 0
		for _, f := range fs[:len(fs)-1] {
			if binary.NativeEndian.Uint32([]byte{0x45, d << 2, 0, 0})&f.key.Mask == f.key.Val {
				hits++
				if f.minor != leafMinor(m, Priority(p)) {
					t.Errorf("engine priority %d (DSCP %d) goes to leaf %x, want %x", p, d, f.minor, leafMinor(m, Priority(p)))
				}
			}
		}
		if hits != 1 {
			t.Errorf("engine priority %d: %d filters match, want 1", p, hits)
		}
	}
}

// A host's own NIC rate overrides its rack's, which overrides the
// cluster's; rates the kernel would not hold are refused, naming where.
func TestHostNICRate(t *testing.T) {
	s := ClusterSpec{Prefix: "rl", Racks: []RackSpec{{Hosts: 1}, {Hosts: 2, HostNICBps: 50e6, HostNICsBps: []float64{0, 1.25e9}}}, HostNICBps: 125e6}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if a, b, c := s.HostNICBpsOf(0, 0), s.HostNICBpsOf(1, 0), s.HostNICBpsOf(1, 1); a != 125e6 || b != 50e6 || c != 1.25e9 {
		t.Errorf("NIC rates %g, %g, %g; want 125e6 (the cluster's), 50e6 (the rack's) and 1.25e9 (the host's)", a, b, c)
	}
	for _, c := range []struct {
		edit func(*ClusterSpec)
		want string
	}{
		{func(s *ClusterSpec) { s.Racks[1].HostNICBps = -1 }, "shaping: rack 1 host NIC: rate -1 B/s is outside"},
		{func(s *ClusterSpec) { s.Racks[0].UplinkBps = math.NaN() }, "shaping: rack 0 uplink: rate NaN B/s is outside"},
		{func(s *ClusterSpec) { s.Racks[0].DownlinkBps = 1e20 }, "shaping: rack 0 downlink: rate 1e+20 B/s is outside"},
		{func(s *ClusterSpec) { s.Racks[0].UplinkBps = 1 }, "shaping: rack 0 uplink: rate 1 B/s is outside [100,"},
		{func(s *ClusterSpec) { s.Racks[1].HostNICsBps[1] = math.Inf(1) }, "shaping: rack 1 host 1 NIC: rate +Inf B/s is outside"},
		{func(s *ClusterSpec) { s.Racks[1].HostNICsBps = []float64{1e6} }, "shaping: rack 1 gives 1 host NIC rates for 2 hosts"},
		{func(s *ClusterSpec) { s.HostNICBps = math.NaN() }, "shaping: HostNICBps: rate NaN B/s is outside"},
	} {
		bad := s
		bad.Racks = append([]RackSpec(nil), s.Racks...)
		bad.Racks[1].HostNICsBps = append([]float64(nil), s.Racks[1].HostNICsBps...)
		c.edit(&bad)
		if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
	if got := ifbName(hostName(3, 12)); len(got) > 15 {
		t.Errorf("IFB name %q is longer than an interface name may be", got)
	}
}
