package shaping

import (
	"testing"

	tc "github.com/florianl/go-tc"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// An ingress shaper classifies what a host receives by source rack (its
// class counters carry a transfer from that rack), and leaves nothing on
// Close: no IFB, no ingress qdisc. A leftover of a crashed worker is
// replaced by a new shaper and removed by RemoveIngressShaper; an ingress
// qdisc racklab did not make is left alone.
func TestIngressShaper(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("si"), Mode: Flat, Racks: racks(2, 1, 0, 0)}
	c := upCluster(t, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	state := func() (ifb, ingress bool) {
		t.Helper()
		err := Do(dst.Netns, func() error {
			_, err := netlink.LinkByName(IngressIFB(dst.DataDev))
			ifb = err == nil
			l, err := netlink.LinkByName(dst.DataDev)
			if err != nil {
				return err
			}
			qs, err := netlink.QdiscList(l)
			if err != nil {
				return err
			}
			for _, q := range qs {
				ingress = ingress || q.Attrs().Parent == netlink.HANDLE_INGRESS
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ifb, ingress
	}
	s, err := NewIngressShaperIn(dst.Netns, dst.DataDev)
	if err != nil {
		t.Fatalf("NewIngressShaperIn: %v", err)
	}
	if ifb, ingress := state(); !ifb || !ingress {
		t.Fatalf("after NewIngressShaper: IFB %v, ingress qdisc %v", ifb, ingress)
	}
	if err := s.SetRack(0, 125e6, c.RackDataIPs(0)); err != nil {
		t.Fatalf("SetRack: %v", err)
	}
	const n = 1 << 20
	var x xfer
	rk, _ := classDelta(t, s, func() { x = transfer(t, src, dst, n) })
	checkPayload(t, "receive class of rack 0", rk[0].Bytes, rk[0].Packets, n, x)
	// sending is not its business: dst's ACKs and replies are not counted
	rk, _ = classDelta(t, s, func() { x = transfer(t, dst, src, n) })
	if rk[0].Bytes > n/10 {
		t.Errorf("receive class of rack 0 counted %d bytes of a transfer the host sent", rk[0].Bytes)
	}

	// a crashed worker's leftover is replaced
	s2, err := NewIngressShaperIn(dst.Netns, dst.DataDev)
	if err != nil {
		t.Fatalf("NewIngressShaperIn over a leftover: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ifb, ingress := state(); ifb || ingress {
		t.Errorf("after Close: IFB %v, ingress qdisc %v", ifb, ingress)
	}
	_ = s.Close() // its IFB is gone already

	// RemoveIngressShaper cleans up after a crash
	if _, err := NewIngressShaperIn(dst.Netns, dst.DataDev); err != nil {
		t.Fatal(err)
	}
	var removed bool
	if err := Do(dst.Netns, func() (err error) { removed, err = RemoveIngressShaper(dst.DataDev); return err }); err != nil || !removed {
		t.Errorf("RemoveIngressShaper = %v, %v", removed, err)
	}
	if ifb, ingress := state(); ifb || ingress {
		t.Errorf("after RemoveIngressShaper: IFB %v, ingress qdisc %v", ifb, ingress)
	}

	// and so does RemoveHostShaper (worker --cleanup)
	if _, err := NewIngressShaperIn(dst.Netns, dst.DataDev); err != nil {
		t.Fatal(err)
	}
	if err := Do(dst.Netns, func() (err error) { removed, err = RemoveHostShaper(dst.DataDev); return err }); err != nil || !removed {
		t.Errorf("RemoveHostShaper = %v, %v", removed, err)
	}
	if ifb, ingress := state(); ifb || ingress {
		t.Errorf("after RemoveHostShaper: IFB %v, ingress qdisc %v", ifb, ingress)
	}

	// somebody else's ingress qdisc
	err = Do(dst.Netns, func() error {
		l, err := netlink.LinkByName(dst.DataDev)
		if err != nil {
			return err
		}
		t2, err := tc.Open(&tc.Config{})
		if err != nil {
			return err
		}
		defer t2.Close()
		q := tc.Object{Msg: tc.Msg{Family: unix.AF_UNSPEC, Ifindex: uint32(l.Attrs().Index), Handle: 0xffff0000, Parent: tc.HandleIngress},
			Attribute: tc.Attribute{Kind: "ingress"}}
		return t2.Qdisc().Add(&q)
	})
	if err != nil {
		t.Fatalf("add a foreign ingress qdisc: %v", err)
	}
	if s, err := NewIngressShaperIn(dst.Netns, dst.DataDev); err == nil {
		s.Close()
		t.Error("NewIngressShaper took over a foreign ingress qdisc")
	}
	if ifb, ingress := state(); ifb || !ingress {
		t.Errorf("after the refusal: IFB %v (want none), foreign ingress qdisc %v (want kept)", ifb, ingress)
	}
}
