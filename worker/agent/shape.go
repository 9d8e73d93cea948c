package agent

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/members"
)

// shaper keeps one HTB class per other rack on the data NIC, each at the
// host's static share of the rack uplink, with u32 filters on the data
// addresses of that rack's workers as memberlist reports them.
type shaper struct {
	hs   *shaping.HostShaper
	rack string
	rate float64
	// index numbers the racks as the coordinator's topology does, so that
	// class n means rack n on every host; racks it does not name get
	// numbers after them, in order first seen.
	index map[string]int
	names []string
	// applied is the peer set the filters hold, to skip no-op updates.
	applied string
}

func newShaper(dev, rack string, rate float64, prios bool) (*shaper, error) {
	hs, err := shaping.NewHostShaper(dev)
	if err != nil {
		return nil, err
	}
	if err := hs.SetPriorities(prios); err != nil {
		return nil, errors.Join(err, hs.Close())
	}
	return &shaper{hs: hs, rack: rack, rate: rate, index: map[string]int{}}, nil
}

func (s *shaper) setRacks(racks []string) {
	for i, r := range racks {
		s.index[r] = i
	}
	s.names = append([]string(nil), racks...)
}

func (s *shaper) update(peers []members.Peer) error {
	var sig strings.Builder
	for _, p := range peers {
		fmt.Fprintf(&sig, "%s/%s/%s;", p.Name, p.Rack, p.DataAddr)
	}
	if sig.String() == s.applied {
		return nil
	}
	byRack := map[string][]net.IP{}
	for _, p := range peers {
		if p.Role != members.RoleWorker || p.Rack == s.rack {
			continue
		}
		if ip := p.DataIP(); ip != nil {
			byRack[p.Rack] = append(byRack[p.Rack], ip)
		}
	}
	racks := make([]string, 0, len(byRack))
	for r := range byRack {
		racks = append(racks, r)
	}
	for _, r := range s.names {
		if _, ok := byRack[r]; !ok && r != s.rack {
			racks = append(racks, r) // every peer of a known rack is gone: empty its filters
		}
	}
	sort.Strings(racks)
	for _, r := range racks {
		i, ok := s.index[r]
		if !ok {
			i = len(s.names)
			s.index[r] = i
			s.names = append(s.names, r)
		}
		if err := s.hs.SetRack(i, s.rate, byRack[r]); err != nil {
			return err
		}
	}
	s.applied = sig.String()
	return nil
}

func (s *shaper) counters() map[string]wire.Counter {
	cs, err := s.hs.Counters()
	if err != nil {
		return nil
	}
	out := make(map[string]wire.Counter, len(cs))
	for i, c := range cs {
		if i >= 0 && i < len(s.names) {
			out[s.names[i]] = wire.Counter{Bytes: c.Bytes, Packets: c.Packets}
		}
	}
	return out
}

func (s *shaper) close() error { return s.hs.Close() }
