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
//
// Bands, if set, splits the host's demand by priority band instead:
// Bands[b][d] toward rack d, band 0 the highest (Demand is then ignored).
// A link serves its bands in strict order, as a switch's priority leaves
// do: the flows of a band are filled, max-min among themselves, before
// any flow of a lower band grows past its floor.
type Host struct {
	Rack   int
	NICBps float64
	Demand []float64
	Bands  [][]float64
}

// bands returns the host's demand by band (one band: Demand).
func (h Host) bands() [][]float64 {
	if h.Bands != nil {
		return h.Bands
	}
	return [][]float64{h.Demand}
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
		h, d, band int
		res        [3]int
		want       float64 // demand above the floor
		wants      bool    // some demand, even one the floor covers
		floor      float64
		filled     float64
		active     bool
	}
	var flows []flow
	users := make([]int, len(capacity))
	nb := 0
	for h, hs := range in.Hosts {
		bands := hs.bands()
		nb = max(nb, len(bands))
		for d := range nr {
			if d == hs.Rack {
				continue
			}
			// one flow per band; the floor belongs to the pair (h, d)
			// and serves its highest bands first
			res := [3]int{hs.Rack, nr + d, 2*nr + h}
			for _, r := range res {
				users[r]++
			}
			for b := range max(len(bands), 1) {
				f := flow{h: h, d: d, band: b, res: res}
				if b < len(bands) && d < len(bands[b]) {
					f.want = bands[b][d]
				}
				f.wants = f.want > 0
				flows = append(flows, f)
			}
		}
	}
	remaining := append([]float64(nil), capacity...)
	for i := 0; i < len(flows); {
		// flows[i:j] are the bands of one pair
		j := i + 1
		for j < len(flows) && flows[j].h == flows[i].h && flows[j].d == flows[i].d {
			j++
		}
		floor := math.Inf(1)
		for _, r := range flows[i].res {
			if !math.IsInf(capacity[r], 1) {
				floor = min(floor, capacity[r]*min(FloorFraction, FloorTotal/float64(users[r])))
			}
		}
		if math.IsInf(floor, 1) {
			for k := i; k < j; k++ {
				flows[k].floor = floor // crosses no limited link
			}
			i = j
			continue
		}
		for _, r := range flows[i].res {
			remaining[r] -= floor
		}
		flows[i].floor = floor
		left := floor
		for k := i; k < j; k++ {
			f := &flows[k]
			if k > i {
				f.floor = 0
			}
			used := min(left, f.want)
			left -= used
			f.want -= used
		}
		i = j
	}
	// progressive filling, band by band: raise every active flow of the
	// band by the same amount until a flow meets its demand or a link
	// fills; freeze those; repeat. Each round freezes at least one flow,
	// so it ends. Then, with Spare, the flows that want something fill
	// what is left, band by band again.
	active := make([]int, len(capacity))
	full := func(f *flow) bool {
		for _, r := range f.res {
			if !math.IsInf(capacity[r], 1) && remaining[r] <= capacity[r]*epsilon {
				return true
			}
		}
		return false
	}
	fill := func() {
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
			if n == 0 {
				return
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
				return
			}
			if inc <= 0 {
				// what is left of a link is too small to split among
				// its flows (a capacity near the smallest float, whose
				// floors and epsilon round to 0): none can grow, and
				// another round would change nothing, for ever
				for i := range flows {
					flows[i].active = false
				}
				return
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
				if f.active && (f.filled >= f.want*(1-epsilon) || full(f)) {
					f.active = false
				}
			}
		}
	}
	for b := range max(nb, 1) {
		for i := range flows {
			f := &flows[i]
			f.active = f.band == b && !math.IsInf(f.floor, 1) && f.want > 0 && !full(f)
		}
		fill()
	}
	if in.Spare {
		// every demand is met as far as the links allow: the flows
		// that want something and whose links are not full fill what
		// is left
		for b := range max(nb, 1) {
			for i := range flows {
				f := &flows[i]
				f.active = f.band == b && f.wants && !math.IsInf(f.filled, 1) && !math.IsInf(f.floor, 1) && !full(f)
				if f.active {
					f.want = math.Inf(1)
				}
			}
			fill()
		}
	}
	out := make([][]float64, nh)
	for h := range out {
		out[h] = make([]float64, nr)
	}
	for _, f := range flows {
		out[f.h][f.d] += f.floor + f.filled
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
		for b, band := range hs.Bands {
			if len(band) > len(in.Racks) {
				return fmt.Errorf("share: host %d: band %d: demand toward %d racks, there are %d", h, b, len(band), len(in.Racks))
			}
			for d, v := range band {
				if math.IsNaN(v) || v < 0 {
					return fmt.Errorf("share: host %d: band %d: demand %v toward rack %d: must not be negative", h, b, v, d)
				}
			}
		}
	}
	return nil
}

func bad(bps float64) bool { return math.IsNaN(bps) || math.IsInf(bps, 0) || bps < 0 }
