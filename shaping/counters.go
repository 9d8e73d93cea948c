package shaping

import (
	"fmt"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/racklab/racklab/internal/heldcount"
)

// LinkCounters are the kernel's byte and packet counts of one rack's link.
//
// Switched mode: Up is rack -> core, read from the TX counters of the
// rack-side uplink veth; Down is core -> rack, from the TX counters of the
// core-side veth. These are interface counters: a GSO packet counts once,
// with its headers once.
//
// Flat mode: sums of the HostShaper class counters on the hosts' data NICs.
// Up is what this rack's hosts sent into the classes of other racks; Down is
// what other racks' hosts sent into this rack's class. Class counters count
// every segment of a GSO packet with its headers.
//
// In both cases Bytes - 66*Packets is the TCP payload of a bulk IPv4 TCP
// transfer (Ethernet + IPv4 + TCP with timestamps).
type LinkCounters struct {
	Rack                   int
	UpBytes, UpPackets     uint64
	DownBytes, DownPackets uint64
}

// RackLinkCounters reads the counters of every rack's link, by rack.
func (c *Cluster) RackLinkCounters() ([]LinkCounters, error) {
	if c.isDown() {
		return nil, fmt.Errorf("shaping: cluster %s is down", c.Spec.Prefix)
	}
	out := make([]LinkCounters, len(c.Spec.Racks))
	for r := range out {
		out[r].Rack = r
	}
	if c.Spec.Mode == Switched {
		return out, c.switchedCounters(out)
	}
	return out, c.flatCounters(out)
}

