package shaping

import (
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"sync"

	tc "github.com/florianl/go-tc"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// HostShaper shapes a host's traffic to other racks on its own data NIC:
// an HTB root qdisc (handle QdiscMajor:) with an unshaped default class for
// intra-rack, control and unclassified traffic, one class per destination
// rack (ceil = rate), and u32 filters on destination IPv4 addresses that send
// each rack's peers into its class.
//
// A HostShaper holds a netlink socket opened in the namespace it was made in;
// its methods keep working there whatever thread calls them. It is safe for
// concurrent use.
type HostShaper struct {
	mu      sync.Mutex
	dev     string
	ifindex uint32
	tc      *tc.Tc
	racks   map[int]*rackClass
	prios   bool
	// pooled: the rack classes hang under one host class (hostMinor)
	// that caps their sum, and borrow from it (SetPooled)
	pooled bool
	closed bool
	// ingress, for a receive-side shaper (NewIngressShaper): the device
	// whose ingress is redirected to dev, an IFB; rack filters then match
	// source addresses
	ingress *ingressOf
}

type rackClass struct {
	pref    uint16 // filter preference in use
	rateBps float64
	ceilBps float64
	peers   []net.IP
}

// hostMinor is the class that pools the rack classes of a pooled
// HostShaper (SetPooled).
const hostMinor = 0x2

// NewHostShaper installs a HostShaper on dev in the calling thread's network
// namespace. It replaces a root qdisc that racklab made (or the kernel's
// default one), and refuses to replace one that somebody else configured.
func NewHostShaper(dev string) (*HostShaper, error) {
	link, err := netlink.LinkByName(dev)
	if err != nil {
		return nil, fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	t, err := tc.Open(&tc.Config{})
	if err != nil {
		return nil, fmt.Errorf("shaping: open rtnetlink: %w", err)
	}
	s, err := newHostShaper(t, dev, uint32(link.Attrs().Index))
	if err != nil {
		t.Close()
		return nil, err
	}
	return s, nil
}

// NewHostShaperIn is NewHostShaper for dev in the named network namespace.
func NewHostShaperIn(netnsName, dev string) (*HostShaper, error) {
	return in(netnsName, func() (*HostShaper, error) { return NewHostShaper(dev) })
}

func newHostShaper(t *tc.Tc, dev string, ifindex uint32) (*HostShaper, error) {
	q, ok, err := rootQdisc(t, ifindex)
	if err != nil {
		return nil, err
	}
	if ok && !ours(q) && q.Handle != 0 {
		return nil, fmt.Errorf("shaping: %s has a root qdisc %s %x: not made by racklab; remove it first", dev, q.Kind, q.Handle>>16)
	}
	if err := installRoot(t, ifindex, defaultMinor); err != nil {
		return nil, err
	}
	if err := setClass(t, ifindex, classSpec{minor: defaultMinor, rate: UnshapedBps, ceil: UnshapedBps}); err != nil {
		_, _ = removeRoot(t, ifindex)
		return nil, err
	}
	return &HostShaper{dev: dev, ifindex: ifindex, tc: t, racks: make(map[int]*rackClass)}, nil
}

// Dev returns the device the shaper is on.
func (s *HostShaper) Dev() string { return s.dev }

// rackPrefs are the two filter preferences of a rack, used alternately so
// that a new filter set is in place before the old one is removed.
func rackPrefs(rack int) [2]uint16 {
	return [2]uint16{uint16(2*rack + 1), uint16(2*rack + 2)}
}

// SetRack creates or updates the class of destination rack (rate = ceil =
// rateBps bytes/s; 0 means unshaped but still counted) and replaces its
// filters so that exactly peers map to it. Peers must be IPv4 addresses.
// On a receive-side shaper (NewIngressShaper) the class is a source
// rack's and peers are its senders.
func (s *HostShaper) SetRack(rack int, rateBps float64, peers []net.IP) error {
	if err := checkRack(rack); err != nil {
		return err
	}
	if !(rateBps >= 0 && rateBps <= maxShapedBps) {
		// NaN, infinities and rates past a uint64 reached the kernel as 0
		return fmt.Errorf("shaping: rate %v for rack %d: must be in [0, %g] B/s", rateBps, rack, maxShapedBps)
	}
	for _, p := range peers {
		if p.To4() == nil {
			return fmt.Errorf("shaping: peer %v of rack %d is not an IPv4 address", p, rack)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	rate := limitOrUnshaped(rateBps)
	minor := rackMinor(rack)
	old := s.racks[rack]
	ceil := rate
	if old != nil && s.pooled {
		ceil = max(rate, limitOrUnshaped(old.ceilBps))
	}
	if err := setGroupUnder(s.tc, s.ifindex, s.parentMinor(), minor, rate, ceil, s.prios, old == nil); err != nil {
		return err
	}
	prefs := rackPrefs(rack)
	next := prefs[0]
	if old != nil && old.pref == prefs[0] {
		next = prefs[1]
	}
	// Clear the slot first in case an earlier update failed half-way.
	if err := deleteFilters(s.tc, s.ifindex, 0, next, ethPIP); err != nil {
		return err
	}
	key := dstKey
	if s.ingress != nil {
		key = srcKey
	}
	for _, p := range peers {
		if err := addU32(s.tc, s.ifindex, 0, next, ethPIP, key(p.To4()), minor); err != nil {
			_ = deleteFilters(s.tc, s.ifindex, 0, next, ethPIP)
			return err
		}
	}
	if old != nil {
		if err := deleteFilters(s.tc, s.ifindex, 0, old.pref, ethPIP); err != nil {
			return err
		}
	}
	s.racks[rack] = &rackClass{pref: next, rateBps: rateBps, ceilBps: ceil, peers: append([]net.IP(nil), peers...)}
	return nil
}

// parentMinor is the class the rack classes hang under (0: the root).
func (s *HostShaper) parentMinor() uint32 {
	if s.pooled {
		return hostMinor
	}
	return 0
}

// errClosed is what a closed HostShaper answers.
var errClosed = errors.New("shaping: HostShaper is closed")

// checkRack says whether rack is a rack index a class can have.
func checkRack(rack int) error {
	if rack < 0 || rack > maxRack {
		return fmt.Errorf("shaping: rack %d out of range 0..%d", rack, maxRack)
	}
	return nil
}

// limitOrUnshaped is a class's rate: bps, or unshaped (but counted) for 0.
func limitOrUnshaped(bps float64) float64 {
	if bps == 0 {
		return UnshapedBps
	}
	return bps
}

// SetPooled puts the rack classes under one host class, at first
// unshaped (SetHostRate), from which each may borrow beyond its own rate
// up to its ceil (SetRackRates): what one class leaves unused another can
// take, while together they stay within the host class's rate. It must be
// called before the first SetRack.
func (s *HostShaper) SetPooled(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if len(s.racks) > 0 && on != s.pooled {
		return errors.New("shaping: SetPooled after SetRack")
	}
	if on && !s.pooled {
		if err := setClass(s.tc, s.ifindex, classSpec{minor: hostMinor, rate: UnshapedBps, ceil: UnshapedBps}); err != nil {
			return err
		}
	}
	s.pooled = on
	return nil
}

// SetHostRate sets the rate (= ceil) of a pooled shaper's host class, the
// most its rack classes send together beyond their own rates; 0 means
// unshaped.
func (s *HostShaper) SetHostRate(rateBps float64) error {
	if rateBps < 0 || math.IsNaN(rateBps) || math.IsInf(rateBps, 0) {
		return fmt.Errorf("shaping: host rate %v: must be finite and not negative", rateBps)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if !s.pooled {
		return fmt.Errorf("shaping: host rate on %s: the shaper is not pooled", s.dev)
	}
	r := limitOrUnshaped(rateBps)
	return setClass(s.tc, s.ifindex, classSpec{minor: hostMinor, rate: r, ceil: r})
}

// SetRackRates sets the rate of a pooled shaper's rack class and the ceil
// up to which it may borrow from the host class (0: unshaped); on a shaper
// that is not pooled it is SetRackRate(rack, rateBps).
func (s *HostShaper) SetRackRates(rack int, rateBps, ceilBps float64) error {
	for _, v := range []float64{rateBps, ceilBps} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("shaping: rate %v for rack %d: must be finite and not negative", v, rack)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	rc := s.racks[rack]
	if rc == nil {
		return fmt.Errorf("shaping: rack %d has no class on %s", rack, s.dev)
	}
	if !s.pooled {
		ceilBps = rateBps
	}
	rate, ceil := limitOrUnshaped(rateBps), limitOrUnshaped(ceilBps)
	if err := setGroupUnder(s.tc, s.ifindex, s.parentMinor(), rackMinor(rack), rate, ceil, s.prios, false); err != nil {
		return err
	}
	rc.rateBps, rc.ceilBps = rateBps, max(rate, ceil)
	return nil
}

// SetRackRate changes the rate (= ceil) of destination rack's class,
// leaving its filters alone; 0 means unshaped. The class must exist
// (SetRack). It is SetRackRates with no borrowing.
func (s *HostShaper) SetRackRate(rack int, rateBps float64) error {
	return s.SetRackRates(rack, rateBps, rateBps)
}

// RemoveRack removes the class and filters of a destination rack; its
// traffic then goes to the default class.
func (s *HostShaper) RemoveRack(rack int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if err := checkRack(rack); err != nil {
		return err
	}
	for _, p := range rackPrefs(rack) {
		if err := deleteFilters(s.tc, s.ifindex, 0, p, ethPIP); err != nil {
			return err
		}
	}
	if err := deleteGroup(s.tc, s.ifindex, rackMinor(rack)); err != nil {
		return err
	}
	delete(s.racks, rack)
	return nil
}

// SetPriorities turns per-priority leaves (see Priority) on or off for the
// rack classes. It must be called before the first SetRack.
func (s *HostShaper) SetPriorities(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.racks) > 0 && on != s.prios {
		return errors.New("shaping: SetPriorities after SetRack")
	}
	s.prios = on
	return nil
}

// PriorityCounters returns the kernel's counters of each priority leaf of a
// rack's class (zero without priorities).
func (s *HostShaper) PriorityCounters(rack int) ([NumPriorities]ClassCounters, error) {
	all, err := s.AllPriorityCounters()
	return all[rack], err
}

// AllPriorityCounters returns PriorityCounters of every destination rack
// that has a class, from one read of the kernel's counters.
func (s *HostShaper) AllPriorityCounters() (map[int][NumPriorities]ClassCounters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	cs, err := classCounters(s.tc, s.ifindex)
	if err != nil {
		return nil, err
	}
	out := make(map[int][NumPriorities]ClassCounters, len(s.racks))
	for r := range s.racks {
		var leaves [NumPriorities]ClassCounters
		for p := range Priority(NumPriorities) {
			leaves[p] = cs[leafMinor(rackMinor(r), p)]
		}
		out[r] = leaves
	}
	return out, nil
}

// Racks returns the destination racks that have a class, in order.
func (s *HostShaper) Racks() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int, 0, len(s.racks))
	for r := range s.racks {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

// Counters returns the kernel's counters of every destination-rack class.
// With priorities, a class's Qlen and Backlog are its leaves' (where its
// packets wait).
func (s *HostShaper) Counters() (map[int]ClassCounters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	cs, err := classCounters(s.tc, s.ifindex)
	if err != nil {
		return nil, err
	}
	return rackCounters(cs), nil
}

// DefaultCounters returns the kernel's counters of the default (unshaped)
// class: intra-rack, control and unclassified traffic.
func (s *HostShaper) DefaultCounters() (ClassCounters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ClassCounters{}, errClosed
	}
	cs, err := classCounters(s.tc, s.ifindex)
	if err != nil {
		return ClassCounters{}, err
	}
	c, ok := cs[defaultMinor]
	if !ok {
		return ClassCounters{}, fmt.Errorf("shaping: default class missing on %s", s.dev)
	}
	return c, nil
}

func rackCounters(cs map[uint32]ClassCounters) map[int]ClassCounters {
	out := make(map[int]ClassCounters)
	for minor, c := range cs {
		if r := minorRack(minor); r >= 0 {
			cur := out[r]
			c.Qlen += cur.Qlen
			c.Backlog += cur.Backlog
			out[r] = c
		}
	}
	// an inner class queues nothing itself: add its leaves' queues
	for minor, c := range cs {
		if minor&0xf == 0 || minor < 0x10 {
			continue
		}
		r := minorRack(minor &^ 0xf)
		if cur, ok := out[r]; ok {
			cur.Qlen += c.Qlen
			cur.Backlog += c.Backlog
			out[r] = cur
		}
	}
	return out
}

// Close removes the root qdisc (with its classes and filters) and closes the
// netlink socket. It is idempotent.
func (s *HostShaper) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	_, err := removeRoot(s.tc, s.ifindex)
	if in := s.ingress; in != nil {
		_, ierr := removeIngress(in.nl, s.tc, in.dev, in.ifindex)
		in.nl.Close()
		err = errors.Join(err, ierr)
	}
	if cerr := s.tc.Close(); err == nil {
		err = cerr
	}
	return err
}

// RemoveHostShaper removes a root qdisc that racklab made from dev in the
// calling thread's namespace, and dev's receive-side shaping (see
// NewIngressShaper) if racklab made some: cleanup after a crashed worker.
// It reports whether there was either.
func RemoveHostShaper(dev string) (bool, error) {
	link, err := netlink.LinkByName(dev)
	if err != nil {
		return false, fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	t, err := tc.Open(&tc.Config{})
	if err != nil {
		return false, fmt.Errorf("shaping: open rtnetlink: %w", err)
	}
	defer t.Close()
	root, err := removeRoot(t, uint32(link.Attrs().Index))
	if err != nil {
		return root, err
	}
	rx, err := RemoveIngressShaper(dev)
	return root || rx, err
}

// openTcAt opens a tc socket in namespace h.
func openTcAt(h netns.NsHandle) (*tc.Tc, error) {
	t, err := tc.Open(&tc.Config{NetNS: int(h)})
	if err != nil {
		return nil, fmt.Errorf("shaping: open rtnetlink in netns: %w", err)
	}
	return t, nil
}

// Priorities reports whether the rack classes have priority leaves.
func (s *HostShaper) Priorities() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prios
}
