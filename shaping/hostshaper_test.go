package shaping

import (
	"math"
	"net"
	"testing"

	tc "github.com/florianl/go-tc"
	"github.com/florianl/go-tc/core"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

func classDelta(t *testing.T, s *HostShaper, f func()) (rack map[int]ClassCounters, def ClassCounters) {
	t.Helper()
	r0, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	d0, err := s.DefaultCounters()
	if err != nil {
		t.Fatalf("DefaultCounters: %v", err)
	}
	f()
	r1, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	d1, err := s.DefaultCounters()
	if err != nil {
		t.Fatalf("DefaultCounters: %v", err)
	}
	rack = make(map[int]ClassCounters)
	for r, c := range r1 {
		rack[r] = ClassCounters{Bytes: c.Bytes - r0[r].Bytes, Packets: c.Packets - r0[r].Packets}
	}
	return rack, ClassCounters{Bytes: d1.Bytes - d0.Bytes, Packets: d1.Packets - d0.Packets}
}

// A filter that matches nothing still "succeeds"; only the class counters
// tell. This test shows they do, and that SetRack replaces filters.
func TestFilterVerifiedByCounters(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sv"), Mode: Flat, Racks: racks(2, 1, 0, 0)}
	c := upCluster(t, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	s, err := NewHostShaperIn(src.Netns, src.DataDev)
	if err != nil {
		t.Fatalf("NewHostShaperIn: %v", err)
	}
	defer s.Close()
	const n = 1 << 20
	var x xfer
	send := func() { x = transfer(t, src, dst, n) }

	// A wrong peer set: the class stays still, the default class carries it.
	wrong := net.IPv4(10, dataOctet(spec.Prefix), 1, 200)
	if err := s.SetRack(1, 125e6, []net.IP{wrong}); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	// (Slack: the last ACK of the previous connection may land in a window.)
	rk, def := classDelta(t, s, send)
	if rk[1].Bytes > intraRackSlack {
		t.Errorf("class of rack 1 moved by %d bytes with a filter that matches nothing", rk[1].Bytes)
	}
	checkPayload(t, "default class, wrong filter", def.Bytes, def.Packets, n, x)

	// The right peer set: the class carries the transfer.
	if err := s.SetRack(1, 125e6, append(c.RackDataIPs(1), wrong)); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	rk, def = classDelta(t, s, send)
	checkPayload(t, "class of rack 1", rk[1].Bytes, rk[1].Packets, n, x)
	if def.Bytes > intraRackSlack {
		t.Errorf("default class moved by %d bytes with a matching filter", def.Bytes)
	}

	// Replacing the peer set drops the old filters.
	if err := s.SetRack(1, 62.5e6, []net.IP{wrong}); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	rk, _ = classDelta(t, s, send)
	if rk[1].Bytes > intraRackSlack {
		t.Errorf("class of rack 1 moved by %d bytes after its peer was removed", rk[1].Bytes)
	}
	if got := s.Racks(); len(got) != 1 || got[0] != 1 {
		t.Errorf("Racks() = %v", got)
	}
	if err := s.RemoveRack(1); err != nil {
		t.Fatalf("RemoveRack: %v", err)
	}
	if cs, err := s.Counters(); err != nil || len(cs) != 0 {
		t.Errorf("Counters after RemoveRack = %v, %v", cs, err)
	}
	if err := s.SetRack(0, 1e6, []net.IP{net.ParseIP("fd00::1")}); err == nil {
		t.Error("SetRack accepted an IPv6 peer")
	}
}

func TestHostShaperLifecycle(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sh"), Mode: Flat, Racks: racks(1, 1, 0, 0)}
	c := upCluster(t, spec)
	h := c.Hosts[0]
	rootKind := func() (kind string, handle uint32) {
		t.Helper()
		err := Do(h.Netns, func() error {
			l, err := netlink.LinkByName(h.DataDev)
			if err != nil {
				return err
			}
			qs, err := netlink.QdiscList(l)
			if err != nil {
				return err
			}
			for _, q := range qs {
				if q.Attrs().Parent == netlink.HANDLE_ROOT {
					kind, handle = q.Type(), q.Attrs().Handle
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return kind, handle
	}
	s, err := NewHostShaperIn(h.Netns, h.DataDev)
	if err != nil {
		t.Fatalf("NewHostShaperIn: %v", err)
	}
	if err := s.SetRack(3, 1e6, nil); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	// A second shaper replaces the first (a restarted worker).
	s2, err := NewHostShaperIn(h.Netns, h.DataDev)
	if err != nil {
		t.Fatalf("second NewHostShaperIn: %v", err)
	}
	if cs, err := s2.Counters(); err != nil || len(cs) != 0 {
		t.Errorf("a new shaper has rack classes: %v, %v", cs, err)
	}
	if kind, handle := rootKind(); kind != "htb" || handle>>16 != QdiscMajor {
		t.Errorf("root qdisc %s %x", kind, handle)
	}
	if err := s2.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s.Close()
	if kind, handle := rootKind(); kind == "htb" {
		t.Errorf("root qdisc %s %x left after Close", kind, handle)
	}
	var removed bool
	if err := Do(h.Netns, func() (err error) { removed, err = RemoveHostShaper(h.DataDev); return err }); err != nil || removed {
		t.Errorf("RemoveHostShaper on a clean device = %v, %v", removed, err)
	}

	// Somebody else's root qdisc is left alone.
	err = Do(h.Netns, func() error {
		l, err := netlink.LinkByName(h.DataDev)
		if err != nil {
			return err
		}
		t2, err := tc.Open(&tc.Config{})
		if err != nil {
			return err
		}
		defer t2.Close()
		q := tc.Object{
			Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: uint32(l.Attrs().Index), Handle: core.BuildHandle(1, 0), Parent: tc.HandleRoot},
			Attribute: tc.Attribute{Kind: "htb", Htb: &tc.Htb{Init: &tc.HtbGlob{Version: 3, Rate2Quantum: 10}}},
		}
		return t2.Qdisc().Add(&q)
	})
	if err != nil {
		t.Fatalf("add a foreign qdisc: %v", err)
	}
	if s, err := NewHostShaperIn(h.Netns, h.DataDev); err == nil {
		s.Close()
		t.Error("NewHostShaper replaced a foreign root qdisc")
	}
	if kind, handle := rootKind(); kind != "htb" || handle>>16 != 1 {
		t.Errorf("foreign root qdisc changed to %s %x", kind, handle)
	}
}

// SetRackRate changes a rack class's rate (and its priority leaves'
// ceilings) in place and keeps its filters: the class still carries the
// rack's traffic.
func TestSetRackRate(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sr"), Mode: Flat, Racks: racks(2, 1, 0, 0)}
	c := upCluster(t, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	s, err := NewHostShaperIn(src.Netns, src.DataDev)
	if err != nil {
		t.Fatalf("NewHostShaperIn: %v", err)
	}
	defer s.Close()
	if err := s.SetPriorities(true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRackRate(1, 1e6); err == nil {
		t.Error("SetRackRate on a rack without a class succeeded")
	}
	if err := s.SetRack(1, 125e6, c.RackDataIPs(1)); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	if err := s.SetRackRate(1, 5e6); err != nil {
		t.Fatalf("SetRackRate: %v", err)
	}
	rates := func() map[uint32][2]uint64 {
		t.Helper()
		cs, err := s.tc.Class().Get(&tc.Msg{Family: unix.AF_UNSPEC, Ifindex: s.ifindex})
		if err != nil {
			t.Fatal(err)
		}
		out := map[uint32][2]uint64{}
		for _, c := range cs {
			if c.Htb == nil || c.Htb.Parms == nil {
				continue
			}
			_, minor := core.SplitHandle(c.Handle)
			out[minor] = [2]uint64{uint64(c.Htb.Parms.Rate.Rate), uint64(c.Htb.Parms.Ceil.Rate)}
		}
		return out
	}()
	m := rackMinor(1)
	if got := rates[m]; got != [2]uint64{5e6, 5e6} {
		t.Errorf("rack class rate, ceil = %v, want 5e6", got)
	}
	if got := rates[leafMinor(m, 0)]; got[1] != 5e6 {
		t.Errorf("priority leaf ceil = %d, want 5e6", got[1])
	}
	const n = 1 << 20
	var x xfer
	rk, _ := classDelta(t, s, func() { x = transfer(t, src, dst, n) })
	checkPayload(t, "class of rack 1 after SetRackRate", rk[1].Bytes, rk[1].Packets, n, x)
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := s.SetRackRate(1, bad); err == nil {
			t.Errorf("SetRackRate(%v) succeeded", bad)
		}
	}
}

// A pooled shaper's rack classes hang under the host class, each at its
// rate with its own ceil (its priority leaves too), and still carry
// their rack's traffic; pooling is chosen before the first class.
func TestPooledRackClasses(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sp"), Mode: Flat, Racks: racks(2, 1, 0, 0)}
	c := upCluster(t, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	s, err := NewHostShaperIn(src.Netns, src.DataDev)
	if err != nil {
		t.Fatalf("NewHostShaperIn: %v", err)
	}
	defer s.Close()
	if err := s.SetPriorities(true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetHostRate(1e6); err == nil {
		t.Error("SetHostRate on a shaper that is not pooled succeeded")
	}
	if err := s.SetPooled(true); err != nil {
		t.Fatalf("SetPooled: %v", err)
	}
	if err := s.SetRack(1, 125e6, c.RackDataIPs(1)); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	if err := s.SetPooled(false); err == nil {
		t.Error("SetPooled(false) after SetRack succeeded")
	}
	if err := s.SetHostRate(10e6); err != nil {
		t.Fatalf("SetHostRate: %v", err)
	}
	if err := s.SetRackRates(1, 2e6, 8e6); err != nil {
		t.Fatalf("SetRackRates: %v", err)
	}
	type classAttrs struct{ parent, rate, ceil uint64 }
	cs, err := s.tc.Class().Get(&tc.Msg{Family: unix.AF_UNSPEC, Ifindex: s.ifindex})
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint32]classAttrs{}
	for _, c := range cs {
		if c.Htb == nil || c.Htb.Parms == nil {
			continue
		}
		_, minor := core.SplitHandle(c.Handle)
		_, parent := core.SplitHandle(c.Parent)
		got[minor] = classAttrs{uint64(parent), uint64(c.Htb.Parms.Rate.Rate), uint64(c.Htb.Parms.Ceil.Rate)}
	}
	m := rackMinor(1)
	if g := got[hostMinor]; g.rate != 10e6 || g.ceil != 10e6 {
		t.Errorf("host class rate, ceil = %d, %d, want 10e6", g.rate, g.ceil)
	}
	if g := got[m]; g != (classAttrs{hostMinor, 2e6, 8e6}) {
		t.Errorf("rack class parent, rate, ceil = %x, %d, %d, want %x, 2e6, 8e6", g.parent, g.rate, g.ceil, hostMinor)
	}
	if g := got[leafMinor(m, 0)]; g.ceil != 8e6 {
		t.Errorf("priority leaf ceil = %d, want 8e6", g.ceil)
	}
	const n = 1 << 20
	var x xfer
	rk, _ := classDelta(t, s, func() { x = transfer(t, src, dst, n) })
	checkPayload(t, "pooled class of rack 1", rk[1].Bytes, rk[1].Packets, n, x)
	if err := s.SetRackRates(1, 1e6, math.NaN()); err == nil {
		t.Error("SetRackRates with a NaN ceil succeeded")
	}
}
