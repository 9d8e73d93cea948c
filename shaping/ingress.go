package shaping

import (
	"errors"
	"fmt"
	"net"

	tc "github.com/florianl/go-tc"
	"github.com/florianl/go-tc/core"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// IngressIFB names the IFB device through which an ingress HostShaper
// shapes what dev receives ("rlrx" + dev, cut to the kernel's 15
// characters).
func IngressIFB(dev string) string {
	n := "rlrx" + dev
	if len(n) > unix.IFNAMSIZ-1 {
		n = n[:unix.IFNAMSIZ-1]
	}
	return n
}

// NewIngressShaper shapes what dev receives, in the calling thread's
// network namespace: its ingress is redirected (an ingress qdisc, u32 and
// mirred) through the egress of an IFB device, IngressIFB(dev), that
// carries a HostShaper's HTB: an unshaped default class, and one class per
// source rack whose u32 filters match the IPv4 source address (SetRack's
// peers are the rack's senders). This is how a host enforces its share of
// its rack's downlink whoever sends. The IFB and the ingress qdisc left by
// a crashed worker are replaced; an ingress qdisc that racklab did not
// make is not.
func NewIngressShaper(dev string) (*HostShaper, error) {
	nl, err := netlink.NewHandle()
	if err != nil {
		return nil, fmt.Errorf("shaping: open netlink: %w", err)
	}
	s, err := newIngressShaper(nl, dev)
	if err != nil {
		nl.Close()
		return nil, err
	}
	return s, nil
}

// NewIngressShaperIn is NewIngressShaper for dev in the named namespace.
func NewIngressShaperIn(netnsName, dev string) (*HostShaper, error) {
	return in(netnsName, func() (*HostShaper, error) { return NewIngressShaper(dev) })
}

func newIngressShaper(nl *netlink.Handle, dev string) (*HostShaper, error) {
	link, err := nl.LinkByName(dev)
	if err != nil {
		return nil, fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	t, err := tc.Open(&tc.Config{})
	if err != nil {
		return nil, fmt.Errorf("shaping: open rtnetlink: %w", err)
	}
	data := uint32(link.Attrs().Index)
	if _, err := removeIngress(nl, t, dev, data); err != nil {
		t.Close()
		return nil, err
	}
	if has, err := hasIngressQdisc(t, data); err != nil || has {
		t.Close()
		if err == nil {
			err = fmt.Errorf("shaping: %s has an ingress qdisc that racklab did not make; remove it first", dev)
		}
		return nil, err
	}
	ifb := IngressIFB(dev)
	if err := nl.LinkAdd(&netlink.Ifb{LinkAttrs: netlink.LinkAttrs{Name: ifb, TxQLen: txQLen}}); err != nil {
		t.Close()
		return nil, fmt.Errorf("shaping: add %s: %w", ifb, err)
	}
	fail := func(err error) (*HostShaper, error) {
		_, rerr := removeIngress(nl, t, dev, data)
		t.Close()
		return nil, errors.Join(err, rerr)
	}
	il, err := nl.LinkByName(ifb)
	if err != nil {
		return fail(fmt.Errorf("shaping: link %s: %w", ifb, err))
	}
	if err := nl.LinkSetUp(il); err != nil {
		return fail(fmt.Errorf("shaping: set %s up: %w", ifb, err))
	}
	s, err := newHostShaper(t, ifb, uint32(il.Attrs().Index))
	if err != nil {
		return fail(err)
	}
	// the HTB first, then the redirect: no packet meets a bare IFB
	if err := redirectIngress(t, data, uint32(il.Attrs().Index)); err != nil {
		return fail(err)
	}
	s.ingress = &ingressOf{dev: dev, ifindex: data, nl: nl}
	return s, nil
}

// ingressOf is what an ingress HostShaper shapes the receiving side of.
type ingressOf struct {
	dev     string
	ifindex uint32
	nl      *netlink.Handle // opened in the shaper's namespace
}

// srcKey matches the IPv4 source address (offset 12 of the IP header).
func srcKey(ip4 net.IP) tc.U32Key {
	k := dstKey(ip4)
	k.Off = 12
	return k
}

// hasIngressQdisc reports whether ifindex has an ingress qdisc.
func hasIngressQdisc(t *tc.Tc, ifindex uint32) (bool, error) {
	qs, err := t.Qdisc().Get()
	if err != nil {
		return false, fmt.Errorf("shaping: list qdiscs: %w", err)
	}
	for _, q := range qs {
		if q.Ifindex == ifindex && q.Parent == tc.HandleIngress {
			return true, nil
		}
	}
	return false, nil
}

// removeIngress removes the receive-side shaping of dev (ifindex): its IFB
// and, if that existed, the ingress qdisc that redirects into it (ours,
// since the IFB carries racklab's name). It reports whether there was an
// IFB.
func removeIngress(nl *netlink.Handle, t *tc.Tc, dev string, ifindex uint32) (bool, error) {
	il, err := nl.LinkByName(IngressIFB(dev))
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return false, nil
		}
		return false, fmt.Errorf("shaping: link %s: %w", IngressIFB(dev), err)
	}
	q := tc.Object{
		Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: core.BuildHandle(ingressMajor, 0), Parent: tc.HandleIngress},
		Attribute: tc.Attribute{Kind: "ingress"},
	}
	if err := t.Qdisc().Delete(&q); err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EINVAL) {
		return true, fmt.Errorf("shaping: delete the ingress qdisc of %s: %w", dev, err)
	}
	if err := nl.LinkDel(il); err != nil {
		return true, fmt.Errorf("shaping: delete %s: %w", IngressIFB(dev), err)
	}
	return true, nil
}

// RemoveIngressShaper removes the receive-side shaping that racklab made
// on dev in the calling thread's namespace (cleanup after a crashed
// worker). It reports whether there was some.
func RemoveIngressShaper(dev string) (bool, error) {
	nl, err := netlink.NewHandle()
	if err != nil {
		return false, fmt.Errorf("shaping: open netlink: %w", err)
	}
	defer nl.Close()
	link, err := nl.LinkByName(dev)
	if err != nil {
		return false, fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	t, err := tc.Open(&tc.Config{})
	if err != nil {
		return false, fmt.Errorf("shaping: open rtnetlink: %w", err)
	}
	defer t.Close()
	return removeIngress(nl, t, dev, uint32(link.Attrs().Index))
}
