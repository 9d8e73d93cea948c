package shaping

import (
	"fmt"
	"time"

	tc "github.com/florianl/go-tc"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// builder holds the handles used while Up builds a cluster.
type builder struct {
	spec   ClusterSpec
	mgmt   mgmtPlan
	root   *netlink.Handle
	fabNS  netns.NsHandle
	fab    *netlink.Handle
	fabTc  *tc.Tc
	closer []func()
	// host namespaces whose interfaces must have carrier before Up returns
	wait []string
}

const txQLen = 1000

// buildFault, if set (by tests), is called after each host is made; an
// error fails Up there.
var buildFault func(host string) error

func newBuilder(spec ClusterSpec) (*builder, error) {
	b := &builder{spec: spec, fabNS: netns.None()}
	root, err := netlink.NewHandle()
	if err != nil {
		return nil, fmt.Errorf("shaping: netlink: %w", err)
	}
	b.root = root
	b.closer = append(b.closer, root.Close)
	return b, nil
}

// claimMgmt chooses the cluster's management subnet and claims it: the
// management bridge in the root namespace, with its address. Clusters of
// other prefixes, built at once by other processes, choose among the same
// free subnets: the choice and the address that takes it out of the free
// ones are made under one lock of the whole machine, or two clusters
// would take one subnet (one bridge address for both NATS servers).
func (b *builder) claimMgmt() error {
	release, err := lockMgmtChoice()
	if err != nil {
		return err
	}
	defer release()
	if b.mgmt, err = chooseMgmt(b.root, b.spec.Prefix); err != nil {
		return err
	}
	mbr := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: mgmtBridge(b.spec.Prefix), TxQLen: txQLen}}
	if err := b.root.LinkAdd(mbr); err != nil {
		return fmt.Errorf("shaping: add bridge %s: %w", mbr.Name, err)
	}
	if err := disableIPv6(mbr.Name); err != nil {
		return err
	}
	return b.addAddr(b.root, mbr.Name, b.mgmt.bridgeIP(), b.mgmt.mask())
}

func (b *builder) close() {
	for i := len(b.closer) - 1; i >= 0; i-- {
		b.closer[i]()
	}
}

func (b *builder) build() error {
	p := b.spec.Prefix
	var err error
	if err := b.claimMgmt(); err != nil {
		return err
	}
	mbr := mgmtBridge(p)
	if err := b.up(b.root, mbr); err != nil {
		return err
	}

	// Fabric namespace.
	if b.fabNS, err = b.newNetns(fabricNetns(p)); err != nil {
		return err
	}
	// Bridged frames need not pass through iptables in the fabric (where
	// no rules exist anyway); best effort, as br_netfilter may be absent.
	_ = doIn(b.fabNS, func() error {
		for _, f := range []string{"iptables", "ip6tables", "arptables"} {
			_ = writeSysctl("net/bridge/bridge-nf-call-"+f, "0")
		}
		return nil
	})
	if b.fab, err = netlink.NewHandleAt(b.fabNS); err != nil {
		return fmt.Errorf("shaping: netlink in fabric: %w", err)
	}
	b.closer = append(b.closer, b.fab.Close)
	if b.fabTc, err = openTcAt(b.fabNS); err != nil {
		return err
	}
	b.closer = append(b.closer, func() { b.fabTc.Close() })

	var rackBr []string
	if b.spec.Mode == Switched {
		if err := b.addBridge(coreBridge); err != nil {
			return err
		}
		for r := range b.spec.Racks {
			rackBr = append(rackBr, rackBridge(r))
			if err := b.addBridge(rackBridge(r)); err != nil {
				return err
			}
		}
	} else {
		if err := b.addBridge(flatBridge); err != nil {
			return err
		}
		for range b.spec.Racks {
			rackBr = append(rackBr, flatBridge)
		}
	}

	i := 0
	for r, rs := range b.spec.Racks {
		for h := 0; h < rs.Hosts; h++ {
			if err := b.addHost(r, h, i, rackBr[r]); err != nil {
				return err
			}
			i++
		}
		if b.spec.Mode == Switched {
			if err := b.addRackLink(r, rs); err != nil {
				return err
			}
		}
	}
	return b.waitUp(2 * time.Second)
}

// newNetns creates a namespace with IPv6 off and lo up.
func (b *builder) newNetns(name string) (netns.NsHandle, error) {
	h, err := newNamedNetns(name)
	if err != nil {
		return h, err
	}
	b.closer = append(b.closer, func() { h.Close() })
	err = doIn(h, func() error {
		for _, dev := range []string{"all", "default"} {
			if err := disableIPv6(dev); err != nil {
				return err
			}
		}
		lo, err := netlink.LinkByName("lo")
		if err != nil {
			return err
		}
		return netlink.LinkSetUp(lo)
	})
	if err != nil {
		return h, fmt.Errorf("shaping: set up netns %s: %w", name, err)
	}
	return h, nil
}

func (b *builder) addBridge(name string) error {
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: name, TxQLen: txQLen}}
	if err := b.fab.LinkAdd(br); err != nil {
		return fmt.Errorf("shaping: add bridge %s: %w", name, err)
	}
	return b.up(b.fab, name)
}

