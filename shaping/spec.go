package shaping

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/racklab/racklab/coordinator/cluster"
)

// RackSpec describes one rack.
type RackSpec struct {
	Hosts       int
	UplinkBps   float64 // bytes per second, rack -> core; 0 = unshaped
	DownlinkBps float64 // bytes per second, core -> rack; 0 = unshaped
	// HostNICBps is the NIC rate of this rack's hosts, bytes per second
	// in each direction; 0 = ClusterSpec.HostNICBps.
	HostNICBps float64
	// HostNICsBps, when set, is each host's own NIC rate (Hosts of them;
	// 0 = HostNICBps): a rack's hosts need not have one NIC.
	HostNICsBps []float64
}

// ClusterSpec describes an emulated cluster.
type ClusterSpec struct {
	// Prefix names every object made for the cluster, e.g. "rl" or
	// "rlt123": 1 to 6 characters of [a-z0-9].
	Prefix string
	Mode   Mode
	Racks  []RackSpec
	// HostNICBps is bytes/s per host NIC in each direction, for racks
	// that do not give their own; 0 = unshaped. A NIC is shaped in the
	// fabric, never on the host's own interface (its worker's): on the
	// egress of the fabric's port toward the host (what the host
	// receives), and on an IFB device its ingress is redirected through
	// (what the host sends).
	HostNICBps float64
	// Priorities gives each shaped rack link end and each shaped host NIC
	// one HTB leaf per Priority, selected by DSCP (in Flat mode the
	// workers' own shapers take HostShaper.SetPriorities).
	Priorities bool
}

// Limits of the addressing plan (10.X.R.(H+1) and one /20 of management
// addresses).
const (
	MaxRacks        = 256
	MaxHostsPerRack = 254
	maxHosts        = mgmtBlockSize - 3
)

var prefixRE = regexp.MustCompile(`^[a-z0-9]{1,6}$`)

// Validate checks the spec against the naming and addressing limits.
func (s ClusterSpec) Validate() error {
	if !prefixRE.MatchString(s.Prefix) {
		return fmt.Errorf("shaping: prefix %q must be 1-6 characters of [a-z0-9]", s.Prefix)
	}
	if s.Mode != Switched && s.Mode != Flat {
		return fmt.Errorf("shaping: invalid mode %d", int(s.Mode))
	}
	if len(s.Racks) == 0 {
		return errors.New("shaping: a cluster needs at least one rack")
	}
	if len(s.Racks) > MaxRacks {
		return fmt.Errorf("shaping: %d racks, at most %d", len(s.Racks), MaxRacks)
	}
	total := 0
	for r, rs := range s.Racks {
		if rs.Hosts < 1 || rs.Hosts > MaxHostsPerRack {
			return fmt.Errorf("shaping: rack %d has %d hosts, want 1..%d", r, rs.Hosts, MaxHostsPerRack)
		}
		for _, x := range []struct {
			name string
			bps  float64
		}{{"uplink", rs.UplinkBps}, {"downlink", rs.DownlinkBps}, {"host NIC", rs.HostNICBps}} {
			if err := checkRate(x.bps); err != nil {
				return fmt.Errorf("shaping: rack %d %s: %w", r, x.name, err)
			}
		}
		if rs.HostNICsBps != nil && len(rs.HostNICsBps) != rs.Hosts {
			return fmt.Errorf("shaping: rack %d gives %d host NIC rates for %d hosts", r, len(rs.HostNICsBps), rs.Hosts)
		}
		for h, bps := range rs.HostNICsBps {
			if err := checkRate(bps); err != nil {
				return fmt.Errorf("shaping: rack %d host %d NIC: %w", r, h, err)
			}
		}
		total += rs.Hosts
	}
	if total > maxHosts {
		return fmt.Errorf("shaping: %d hosts, at most %d", total, maxHosts)
	}
	if err := checkRate(s.HostNICBps); err != nil {
		return fmt.Errorf("shaping: HostNICBps: %w", err)
	}
	return nil
}

// MinShapedBps is the lowest rate a link is shaped at, bytes per second.
// HTB charges a packet at most its class's buffer of tokens (60 s of the
// rate), so below a full frame a minute the kernel lets more through than
// the rate (24 B/s measured at 1 B/s).
const MinShapedBps = 100

// maxShapedBps is the highest rate HTB's 64-bit rate field is given: the
// fastest a topology may describe, well within a uint64.
const maxShapedBps = cluster.MaxRateBps

// checkRate refuses a rate the kernel would not hold: not a number,
// negative, below MinShapedBps or above maxShapedBps. 0 is unshaped.
func checkRate(bps float64) error {
	switch {
	case bps == 0:
		return nil
	case !(bps >= MinShapedBps && bps <= maxShapedBps):
		return fmt.Errorf("rate %g B/s is outside [%d, %g] (0: unshaped)", bps, MinShapedBps, maxShapedBps)
	}
	return nil
}

// HostNICBpsOf is the NIC rate of host h of rack r (0: unshaped): its own,
// else its rack's, else the cluster's.
func (s ClusterSpec) HostNICBpsOf(r, h int) float64 {
	rs := s.Racks[r]
	if h < len(rs.HostNICsBps) && rs.HostNICsBps[h] > 0 {
		return rs.HostNICsBps[h]
	}
	if rs.HostNICBps > 0 {
		return rs.HostNICBps
	}
	return s.HostNICBps
}

// Interface names inside a host namespace.
const (
	DataDev = "data0"
	MgmtDev = "mgmt0"
)

// Names in the fabric namespace (which is private to one cluster).
const (
	coreBridge = "br-core"
	flatBridge = "br-flat"
)

func hostName(r, h int) string         { return fmt.Sprintf("r%dh%d", r, h) }
func rackBridge(r int) string          { return fmt.Sprintf("br-r%d", r) }
func rackUpDev(r int) string           { return fmt.Sprintf("r%d-up", r) }
func rackDownDev(r int) string         { return fmt.Sprintf("r%d-down", r) }
func ifbName(port string) string       { return "i" + port }
func fabricNetns(prefix string) string { return prefix + "-core" }
func mgmtBridge(prefix string) string  { return prefix + "-mgmt" }

// hostNetns is also the name of the host's management veth end in the root
// namespace.
func hostNetns(prefix string, r, h int) string { return prefix + "-" + hostName(r, h) }

var ownedNameRE = regexp.MustCompile(`^([a-z0-9]{1,6})-(core|mgmt|r[0-9]+h[0-9]+)$`)

// owned reports whether name is a namespace or root-namespace link that a
// cluster with this prefix makes.
func owned(prefix, name string) bool {
	m := ownedNameRE.FindStringSubmatch(name)
	return m != nil && m[1] == prefix
}
