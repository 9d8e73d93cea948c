package shaping

import (
	"errors"
	"fmt"
	"math"

	tc "github.com/florianl/go-tc"
	"github.com/florianl/go-tc/core"
	"golang.org/x/sys/unix"
)

// QdiscMajor is the handle major of every root qdisc this package makes
// ("7ac:" in tc's notation); it is how racklab recognises its own qdiscs.
const QdiscMajor = 0x7ac

// Class minors under the root qdisc: the default (unshaped) class of a
// HostShaper, and one class per destination rack (rack r has (r+1)<<4; the
// low four bits are reserved for per-priority leaves). A rack link's single
// class is the class of "rack 0".
const (
	defaultMinor = 0x1
	maxRack      = 0xffe
)

func rackMinor(r int) uint32 { return uint32(r+1) << 4 }

// minorRack maps a class minor back to a rack, or -1.
func minorRack(minor uint32) int {
	if minor&0xf != 0 || minor < 0x10 {
		return -1
	}
	return int(minor>>4) - 1
}

// UnshapedBps is the rate of a class that is meant not to shape: 1 Tbit/s.
const UnshapedBps = 125e9

// HTB tuning. veth and modern NICs carry GSO super-packets of up to 64 KiB,
// so a class's quantum is one such packet plus headers. Its burst is
// burstTime worth of its rate, and at least two such packets. HTB lets a
// class go into token debt for a large packet and pays it back, so the burst
// does not set long-run accuracy; what it does is bridge the gaps when the
// class's queue runs dry or its timer fires late (softirq latency on a busy
// host, a sender's pacing), which otherwise are lost for good: with 2 ms a
// single TCP stream got 92-93% of a 1 Gbit/s link on a 2-core VM, with
// 10 ms it gets the 95.6% that headers allow. The cost is that a link idle
// for 10 ms may send 10 ms worth of bytes back to back.
const (
	htbQuantum = 64<<10 + 2048
	minBurst   = 2 * (64<<10 + 2048)
	burstTime  = 0.010 // seconds
	// psched ticks are 64 ns (PSCHED_SHIFT = 6).
	nsPerTick = 64
)

func burstBytes(rate float64) float64 { return math.Max(minBurst, rate*burstTime) }

// htbClassOpts returns HTB class options; burst follows rate, cburst ceil.
func htbClassOpts(rateBps, ceilBps float64, prio uint32) *tc.Htb {
	rate, rbuf := rateAndBuffer(rateBps)
	ceil, cbuf := rateAndBuffer(ceilBps)
	h := &tc.Htb{Parms: &tc.HtbOpt{
		Rate:    tc.RateSpec{Linklayer: linklayerEthernet, Rate: uint32(min(rate, math.MaxUint32))},
		Ceil:    tc.RateSpec{Linklayer: linklayerEthernet, Rate: uint32(min(ceil, math.MaxUint32))},
		Buffer:  rbuf,
		Cbuffer: cbuf,
		Quantum: htbQuantum,
		Prio:    prio,
	}}
	if rate > math.MaxUint32 || ceil > math.MaxUint32 {
		h.Rate64, h.Ceil64 = &rate, &ceil
	}
	return h
}

// rateAndBuffer returns a rate in bytes/s and its burst in psched ticks.
func rateAndBuffer(bps float64) (uint64, uint32) {
	// the callers check their rates; a NaN or a rate past a uint64 must
	// still not reach the kernel as 0 (unlimited, and shown as 0bit)
	if !(bps <= maxShapedBps) {
		bps = maxShapedBps
	}
	r := uint64(max(bps, 1))
	ticks := burstBytes(float64(r)) / float64(r) * 1e9 / nsPerTick
	return r, uint32(math.Min(ticks, math.MaxUint32))
}

// installRoot replaces the root qdisc of ifindex with an HTB whose default
// class has minor defcls. A root qdisc of ours is deleted first (HTB cannot
// be changed in place); any other is replaced.
func installRoot(t *tc.Tc, ifindex uint32, defcls uint32) error {
	if _, err := removeRoot(t, ifindex); err != nil {
		return err
	}
	dq := uint32(1000)
	q := tc.Object{
		Msg: tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: core.BuildHandle(QdiscMajor, 0), Parent: tc.HandleRoot},
		Attribute: tc.Attribute{Kind: "htb", Htb: &tc.Htb{
			Init:       &tc.HtbGlob{Version: 3, Rate2Quantum: 10, Defcls: defcls},
			DirectQlen: &dq,
		}},
	}
	if err := t.Qdisc().Replace(&q); err != nil {
		return fmt.Errorf("shaping: install htb on ifindex %d: %w", ifindex, err)
	}
	return nil
}