// addHost makes host namespace r/h (global index i) with its data veth to
// bridge br in the fabric and its management veth to the management bridge.
func (b *builder) addHost(r, h, i int, br string) error {
	p := b.spec.Prefix
	nsName := hostNetns(p, r, h)
	hns, err := b.newNetns(nsName)
	if err != nil {
		return err
	}
	hh, err := netlink.NewHandleAt(hns)
	if err != nil {
		return fmt.Errorf("shaping: netlink in %s: %w", nsName, err)
	}
	defer hh.Close()

	// Data: fabric end "r<R>h<H>" on br, host end DataDev.
	fabEnd := hostName(r, h)
	if err := b.fab.LinkAdd(&netlink.Veth{
		LinkAttrs: netlink.LinkAttrs{Name: fabEnd, TxQLen: txQLen},
		PeerName:  DataDev, PeerNamespace: netlink.NsFd(hns), PeerTxQLen: txQLen,
	}); err != nil {
		return fmt.Errorf("shaping: add data veth of %s: %w", nsName, err)
	}
	if err := b.attach(b.fab, fabEnd, br); err != nil {
		return err
	}
	if err := b.addAddr(hh, DataDev, dataIP(p, r, h), dataMask); err != nil {
		return err
	}
	if err := b.up(hh, DataDev); err != nil {
		return err
	}

	// Management: root end "<prefix>-r<R>h<H>" on the management bridge.
	rootEnd := nsName
	if err := b.root.LinkAdd(&netlink.Veth{
		LinkAttrs: netlink.LinkAttrs{Name: rootEnd, TxQLen: txQLen},
		PeerName:  MgmtDev, PeerNamespace: netlink.NsFd(hns), PeerTxQLen: txQLen,
	}); err != nil {
		return fmt.Errorf("shaping: add management veth of %s: %w", nsName, err)
	}
	if err := disableIPv6(rootEnd); err != nil {
		return err
	}
	if err := b.attach(b.root, rootEnd, mgmtBridge(p)); err != nil {
		return err
	}
	if err := b.addAddr(hh, MgmtDev, b.mgmt.hostIP(i), b.mgmt.mask()); err != nil {
		return err
	}
	if err := b.up(hh, MgmtDev); err != nil {
		return err
	}
	if nic := b.spec.HostNICBpsOf(r, h); nic > 0 {
		if err := b.shapeHostNIC(fabEnd, nic); err != nil {
			return fmt.Errorf("shaping: NIC of %s: %w", nsName, err)
		}
	}
	b.wait = append(b.wait, nsName)
	if buildFault != nil {
		return buildFault(nsName)
	}
	return nil
}

// shapeHostNIC shapes a host's NIC at rateBps, in the fabric, so that the
// host's own interface stays its worker's: egress of the fabric's port
// toward the host is what the host receives; what it sends enters that
// port and is redirected through an IFB device ("i" + the port's name)
// whose egress is shaped, then goes on into the bridge.
func (b *builder) shapeHostNIC(fabEnd string, rateBps float64) error {
	if err := b.shapeLink(fabEnd, rateBps, b.spec.Priorities); err != nil {
		return err
	}
	ifb := ifbName(fabEnd)
	if err := b.fab.LinkAdd(&netlink.Ifb{LinkAttrs: netlink.LinkAttrs{Name: ifb, TxQLen: txQLen}}); err != nil {
		return fmt.Errorf("shaping: add %s: %w", ifb, err)
	}
	if err := b.up(b.fab, ifb); err != nil {
		return err
	}
	if err := b.shapeLink(ifb, rateBps, b.spec.Priorities); err != nil {
		return err
	}
	port, err := b.fab.LinkByName(fabEnd)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", fabEnd, err)
	}
	l, err := b.fab.LinkByName(ifb)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", ifb, err)
	}
	return redirectIngress(b.fabTc, uint32(port.Attrs().Index), uint32(l.Attrs().Index))
}

// addRackLink makes// addRackLink makes the veth pair between rack r's bridge and the core
// bridge and shapes both directions.
func (b *builder) addRackLink(r int, rs RackSpec) error {
	up, down := rackUpDev(r), rackDownDev(r)
	if err := b.fab.LinkAdd(&netlink.Veth{
		LinkAttrs: netlink.LinkAttrs{Name: up, TxQLen: txQLen},
		PeerName:  down, PeerTxQLen: txQLen,
	}); err != nil {
		return fmt.Errorf("shaping: add rack link %d: %w", r, err)
	}
	if err := b.attach(b.fab, up, rackBridge(r)); err != nil {
		return err
	}
	if err := b.attach(b.fab, down, coreBridge); err != nil {
		return err
	}
	for _, l := range []struct {
		dev  string
		rate float64
	}{{up, rs.UplinkBps}, {down, rs.DownlinkBps}} {
		if err := b.shapeLink(l.dev, l.rate, b.spec.Priorities); err != nil {
			return err
		}
	}
	return nil
}

// shapeLink installs the HTB of a rack link end: one group at rateBps
// (unshaped but counted if 0) that carries all traffic, with per-priority
// leaves if prios.
func (b *builder) shapeLink(dev string, rateBps float64, prios bool) error {
	l, err := b.fab.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	return shapeLinkTc(b.fabTc, uint32(l.Attrs().Index), rateBps, prios)
}

func shapeLinkTc(t *tc.Tc, ifindex uint32, rateBps float64, prios bool) error {
	if rateBps == 0 {
		rateBps = UnshapedBps
	}
	m := rackMinor(0)
	if !prios {
		if err := installRoot(t, ifindex, m); err != nil {
			return err
		}
		return setGroup(t, ifindex, m, rateBps, false, true)
	}
	// The default class must be a leaf; a root filter sends everything to
	// the group, whose filters pick the leaf.
	if err := installRoot(t, ifindex, leafMinor(m, catchAll)); err != nil {
		return err
	}
	if err := setGroup(t, ifindex, m, rateBps, true, true); err != nil {
		return err
	}
	return addU32(t, ifindex, 0, 1, ethPAll, anyKey, m)
}
