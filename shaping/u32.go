package shaping

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"

	tc "github.com/florianl/go-tc"
	"github.com/florianl/go-tc/core"
	"golang.org/x/sys/unix"
)

// Kernel constants (include/uapi/linux/pkt_sched.h, pkt_cls.h, if_ether.h).
const (
	ethPIP            = 0x0800
	ethPAll           = 0x0003
	linklayerEthernet = 1
	u32Terminal       = 1
)

// htons returns v in network byte order as a native integer.
func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}

// filterInfo is tcm_info of a filter: preference and protocol.
func filterInfo(pref, proto uint16) uint32 { return uint32(pref)<<16 | uint32(htons(proto)) }

// be32 turns four bytes in network order into a u32 key's Mask or Val.
func be32(b0, b1, b2, b3 byte) uint32 { return binary.NativeEndian.Uint32([]byte{b0, b1, b2, b3}) }

// dstKey matches the IPv4 destination address (offset 16 of the IP header).
func dstKey(ip4 net.IP) tc.U32Key {
	return tc.U32Key{Mask: 0xffffffff, Val: binary.NativeEndian.Uint32(ip4), Off: 16}
}

// dscpKey matches the DSCP bits of the IPv4 TOS byte.
func dscpKey(dscp uint8) tc.U32Key {
	return tc.U32Key{Mask: be32(0, 0xfc, 0, 0), Val: be32(0, dscp<<2, 0, 0), Off: 0}
}

// anyKey matches every packet.
var anyKey = tc.U32Key{}

// addU32 adds a one-key u32 filter to the filter list of class parent (0:
// the root qdisc) at preference pref for protocol proto, sending matches to
// class minor.
func addU32(t *tc.Tc, ifindex, parent uint32, pref, proto uint16, key tc.U32Key, minor uint32) error {
	classid := handle(minor)
	f := tc.Object{
		Msg: tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Parent: handle(parent), Info: filterInfo(pref, proto)},
		Attribute: tc.Attribute{Kind: "u32", U32: &tc.U32{
			ClassID: &classid,
			Sel:     &tc.U32Sel{Flags: u32Terminal, NKeys: 1, Keys: []tc.U32Key{key}},
		}},
	}
	if err := t.Filter().Add(&f); err != nil {
		return fmt.Errorf("shaping: add u32 filter (pref %d, key %+v) -> %x:%x: %w", pref, key, QdiscMajor, minor, err)
	}
	return nil
}

// deleteFilters removes every filter at preference pref of class parent's
// filter list; none is not an error.
func deleteFilters(t *tc.Tc, ifindex, parent uint32, pref, proto uint16) error {
	f := tc.Object{
		Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Parent: handle(parent), Info: filterInfo(pref, proto)},
		Attribute: tc.Attribute{Kind: "u32"},
	}
	if err := t.Filter().Delete(&f); err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("shaping: delete filters at %x:%x pref %d: %w", QdiscMajor, parent, pref, err)
	}
	return nil
}

// Actions of a mirred redirect (include/uapi/linux/pkt_cls.h, tc_mirred.h).
const (
	tcActStolen    = 4
	tcaEgressRedir = 1
	ingressMajor   = 0xffff
)

// redirectIngress sends every packet arriving on ifindex through the
// egress of device to (an IFB, which hands it back to ifindex's ingress
// path afterwards): an ingress qdisc with one u32 filter and a mirred
// action.
func redirectIngress(t *tc.Tc, ifindex, to uint32) error {
	q := tc.Object{
		Msg:       tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Handle: core.BuildHandle(ingressMajor, 0), Parent: tc.HandleIngress},
		Attribute: tc.Attribute{Kind: "ingress"},
	}
	if err := t.Qdisc().Add(&q); err != nil {
		return fmt.Errorf("shaping: add ingress qdisc on ifindex %d: %w", ifindex, err)
	}
	classid := uint32(0)
	actions := []*tc.Action{{Kind: "mirred", Mirred: &tc.Mirred{Parms: &tc.MirredParam{Action: tcActStolen, Eaction: tcaEgressRedir, IfIndex: to}}}}
	f := tc.Object{
		Msg: tc.Msg{Family: unix.AF_UNSPEC, Ifindex: ifindex, Parent: core.BuildHandle(ingressMajor, 0), Info: filterInfo(1, ethPAll)},
		Attribute: tc.Attribute{Kind: "u32", U32: &tc.U32{
			ClassID: &classid,
			Sel:     &tc.U32Sel{Flags: u32Terminal, NKeys: 1, Keys: []tc.U32Key{anyKey}},
			Actions: &actions,
		}},
	}
	if err := t.Filter().Add(&f); err != nil {
		return fmt.Errorf("shaping: redirect ingress of ifindex %d to %d: %w", ifindex, to, err)
	}
	return nil
}
