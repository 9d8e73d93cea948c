package cluster

import (
	"fmt"
	"strings"
)

// TierKind names a storage tier. The order is fastest first, so a smaller
// kind is a better tier.
type TierKind uint8

const (
	Mem TierKind = iota
	SSD
	HDD
	numTierKinds
)

// NumTierKinds is the number of tier kinds, for arrays indexed by TierKind.
const NumTierKinds = int(numTierKinds)

var tierNames = [...]string{Mem: "mem", SSD: "ssd", HDD: "hdd"}

func (k TierKind) String() string {
	if int(k) < len(tierNames) {
		return tierNames[k]
	}
	return fmt.Sprintf("tier(%d)", k)
}

// ParseTierKind turns "mem", "ssd" or "hdd" into a TierKind.
func ParseTierKind(s string) (TierKind, error) {
	for i, n := range tierNames {
		if n == s {
			return TierKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tier kind %q (want mem, ssd or hdd)", s)
}

// HostID and RackID index Topology.Hosts and Topology.Racks.
type (
	HostID int32
	RackID int32
)

// Tier is one storage tier of a host. Rates are bytes per second.
type Tier struct {
	Kind          TierKind
	ReadBps       float64
	WriteBps      float64
	CapacityBytes int64
}

// Host is one worker machine.
type Host struct {
	ID    HostID
	Name  string
	Rack  RackID
	Slots int
	// ReduceSlots, when positive, are slots of the host's own for
	// reduce and generic tasks (Hadoop 1.x's separate pools; Shadow's 12
	// map / 3 reduce); Slots are then its map slots. 0: one pool.
	ReduceSlots int
	NICBps      float64 // full duplex: this rate in each direction
	Tiers       []Tier  // at most one per kind
}

// Tier returns the host's tier of the given kind and whether it has one.
func (h *Host) Tier(k TierKind) (Tier, bool) {
	for _, t := range h.Tiers {
		if t.Kind == k {
			return t, true
		}
	}
	return Tier{}, false
}

// Rack is a set of hosts behind one top-of-rack switch. Uplink carries
// traffic leaving the rack, downlink traffic entering it.
type Rack struct {
	ID          RackID
	Name        string
	Hosts       []HostID
	UplinkBps   float64
	DownlinkBps float64
}

// Topology is the whole cluster. CoreBps of 0 means a non-blocking core.
type Topology struct {
	Racks   []Rack
	Hosts   []Host
	CoreBps float64
}

// RackOf returns the rack of a host.
func (t *Topology) RackOf(h HostID) RackID { return t.Hosts[h].Rack }

// TotalSlots is the number of task slots in the cluster, of every pool.
func (t *Topology) TotalSlots() int {
	n := 0
	for i := range t.Hosts {
		n += t.Hosts[i].AllSlots()
	}
	return n
}

// AllSlots is the number of tasks the host runs at once: its one pool,
// or its map and reduce pools together.
func (h *Host) AllSlots() int { return h.Slots + h.ReduceSlots }

// SplitSlots reports whether the host has separate map and reduce pools.
func (h *Host) SplitSlots() bool { return h.ReduceSlots > 0 }

// HostByName finds a host by its name.
func (t *Topology) HostByName(name string) (HostID, bool) {
	for i := range t.Hosts {
		if t.Hosts[i].Name == name {
			return HostID(i), true
		}
	}
	return -1, false
}

// Validate checks the internal consistency of a topology built in code.
func (t *Topology) Validate() error {
	if len(t.Racks) == 0 {
		return fmt.Errorf("topology has no racks")
	}
	if len(t.Hosts) > MaxHosts {
		return fmt.Errorf("topology has %d hosts, above the limit of %d", len(t.Hosts), MaxHosts)
	}
	if t.CoreBps != 0 {
		if err := checkRate("core rate", t.CoreBps); err != nil {
			return fmt.Errorf("%w (0: no core limit)", err)
		}
	}
	// Each host is listed by exactly its own rack, and names are unique
	// and not blank, as the file format needs: WriteTopology writes hosts
	// rack by rack from the racks' lists, so a host no list has would be
	// dropped, and names are how the files refer to hosts.
	listed := make([]bool, len(t.Hosts))
	rackNames := make(map[string]bool, len(t.Racks))
	for i := range t.Racks {
		r := &t.Racks[i]
		if r.ID != RackID(i) {
			return fmt.Errorf("rack %q: id %d at index %d", r.Name, r.ID, i)
		}
		if strings.TrimSpace(r.Name) == "" {
			return fmt.Errorf("rack #%d needs a name (got %q)", i+1, r.Name)
		}
		if rackNames[r.Name] {
			return fmt.Errorf("rack name %q is used twice", r.Name)
		}
		rackNames[r.Name] = true
		if len(r.Hosts) == 0 {
			return fmt.Errorf("rack %q has no hosts", r.Name)
		}
		if err := checkRate("uplink rate", r.UplinkBps); err != nil {
			return fmt.Errorf("rack %q: %w", r.Name, err)
		}
		if err := checkRate("downlink rate", r.DownlinkBps); err != nil {
			return fmt.Errorf("rack %q: %w", r.Name, err)
		}
		for _, h := range r.Hosts {
			if h < 0 || int(h) >= len(t.Hosts) || t.Hosts[h].Rack != r.ID {
				return fmt.Errorf("rack %q lists host %d which is not in it", r.Name, h)
			}
			if listed[h] {
				return fmt.Errorf("rack %q lists host %q twice", r.Name, t.Hosts[h].Name)
			}
			listed[h] = true
		}
	}
	hostNames := make(map[string]bool, len(t.Hosts))
	for i := range t.Hosts {
		h := &t.Hosts[i]
		if h.ID != HostID(i) {
			return fmt.Errorf("host %q: id %d at index %d", h.Name, h.ID, i)
		}
		if h.Rack < 0 || int(h.Rack) >= len(t.Racks) {
			return fmt.Errorf("host %q: rack %d is not a rack of the topology (it has %d)", h.Name, h.Rack, len(t.Racks))
		}
		if !listed[i] {
			return fmt.Errorf("host %q is not in the host list of its rack %q", h.Name, t.Racks[h.Rack].Name)
		}
		if strings.TrimSpace(h.Name) == "" {
			return fmt.Errorf("host #%d needs a name (got %q)", i+1, h.Name)
		}
		if hostNames[h.Name] {
			return fmt.Errorf("host name %q is used twice", h.Name)
		}
		hostNames[h.Name] = true
		if h.Slots <= 0 || h.Slots > MaxSlots {
			return fmt.Errorf("host %q: slots must be between 1 and %d (got %d)", h.Name, MaxSlots, h.Slots)
		}
		if h.ReduceSlots < 0 || h.ReduceSlots > MaxSlots {
			return fmt.Errorf("host %q: reduce slots must be between 0 (one pool) and %d (got %d)", h.Name, MaxSlots, h.ReduceSlots)
		}
		if err := checkRate("nic rate", h.NICBps); err != nil {
			return fmt.Errorf("host %q: %w", h.Name, err)
		}
		if len(h.Tiers) == 0 {
			return fmt.Errorf("host %q has no storage tier", h.Name)
		}
		var seen [NumTierKinds]bool
		for _, tr := range h.Tiers {
			if int(tr.Kind) >= NumTierKinds {
				return fmt.Errorf("host %q: bad tier kind %d", h.Name, tr.Kind)
			}
			if seen[tr.Kind] {
				return fmt.Errorf("host %q: tier %s listed twice", h.Name, tr.Kind)
			}
			seen[tr.Kind] = true
			if err := checkRate("tier "+tr.Kind.String()+" read rate", tr.ReadBps); err != nil {
				return fmt.Errorf("host %q: %w", h.Name, err)
			}
			if err := checkRate("tier "+tr.Kind.String()+" write rate", tr.WriteBps); err != nil {
				return fmt.Errorf("host %q: %w", h.Name, err)
			}
			if tr.CapacityBytes < 0 || tr.CapacityBytes > MaxCapacityBytes {
				return fmt.Errorf("host %q: tier %s capacity %d is outside [0, 2^62] bytes", h.Name, tr.Kind, tr.CapacityBytes)
			}
		}
	}
	return nil
}

// UniformSpec describes a regular cluster: every rack alike, every host alike.
type UniformSpec struct {
	Racks        int
	HostsPerRack int
	Slots        int
	// ReduceSlots, when positive, gives every host a reduce pool of its
	// own and makes Slots its map slots (Host.ReduceSlots); 0: one pool.
	ReduceSlots int
	NICBps      float64
	Tiers       []Tier
	// Oversubscription is the ratio of a rack's host NIC capacity to its
	// uplink rate; 1 means full bisection.
	Oversubscription float64
}

// DefaultUniform is the one set of defaults of a uniform cluster, for the
// fields a topology file's uniform, a campaign's cluster or bench's cluster
// flags leave out: 2 slots per host in one pool, 1 Gbit/s NICs, 3:1 rack
// oversubscription and DefaultTiers. Its 3 racks × 3 hosts are the local
// emulator's cluster; files must give their size, and each command may
// default to its own.
func DefaultUniform() UniformSpec {
	return UniformSpec{Racks: 3, HostsPerRack: 3, Slots: 2, NICBps: 1e9 / 8, Tiers: DefaultTiers(), Oversubscription: 3}
}

// DefaultTiers is a commodity host: a little memory tier, an SSD and two HDDs.
func DefaultTiers() []Tier {
	const gib = 1 << 30
	return []Tier{
		{Kind: Mem, ReadBps: 4e9, WriteBps: 2e9, CapacityBytes: 16 * gib},
		{Kind: SSD, ReadBps: 500e6, WriteBps: 400e6, CapacityBytes: 512 * gib},
		{Kind: HDD, ReadBps: 200e6, WriteBps: 160e6, CapacityBytes: 8192 * gib},
	}
}

// Uniform builds a regular topology with hosts named r<rack>h<host>.
func Uniform(s UniformSpec) (*Topology, error) {
	if s.Racks <= 0 || s.HostsPerRack <= 0 {
		return nil, fmt.Errorf("uniform topology needs at least one rack and one host per rack (got %d×%d)", s.Racks, s.HostsPerRack)
	}
	if s.Racks > MaxHosts || s.HostsPerRack > MaxHosts || s.Racks*s.HostsPerRack > MaxHosts {
		return nil, fmt.Errorf("racks × hosts per rack must be at most %d (got %d × %d)", MaxHosts, s.Racks, s.HostsPerRack)
	}
	if s.Slots <= 0 || s.Slots > MaxSlots {
		return nil, fmt.Errorf("slots per host must be between 1 and %d (got %d)", MaxSlots, s.Slots)
	}
	if s.ReduceSlots < 0 || s.ReduceSlots > MaxSlots {
		return nil, fmt.Errorf("reduce slots per host must be between 0 (one pool) and %d (got %d)", MaxSlots, s.ReduceSlots)
	}
	if err := checkRate("nic rate", s.NICBps); err != nil {
		return nil, err
	}
	if !(s.Oversubscription > 0) {
		return nil, fmt.Errorf("oversubscription must be positive (got %g)", s.Oversubscription)
	}
	if err := checkRate("rack link rate (hosts per rack × nic rate / oversubscription)", float64(s.HostsPerRack)*s.NICBps/s.Oversubscription); err != nil {
		return nil, err
	}
	if s.Tiers == nil {
		s.Tiers = DefaultTiers()
	}
	t := &Topology{}
	link := float64(s.HostsPerRack) * s.NICBps / s.Oversubscription
	for r := 0; r < s.Racks; r++ {
		rack := Rack{ID: RackID(r), Name: fmt.Sprintf("r%d", r), UplinkBps: link, DownlinkBps: link}
		for h := 0; h < s.HostsPerRack; h++ {
			id := HostID(len(t.Hosts))
			t.Hosts = append(t.Hosts, Host{
				ID: id, Name: fmt.Sprintf("r%dh%d", r, h), Rack: rack.ID,
				Slots: s.Slots, ReduceSlots: s.ReduceSlots, NICBps: s.NICBps, Tiers: append([]Tier(nil), s.Tiers...),
			})
			rack.Hosts = append(rack.Hosts, id)
		}
		t.Racks = append(t.Racks, rack)
	}
	return t, t.Validate()
}
