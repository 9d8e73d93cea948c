package shaping

import (
	"fmt"
	"syscall"

	tc "github.com/florianl/go-tc"
	"github.com/racklab/racklab/internal/traffic"
	"golang.org/x/sys/unix"
)

// Priority is a band of data traffic on a shaped link or rack class, from
// the priority table of internal/traffic; 0 is the highest. A shaped group
// with priorities has one HTB leaf per band (HTB prio = Priority), chosen
// by the packet's DSCP: the leaves share the group's rate, and a higher
// priority borrows it first. Each leaf is guaranteed leafShare of the
// group's rate, so no priority starves. Unmarked packets, and packets
// whose DSCP is not in the table, go to the best-effort leaf.
type Priority = traffic.Band

// NumPriorities is the number of priorities (leaves of a group).
const NumPriorities = traffic.NumBands

// catchAll is the leaf of packets no DSCP filter matches.
const catchAll = traffic.BandBestEffort

const (
	leafShare      = 0.01  // of the group's rate, guaranteed to each leaf
	priorityFilter = 1     // filter preference of the highest leaf's DSCP filter
	catchAllPref   = 0x100 // filter preference of the catch-all filter
)

// PriorityOfDSCP returns the priority a DSCP codepoint selects.
func PriorityOfDSCP(dscp uint8) Priority { return traffic.BandOfDSCP(dscp) }

// SetPriority marks an IPv4 socket's traffic with p's DSCP. It may be called
// while the connection carries data: the next packets are classified anew.
func SetPriority(conn syscall.Conn, p Priority) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, int(p.DSCP())<<2)
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shaping: set DSCP: %w", err)
	}
	return nil
}

func leafMinor(group uint32, p Priority) uint32 { return group | uint32(p+1) }

// setGroup creates or updates the classes of a shaped group at minor m under
// the root qdisc: one class at rateBps and, with prios, one leaf per
// Priority under it. fresh says the group is new, so its DSCP filters must
// be added.
func setGroup(t *tc.Tc, ifindex, m uint32, rateBps float64, prios, fresh bool) error {
	return setGroupUnder(t, ifindex, 0, m, rateBps, rateBps, prios, fresh)
}

// setGroupUnder is setGroup for a group under class parent (0: the root
// qdisc) that is guaranteed rateBps and may borrow up to ceilBps from it.
func setGroupUnder(t *tc.Tc, ifindex, parent, m uint32, rateBps, ceilBps float64, prios, fresh bool) error {
	cs := groupClasses(m, rateBps, prios)
	cs[0].parent, cs[0].ceil = parent, max(ceilBps, rateBps)
	for i := range cs[1:] {
		cs[1+i].ceil = cs[0].ceil
	}
	for _, c := range cs {
		if err := setClass(t, ifindex, c); err != nil {
			return err
		}
	}
	if !prios || !fresh {
		return nil
	}
	for _, f := range groupFilters(m) {
		if err := addU32(t, ifindex, m, f.pref, f.proto, f.key, f.minor); err != nil {
			return err
		}
	}
	return nil
}

// groupClasses are the HTB classes of a group at minor m: the group at
// rateBps and, with prios, one leaf per Priority under it, guaranteed
// leafShare of the rate, allowed all of it, and served in the band's
// order (HTB prio: a smaller one borrows the group's spare rate first).
func groupClasses(m uint32, rateBps float64, prios bool) []classSpec {
	out := []classSpec{{minor: m, rate: rateBps, ceil: rateBps}}
	if !prios {
		return out
	}
	for p := range Priority(NumPriorities) {
		out = append(out, classSpec{parent: m, minor: leafMinor(m, p), rate: rateBps * leafShare, ceil: rateBps, prio: uint32(p)})
	}
	return out
}

// filterSpec is one u32 filter of a group's filter list.
type filterSpec struct {
	pref, proto uint16
	key         tc.U32Key
	minor       uint32
}

// groupFilters send a group's packets to its leaves: one filter per
// codepoint of the priority table, on the IPv4 TOS byte, and a catch-all
// (last) into the best-effort leaf.
func groupFilters(m uint32) []filterSpec {
	var out []filterSpec
	for p := range Priority(NumPriorities) {
		if p == catchAll {
			continue // the catch-all below
		}
		out = append(out, filterSpec{pref: priorityFilter + uint16(p), proto: ethPIP, key: dscpKey(p.DSCP()), minor: leafMinor(m, p)})
	}
	return append(out, filterSpec{pref: catchAllPref, proto: ethPAll, key: anyKey, minor: leafMinor(m, catchAll)})
}

// deleteGroup removes a group's filters and classes.
func deleteGroup(t *tc.Tc, ifindex, m uint32) error {
	for p := range Priority(NumPriorities) {
		if err := deleteFilters(t, ifindex, m, priorityFilter+uint16(p), ethPIP); err != nil {
			return err
		}
	}
	if err := deleteFilters(t, ifindex, m, catchAllPref, ethPAll); err != nil {
		return err
	}
	for p := range Priority(NumPriorities) {
		if err := deleteClass(t, ifindex, m, leafMinor(m, p)); err != nil {
			return err
		}
	}
	return deleteClass(t, ifindex, 0, m)
}

// LeafGuarantee is the rate each priority leaf of a group of rate
// groupBps is guaranteed: a lower priority never gets less while it
// sends, whatever the higher ones send.
func LeafGuarantee(groupBps float64) float64 { return groupBps * leafShare }
