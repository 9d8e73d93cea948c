package shaping

import (
	"errors"
	"fmt"

	tc "github.com/florianl/go-tc"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// A GroupReader reads the counters of the fabric's shaped groups (rack
// links and host NICs) again and again through one rtnetlink socket,
// for a sampler that reads every bottleneck many times a second;
// HostNICCounters and RackLinkGroupCounters open a socket per call.
type GroupReader struct {
	c     *Cluster
	ns    netns.NsHandle
	t     *tc.Tc
	index map[string]uint32 // fabric device → ifindex
}

// NewGroupReader opens a reader of c's fabric; Close it.
func (c *Cluster) NewGroupReader() (*GroupReader, error) {
	if c.isDown() {
		return nil, fmt.Errorf("shaping: cluster %s is down", c.Spec.Prefix)
	}
	ns, err := netns.GetFromName(c.FabricNetns())
	if err != nil {
		return nil, fmt.Errorf("shaping: open fabric netns: %w", err)
	}
	t, err := openTcAt(ns)
	if err != nil {
		ns.Close()
		return nil, err
	}
	return &GroupReader{c: c, ns: ns, t: t, index: map[string]uint32{}}, nil
}

// Close releases the reader's socket and namespace handle.
func (g *GroupReader) Close() error {
	return errors.Join(g.t.Close(), g.ns.Close())
}

// HostNIC reads host i's shaped NIC, as Cluster.HostNICCounters.
func (g *GroupReader) HostNIC(i int) (rx, tx GroupCounters, err error) {
	if i < 0 || i >= len(g.c.Hosts) {
		return rx, tx, fmt.Errorf("shaping: no host %d", i)
	}
	h := g.c.Hosts[i]
	if g.c.Spec.HostNICBpsOf(h.Rack, h.InRack) <= 0 {
		return rx, tx, fmt.Errorf("shaping: cluster %s does not shape host NICs", g.c.Spec.Prefix)
	}
	return g.pair(h.Name, ifbName(h.Name))
}

// RackLink reads rack r's link ends (Switched mode), as
// Cluster.RackLinkGroupCounters.
func (g *GroupReader) RackLink(r int) (up, down GroupCounters, err error) {
	if g.c.Spec.Mode != Switched {
		return up, down, fmt.Errorf("shaping: cluster %s has no rack links (%s mode)", g.c.Spec.Prefix, g.c.Spec.Mode)
	}
	if r < 0 || r >= len(g.c.Spec.Racks) {
		return up, down, fmt.Errorf("shaping: no rack %d", r)
	}
	return g.pair(rackUpDev(r), rackDownDev(r))
}

func (g *GroupReader) pair(devA, devB string) (a, b GroupCounters, err error) {
	var out [2]GroupCounters
	for i, dev := range []string{devA, devB} {
		idx, err := g.ifindex(dev)
		if err != nil {
			return a, b, err
		}
		cs, err := classCounters(g.t, idx)
		if err != nil {
			return a, b, fmt.Errorf("shaping: %s: %w", dev, err)
		}
		out[i] = groupCounters(cs, rackMinor(0))
	}
	return out[0], out[1], nil
}

func (g *GroupReader) ifindex(dev string) (uint32, error) {
	if idx, ok := g.index[dev]; ok {
		return idx, nil
	}
	h, err := netlink.NewHandleAt(g.ns)
	if err != nil {
		return 0, fmt.Errorf("shaping: netlink in fabric: %w", err)
	}
	defer h.Close()
	l, err := h.LinkByName(dev)
	if err != nil {
		return 0, fmt.Errorf("shaping: link %s in fabric: %w", dev, err)
	}
	g.index[dev] = uint32(l.Attrs().Index)
	return g.index[dev], nil
}