// rootQdisc returns the root qdisc of ifindex (ok=false if none is listed).
func rootQdisc(t *tc.Tc, ifindex uint32) (tc.Object, bool, error) {
	qs, err := t.Qdisc().Get()
	if err != nil {
		return tc.Object{}, false, fmt.Errorf("shaping: list qdiscs: %w", err)
	}
	for _, q := range qs {
		if q.Ifindex == ifindex && q.Parent == tc.HandleRoot {
			return q, true, nil
		}
	}
	return tc.Object{}, false, nil
}

// ours reports whether q is a root qdisc this package made.
func ours(q tc.Object) bool {
	maj, _ := core.SplitHandle(q.Handle)
	return q.Kind == "htb" && maj == QdiscMajor
}

// removeRoot deletes the root qdisc of ifindex if this package made it.
func removeRoot(t *tc.Tc, ifindex uint32) (bool, error) {
	q, ok, err := rootQdisc(t, ifindex)
	if err != nil || !ok || !ours(q) {
		return false, err
	}
	del := tc.Object{
		Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: q.Handle, Parent: tc.HandleRoot},
		Attribute: tc.Attribute{Kind: "htb", Htb: &tc.Htb{}},
	}
	if err := t.Qdisc().Delete(&del); err != nil && !errors.Is(err, unix.ENOENT) {
		return false, fmt.Errorf("shaping: delete root qdisc: %w", err)
	}
	return true, nil
}

// classSpec is one HTB class under our root qdisc. A parent minor of 0 is
// the root qdisc itself.
type classSpec struct {
	parent, minor uint32
	rate, ceil    float64
	prio          uint32
}

func handle(minor uint32) uint32 { return core.BuildHandle(QdiscMajor, minor) }

// setClass creates or changes a class.
func setClass(t *tc.Tc, ifindex uint32, c classSpec) error {
	o := tc.Object{
		Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: handle(c.minor), Parent: handle(c.parent)},
		Attribute: tc.Attribute{Kind: "htb", Htb: htbClassOpts(c.rate, c.ceil, c.prio)},
	}
	if err := t.Class().Replace(&o); err != nil {
		return fmt.Errorf("shaping: set class %x:%x: %w", QdiscMajor, c.minor, err)
	}
	return nil
}

// deleteClass removes a class; a missing one is not an error.
func deleteClass(t *tc.Tc, ifindex, parent, minor uint32) error {
	o := tc.Object{Msg: tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: handle(minor), Parent: handle(parent)}}
	if err := t.Class().Delete(&o); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("shaping: delete class %x:%x: %w", QdiscMajor, minor, err)
	}
	return nil
}

// ClassCounters are the kernel's counters of an HTB class. Bytes count every
// segment of a GSO packet with its headers; Packets count segments.
type ClassCounters struct {
	Bytes, Packets uint64
	// Qlen and Backlog are the class's queue when read (packets and
	// bytes waiting in its leaf qdisc): a class with a backlog wanted
	// more than it was given.
	Qlen, Backlog uint32
}

// classCounters reads the counters of every class under our root qdisc on
// ifindex, by minor.
func classCounters(t *tc.Tc, ifindex uint32) (map[uint32]ClassCounters, error) {
	cs, err := t.Class().Get(&tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex})
	if err != nil {
		return nil, fmt.Errorf("shaping: list classes: %w", err)
	}
	out := make(map[uint32]ClassCounters)
	for _, c := range cs {
		maj, min := core.SplitHandle(c.Handle)
		if c.Ifindex != ifindex || maj != QdiscMajor || c.Stats == nil {
			continue
		}
		out[min] = ClassCounters{Bytes: c.Stats.Bytes, Packets: uint64(c.Stats.Packets), Qlen: c.Stats.Qlen, Backlog: c.Stats.Backlog}
	}
	return out, nil
}
