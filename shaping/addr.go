package shaping

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net"

	"github.com/vishvananda/netlink"
)

// The management network uses one /20 of 198.18.0.0/15 (RFC 2544
// benchmarking addresses): 32 blocks of 4096 addresses.
const (
	mgmtBase      = 198<<24 | 18<<16
	mgmtBlockBits = 12
	mgmtBlockSize = 1 << mgmtBlockBits
	mgmtBlocks    = 1 << (32 - 15 - mgmtBlockBits)
)

func prefixHash(prefix string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(prefix))
	return h.Sum32()
}

// dataOctet is X in the data subnet 10.X.0.0/16 of a cluster.
func dataOctet(prefix string) byte { return byte(64 + prefixHash(prefix)%128) }

// dataIP returns 10.X.R.(H+1).
func dataIP(prefix string, r, h int) net.IP {
	return net.IPv4(10, dataOctet(prefix), byte(r), byte(h+1)).To4()
}

var dataMask = net.CIDRMask(16, 32)

func u32IP(v uint32) net.IP {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, v)
	return ip
}

// mgmtPlan is the management subnet of a cluster: the bridge has .1 of the
// block, host i (rack-major index) has base+2+i.
type mgmtPlan struct{ base uint32 }

func (p mgmtPlan) bridgeIP() net.IP    { return u32IP(p.base + 1) }
func (p mgmtPlan) hostIP(i int) net.IP { return u32IP(p.base + 2 + uint32(i)) }
func (p mgmtPlan) mask() net.IPMask    { return net.CIDRMask(32-mgmtBlockBits, 32) }
func (p mgmtPlan) net() *net.IPNet     { return &net.IPNet{IP: u32IP(p.base), Mask: p.mask()} }

// chooseMgmt picks the first /20 block, starting from one derived from the
// prefix, that overlaps no IPv4 address or (non-default) route of the root
// namespace.
func chooseMgmt(h *netlink.Handle, prefix string) (mgmtPlan, error) {
	var used []*net.IPNet
	addrs, err := h.AddrList(nil, netlink.FAMILY_V4)
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		return mgmtPlan{}, fmt.Errorf("shaping: list addresses: %w", err)
	}
	for _, a := range addrs {
		used = append(used, a.IPNet)
	}
	routes, err := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: 0}, netlink.RT_FILTER_TABLE)
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		return mgmtPlan{}, fmt.Errorf("shaping: list routes: %w", err)
	}
	for _, r := range routes {
		if r.Dst != nil {
			if ones, _ := r.Dst.Mask.Size(); ones > 0 {
				used = append(used, r.Dst)
			}
		}
	}
	start := prefixHash(prefix) % mgmtBlocks
	for i := uint32(0); i < mgmtBlocks; i++ {
		p := mgmtPlan{base: mgmtBase + ((start+i)%mgmtBlocks)<<mgmtBlockBits}
		n := p.net()
		free := true
		for _, u := range used {
			if u != nil && (n.Contains(u.IP) || u.Contains(n.IP)) {
				free = false
				break
			}
		}
		if free {
			return p, nil
		}
	}
	return mgmtPlan{}, errors.New("shaping: no free management subnet in 198.18.0.0/15")
}