func (c *Cluster) switchedCounters(out []LinkCounters) error {
	ns, err := netns.GetFromName(c.FabricNetns())
	if err != nil {
		return fmt.Errorf("shaping: open fabric netns: %w", err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("shaping: netlink in fabric: %w", err)
	}
	defer h.Close()
	for r := range out {
		up, err := txStats(h, rackUpDev(r))
		if err != nil {
			return err
		}
		down, err := txStats(h, rackDownDev(r))
		if err != nil {
			return err
		}
		out[r].UpBytes, out[r].UpPackets = up.Bytes, up.Packets
		out[r].DownBytes, out[r].DownPackets = down.Bytes, down.Packets
	}
	return nil
}

func txStats(h *netlink.Handle, dev string) (ClassCounters, error) {
	l, err := h.LinkByName(dev)
	if err != nil {
		return ClassCounters{}, fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	s := l.Attrs().Statistics
	if s == nil {
		return ClassCounters{}, fmt.Errorf("shaping: no statistics for %s", dev)
	}
	return ClassCounters{Bytes: s.TxBytes, Packets: s.TxPackets}, nil
}

func (c *Cluster) flatCounters(out []LinkCounters) error {
	// held: a class removed by its worker's dead-man guardian, or made
	// anew, keeps what it counted (package heldcount)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, host := range c.Hosts {
		cs, err := hostClassCounters(host.Netns, host.DataDev)
		if err != nil {
			return err
		}
		raw := make(map[int]heldcount.Count, len(cs))
		for dst, cc := range cs {
			raw[dst] = heldcount.Count{Bytes: cc.Bytes, Packets: cc.Packets}
		}
		for dst, cc := range c.flatSeen.Read(i, raw) {
			if dst == host.Rack || dst >= len(out) {
				continue
			}
			out[host.Rack].UpBytes += cc.Bytes
			out[host.Rack].UpPackets += cc.Packets
			out[dst].DownBytes += cc.Bytes
			out[dst].DownPackets += cc.Packets
		}
	}
	return nil
}

// HostRackCounters reads the counters of host i's (an index of Hosts)
// destination-rack classes, by rack, in flat mode: what it sends toward
// each other rack. None if its worker has not shaped yet.
func (c *Cluster) HostRackCounters(i int) (map[int]ClassCounters, error) {
	if i < 0 || i >= len(c.Hosts) {
		return nil, fmt.Errorf("shaping: no host %d", i)
	}
	return hostClassCounters(c.Hosts[i].Netns, c.Hosts[i].DataDev)
}

// hostClassCounters reads the destination-rack class counters of the
// HostShaper on dev in the named namespace (none if it has no shaper).
func hostClassCounters(nsName, dev string) (map[int]ClassCounters, error) {
	cs, err := devClassCounters(nsName, dev)
	if err != nil {
		return nil, err
	}
	return rackCounters(cs), nil
}

// devClassCounters reads the counters of our classes on dev in the named
// namespace, by minor.
func devClassCounters(nsName, dev string) (map[uint32]ClassCounters, error) {
	ns, err := netns.GetFromName(nsName)
	if err != nil {
		return nil, fmt.Errorf("shaping: open netns %s: %w", nsName, err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return nil, fmt.Errorf("shaping: netlink in %s: %w", nsName, err)
	}
	defer h.Close()
	l, err := h.LinkByName(dev)
	if err != nil {
		return nil, fmt.Errorf("shaping: link %s in %s: %w", dev, nsName, err)
	}
	t, err := openTcAt(ns)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return classCounters(t, uint32(l.Attrs().Index))
}

// PriorityCounters reads the counters of the per-priority leaves of rack r's
// link ends (Switched mode with ClusterSpec.Priorities): up is rack -> core,
// down is core -> rack. Class counters count GSO segments with their headers.
func (c *Cluster) PriorityCounters(r int) (up, down [NumPriorities]ClassCounters, err error) {
	if c.Spec.Mode != Switched || !c.Spec.Priorities {
		return up, down, fmt.Errorf("shaping: cluster %s has no priority classes on rack links", c.Spec.Prefix)
	}
	if r < 0 || r >= len(c.Spec.Racks) {
		return up, down, fmt.Errorf("shaping: no rack %d", r)
	}
	for i, dev := range []string{rackUpDev(r), rackDownDev(r)} {
		cs, err := devClassCounters(c.FabricNetns(), dev)
		if err != nil {
			return up, down, err
		}
		out := &up
		if i == 1 {
			out = &down
		}
		for p := range Priority(NumPriorities) {
			out[p] = cs[leafMinor(rackMinor(0), p)]
		}
	}
	return up, down, nil
}

// GroupCounters are the kernel's counters of one shaped group: the group's
// class (every byte through it) and, with priorities, each priority leaf.
type GroupCounters struct {
	Total  ClassCounters
	Leaves [NumPriorities]ClassCounters
}

func groupCounters(cs map[uint32]ClassCounters, m uint32) GroupCounters {
	g := GroupCounters{Total: cs[m]}
	for p := range Priority(NumPriorities) {
		g.Leaves[p] = cs[leafMinor(m, p)]
	}
	return g
}

// HostNICCounters reads the counters of host i's shaped NIC (an index of
// Hosts): rx from the fabric's port toward the host, tx from the IFB that
// what the host sends passes through.
func (c *Cluster) HostNICCounters(i int) (rx, tx GroupCounters, err error) {
	if i < 0 || i >= len(c.Hosts) {
		return rx, tx, fmt.Errorf("shaping: no host %d", i)
	}
	h := c.Hosts[i]
	if c.Spec.HostNICBpsOf(h.Rack, h.InRack) <= 0 {
		return rx, tx, fmt.Errorf("shaping: cluster %s does not shape host NICs", c.Spec.Prefix)
	}
	return c.fabricGroupPair(h.Name, ifbName(h.Name))
}

// RackLinkGroupCounters reads the class counters of rack r's link ends
// (Switched mode): up is rack -> core, down is core -> rack.
func (c *Cluster) RackLinkGroupCounters(r int) (up, down GroupCounters, err error) {
	if c.Spec.Mode != Switched {
		return up, down, fmt.Errorf("shaping: cluster %s has no rack links (%s mode)", c.Spec.Prefix, c.Spec.Mode)
	}
	if r < 0 || r >= len(c.Spec.Racks) {
		return up, down, fmt.Errorf("shaping: no rack %d", r)
	}
	return c.fabricGroupPair(rackUpDev(r), rackDownDev(r))
}

// fabricGroupPair reads the shaped group (and its priority leaves) of two
// fabric devices, the two directions of one bottleneck.
func (c *Cluster) fabricGroupPair(devA, devB string) (a, b GroupCounters, err error) {
	g, err := c.NewGroupReader()
	if err != nil {
		return a, b, err
	}
	defer g.Close()
	return g.pair(devA, devB)
}
