package share

import (
	"math"
	"math/rand"
	"testing"
)

// Random inputs: rates are never NaN or negative, a host's own rack gets
// 0, and no limited link or NIC carries more than its capacity.
func TestRatesStayWithinLinks(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for it := 0; it < 20000; it++ {
		nr := 1 + rng.Intn(4)
		in := Input{Spare: rng.Intn(2) == 0}
		pick := func() float64 {
			switch rng.Intn(4) {
			case 0:
				return 0
			default:
				return float64(1 + rng.Intn(1000))
			}
		}
		for range nr {
			in.Racks = append(in.Racks, Rack{pick(), pick()})
		}
		nh := 1 + rng.Intn(6)
		banded := rng.Intn(3) == 0
		for range nh {
			h := Host{Rack: rng.Intn(nr), NICBps: pick(), Demand: make([]float64, nr)}
			dem := func() float64 {
				switch rng.Intn(4) {
				case 0:
					return 0
				case 1:
					return Backlogged
				default:
					return rng.Float64() * 500
				}
			}
			for d := range nr {
				h.Demand[d] = dem()
			}
			if banded {
				h.Bands = make([][]float64, 1+rng.Intn(3))
				for b := range h.Bands {
					h.Bands[b] = make([]float64, nr)
					for d := range nr {
						h.Bands[b][d] = dem()
					}
				}
			}
			in.Hosts = append(in.Hosts, h)
		}
		out, err := Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		up := make([]float64, nr)
		down := make([]float64, nr)
		for h, hs := range in.Hosts {
			nic := 0.0
			for d := range nr {
				v := out[h][d]
				if math.IsNaN(v) || v < 0 {
					t.Fatalf("%d: bad rate %v", it, v)
				}
				if d == hs.Rack {
					if v != 0 {
						t.Fatalf("own rack %v", v)
					}
					continue
				}
				if math.IsInf(v, 1) {
					continue
				}
				up[hs.Rack] += v
				down[d] += v
				nic += v
			}
			if hs.NICBps > 0 && nic > hs.NICBps*(1+1e-9) {
				t.Fatalf("%d: NIC %v > %v", it, nic, hs.NICBps)
			}
		}
		for r, rk := range in.Racks {
			if rk.UplinkBps > 0 && up[r] > rk.UplinkBps*(1+1e-9) {
				t.Fatalf("%d: uplink %d %v > %v", it, r, up[r], rk.UplinkBps)
			}
			if rk.DownlinkBps > 0 && down[r] > rk.DownlinkBps*(1+1e-9) {
				t.Fatalf("%d: downlink %d %v > %v", it, r, down[r], rk.DownlinkBps)
			}
		}
	}
}
