package share

import (
	"fmt"
	"math"
)

// Backlogged is the demand of a flow that wants as much as it can get
// (+Inf).
var Backlogged = math.Inf(1)

// Floors. Every flow gets, before filling, FloorFraction of the smallest
// limited link it crosses, so that a host that has not been sending can
// start at once. With many flows through a link the floors together would
// take much of it, so each link's floor is capped at FloorTotal of it split
// among its flows: floor = capacity × min(FloorFraction, FloorTotal/flows).
const (
	FloorFraction = 0.01
	FloorTotal    = 0.10
)

// Rack is a rack's links, in bytes per second; 0 means not limited.
type Rack struct {
	UplinkBps, DownlinkBps float64
}

// Host is one host: its rack, its NIC's sending rate (0: not limited), and
// its demand toward each rack in bytes per second, indexed by rack
// (missing entries and its own rack's are ignored; Backlogged: as much as
// it can get).
type Host struct {
	Rack   int
	NICBps float64
	Demand []float64
}

// Input is everyone's demand and the racks' links.
type Input struct {
	Racks []Rack
	Hosts []Host
	// Spare, if set, hands out what the flows' demands leave of the
	// links, max-min fair again, among the flows that want something:
	// a demand measured over the last interval lags a sender that speeds
	// up, and a switch's links are there for whoever sends.
	Spare bool
}

// Compute returns the rate of every host toward every rack, out[h][d] in
// bytes per second: a max-min fair share, by progressive filling, of the
// host's rack uplink, rack d's downlink and the host's NIC, at least the
// flow's floor, never above what the links allow. A host's rate toward its
// own rack is 0 (that traffic is not shaped). A flow that crosses no
// limited link gets +Inf: it is not to be shaped.
func Compute(in Input) ([][]float64, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	nr, nh := len(in.Racks), len(in.Hosts)
	// resources: uplink of rack r at r, downlink of rack r at nr+r, NIC of
	// host h at 2nr+h; capacity +Inf when not limited
	capacity := make([]float64, 2*nr+nh)
	for r, rk := range in.Racks {
		capacity[r], capacity[nr+r] = limit(rk.UplinkBps), limit(rk.DownlinkBps)
	}
	for h, hs := range in.Hosts {
		capacity[2*nr+h] = limit(hs.NICBps)
	}
	type flow struct {
		h, d   int
		res    [3]int
		want   float64 // demand above the floor
		floor  float64
		filled float64
		active bool
	}
	var flows []flow
	users := make([]int, len(capacity))
	for h, hs := range in.Hosts {
		for d := range nr {
			if d == hs.Rack {
				continue
			}
			f := flow{h: h, d: d, res: [3]int{hs.Rack, nr + d, 2*nr + h}}
			if d < len(hs.Demand) {
				f.want = hs.Demand[d]
			}
			for _, r := range f.res {
				users[r]++
			}
			flows = append(flows, f)
		}
	}
	remaining := append([]float64(nil), capacity...)
	for i := range flows {
		f := &flows[i]
		f.floor = math.Inf(1)
		for _, r := range f.res {
			if !math.IsInf(capacity[r], 1) {
				f.floor = min(f.floor, capacity[r]*min(FloorFraction, FloorTotal/float64(users[r])))
			}
		}
		if math.IsInf(f.floor, 1) {
			continue // crosses no limited link
		}
		for _, r := range f.res {
			remaining[r] -= f.floor
		}
		f.want = max(0, f.want-f.floor)
		f.active = f.want > 0
	}
	// progressive filling: raise every active flow by the same amount
	// until a flow meets its demand or a link fills; freeze those; repeat.
	// Each round freezes at least one flow, so it ends.
	active := make([]int, len(capacity))
	spare := in.Spare
	for {
		clear(active)
		n := 0
		for _, f := range flows {
			if f.active {
				n++
				for _, r := range f.res {
					active[r]++
				}
			}
		}
		if n == 0 && spare {
			// every demand is met: the flows that want something and
			// whose links are not full fill what is left
			spare = false
			for i := range flows {
				f := &flows[i]
				if f.want <= 0 || math.IsInf(f.filled, 1) || math.IsInf(f.floor, 1) {
					continue
				}
				f.active, f.want = true, math.Inf(1)
				for _, r := range f.res {
					if !math.IsInf(capacity[r], 1) && remaining[r] <= capacity[r]*epsilon {
						f.active = false
					}
				}
			}
			continue
		}
		if n == 0 {
			break
		}
		inc := math.Inf(1)
		for r, k := range active {
			if k > 0 {
				inc = min(inc, max(0, remaining[r])/float64(k))
			}
		}
		for _, f := range flows {
			if f.active {
				inc = min(inc, f.want-f.filled)
			}
		}
		if math.IsInf(inc, 1) {
			for i := range flows {
				if flows[i].active {
					flows[i].filled, flows[i].active = math.Inf(1), false
				}
			}
			break
		}
		for i := range flows {
			f := &flows[i]
			if !f.active {
				continue
			}
			f.filled += inc
			for _, r := range f.res {
				remaining[r] -= inc
			}
		}
		for i := range flows {
			f := &flows[i]
			if !f.active {
				continue
			}
			if f.filled >= f.want*(1-epsilon) {
				f.active = false
				continue
			}
			for _, r := range f.res {
				if !math.IsInf(capacity[r], 1) && remaining[r] <= capacity[r]*epsilon {
					f.active = false
				}
			}
		}
	}
	out := make([][]float64, nh)
	for h := range out {
		out[h] = make([]float64, nr)
	}
	for _, f := range flows {
		out[f.h][f.d] = f.floor + f.filled
	}
	return out, nil
}

// epsilon is the relative slack under which a link counts as full and a
// flow as satisfied (floating-point rounding).
const epsilon = 1e-9

func limit(bps float64) float64 {
	if bps == 0 {
		return math.Inf(1)
	}
	return bps
}

func (in Input) check() error {
	for r, rk := range in.Racks {
		if bad(rk.UplinkBps) || bad(rk.DownlinkBps) {
			return fmt.Errorf("share: rack %d: uplink %v, downlink %v: rates must be finite and not negative", r, rk.UplinkBps, rk.DownlinkBps)
		}
	}
	for h, hs := range in.Hosts {
		if hs.Rack < 0 || hs.Rack >= len(in.Racks) {
			return fmt.Errorf("share: host %d: rack %d, want 0..%d", h, hs.Rack, len(in.Racks)-1)
		}
		if bad(hs.NICBps) {
			return fmt.Errorf("share: host %d: NIC rate %v: must be finite and not negative", h, hs.NICBps)
		}
		if len(hs.Demand) > len(in.Racks) {
			return fmt.Errorf("share: host %d: demand toward %d racks, there are %d", h, len(hs.Demand), len(in.Racks))
		}
		for d, v := range hs.Demand {
			if math.IsNaN(v) || v < 0 {
				return fmt.Errorf("share: host %d: demand %v toward rack %d: must not be negative", h, v, d)
			}
		}
	}
	return nil
}

func bad(bps float64) bool { return math.IsNaN(bps) || math.IsInf(bps, 0) || bps < 0 }
