package share

import (
	"math"
	"testing"
)

// twoByTwo is 2 racks of 2 hosts (hosts 0, 1 in rack 0; 2, 3 in rack 1)
// with 100 B/s rack links and 1000 B/s NICs.
func twoByTwo(demand0, demand1 float64) Input {
	in := Input{Racks: []Rack{{100, 100}, {100, 100}}}
	for h := range 4 {
		in.Hosts = append(in.Hosts, Host{Rack: h / 2, NICBps: 1000, Demand: make([]float64, 2)})
	}
	in.Hosts[0].Demand[1], in.Hosts[1].Demand[1] = demand0, demand1
	return in
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: got %.6f, want %.6f", what, got, want)
	}
}

func compute(t *testing.T, in Input) [][]float64 {
	t.Helper()
	out, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// One busy sender takes the whole uplink but its idle rack-mate's floor:
// floors are 1 (1% of 100, the smallest link each flow crosses), so the
// busy flow gets 1 + (100 - 2) = 99.
func TestOneBusySenderGetsTheUplink(t *testing.T) {
	out := compute(t, twoByTwo(Backlogged, 0))
	near(t, "busy host", out[0][1], 99)
	near(t, "idle rack-mate", out[1][1], 1)
	near(t, "rack 1 toward rack 0", out[2][0], 1)
	near(t, "own rack", out[0][0], 0)
}

// Two busy senders split the uplink: 1 + 98/2 each.
func TestTwoSendersSplitTheUplink(t *testing.T) {
	out := compute(t, twoByTwo(Backlogged, Backlogged))
	near(t, "host 0", out[0][1], 50)
	near(t, "host 1", out[1][1], 50)
}

// A sender that wants little keeps what it wants; the other takes the
// rest: host 0 wants 20 (floor 1 + 19), host 1 gets 1 + (98 - 19) = 80.
func TestSpareGoesToTheBusy(t *testing.T) {
	out := compute(t, twoByTwo(20, Backlogged))
	near(t, "host 0", out[0][1], 20)
	near(t, "host 1", out[1][1], 80)
}

// The NIC caps a host: a 40 B/s NIC (one flow: floor 0.4) gets 40 of a
// 100 B/s uplink; the rack-mate with a large NIC takes the rest.
func TestNICCaps(t *testing.T) {
	in := twoByTwo(Backlogged, Backlogged)
	in.Hosts[0].NICBps = 40
	out := compute(t, in)
	near(t, "host 0", out[0][1], 40)
	// uplink: floors 0.4 + 1 reserved, 98.6 to fill; host 0 fills 39.6
	near(t, "host 1", out[1][1], 60)
}

// threeRacks has one host per rack (host h in rack h), unlimited NICs,
// rack 2's downlink down2 and rack 0's uplink up0; other links 100.
func threeRacks(up0, down2 float64, d0, d1 float64) Input {
	in := Input{Racks: []Rack{{up0, 100}, {100, 100}, {100, down2}}}
	for h := range 3 {
		in.Hosts = append(in.Hosts, Host{Rack: h, Demand: make([]float64, 3)})
	}
	in.Hosts[0].Demand[2], in.Hosts[1].Demand[2] = d0, d1
	return in
}

// A downlink shared by senders of two racks: each rack's sender gets
// half of rack 2's 60 B/s downlink. Floors through it are 0.6, the rest
// 58.8 split: 0.6 + 29.4 = 30 each.
func TestDownlinkSharedByTwoRacks(t *testing.T) {
	out := compute(t, threeRacks(100, 60, Backlogged, Backlogged))
	near(t, "rack 0's host", out[0][2], 30)
	near(t, "rack 1's host", out[1][2], 30)
}

// An idle rack's share of the downlink goes to the busy one:
// 0.6 + 58.8 = 59.4, the idle sender keeps its floor.
func TestIdleRackShareGoesToBusy(t *testing.T) {
	out := compute(t, threeRacks(100, 60, Backlogged, 0))
	near(t, "busy rack 0", out[0][2], 59.4)
	near(t, "idle rack 1", out[1][2], 0.6)
}

// Max-min across links: rack 0's sender is held by its 30 B/s uplink
// (floors 0.3 each on it), and rack 1's takes what rack 2's downlink has
// left: the uplink's 29.4 fill freezes host 0 at 29.7; the downlink (100,
// floors 0.3 + 1) has 98.7 - 2×29.4 = 39.9 left for host 1, at 1 + 69.3.
func TestMaxMinAcrossLinks(t *testing.T) {
	out := compute(t, threeRacks(30, 100, Backlogged, Backlogged))
	near(t, "rack 0's host", out[0][2], 29.7)
	near(t, "rack 1's host", out[1][2], 70.3)
	if s := out[0][1] + out[0][2]; s > 30+1e-9 {
		t.Errorf("rack 0's uplink carries %v > 30", s)
	}
}

// Nothing limits a flow that crosses no limited link: +Inf, not shaped.
func TestUnlimited(t *testing.T) {
	in := Input{Racks: []Rack{{}, {}}, Hosts: []Host{{Rack: 0, Demand: []float64{0, Backlogged}}, {Rack: 1}}}
	out := compute(t, in)
	if !math.IsInf(out[0][1], 1) || !math.IsInf(out[1][0], 1) {
		t.Errorf("got %v, want +Inf", out)
	}
}

// With many flows through a link, the floors together stay within
// FloorTotal of it: 40 idle hosts and one busy one on a 100 B/s uplink.
func TestFloorsBounded(t *testing.T) {
	in := Input{Racks: []Rack{{100, 0}, {0, 0}}}
	for range 40 {
		in.Hosts = append(in.Hosts, Host{Rack: 0})
	}
	in.Hosts = append(in.Hosts, Host{Rack: 0, Demand: []float64{0, Backlogged}})
	out := compute(t, in)
	sum := 0.0
	for h := range in.Hosts {
		sum += out[h][1]
	}
	near(t, "uplink total", sum, 100)
	near(t, "busy host", out[40][1], 100-100*FloorTotal*40/41)
}

// The same input gives the same output (no map iteration, no
// randomness).
func TestDeterministic(t *testing.T) {
	in := threeRacks(30, 100, 12, Backlogged)
	a, b := compute(t, in), compute(t, in)
	for h := range a {
		for d := range a[h] {
			if a[h][d] != b[h][d] {
				t.Fatalf("host %d rack %d: %v then %v", h, d, a[h][d], b[h][d])
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for name, in := range map[string]Input{
		"rack out of range": {Racks: []Rack{{}}, Hosts: []Host{{Rack: 1}}},
		"negative uplink":   {Racks: []Rack{{UplinkBps: -1}}},
		"infinite downlink": {Racks: []Rack{{DownlinkBps: math.Inf(1)}}},
		"negative demand":   {Racks: []Rack{{}, {}}, Hosts: []Host{{Rack: 0, Demand: []float64{0, -1}}}},
		"NaN demand":        {Racks: []Rack{{}, {}}, Hosts: []Host{{Rack: 0, Demand: []float64{0, math.NaN()}}}},
		"too many demands":  {Racks: []Rack{{}}, Hosts: []Host{{Rack: 0, Demand: []float64{0, 1}}}},
		"NaN NIC":           {Racks: []Rack{{}}, Hosts: []Host{{Rack: 0, NICBps: math.NaN()}}},
	} {
		if _, err := Compute(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// With Spare, what the demands leave of a link goes, max-min fair, to the
// flows that want something: hosts 0 and 1 want 20 and 10 of rack 0's
// 100 B/s uplink, and split the 70 left: 20+35 and 10+35 (host 1's 10 is
// met first, then both rise together). An idle flow keeps its floor.
func TestSpareToWhoeverWants(t *testing.T) {
	in := twoByTwo(20, 10)
	out := compute(t, in)
	near(t, "host 0, no spare", out[0][1], 20)
	in.Spare = true
	out = compute(t, in)
	near(t, "host 0", out[0][1], 55)
	near(t, "host 1", out[1][1], 45)
	near(t, "idle rack 1 toward rack 0", out[2][0], 1)
}

// banded is twoByTwo with host 0's demand in band 0 (high) and host 1's
// in band 1 (low), each backlogged unless given.
func banded(high, low float64) Input {
	in := twoByTwo(0, 0)
	in.Hosts[0].Bands = [][]float64{{0, high}, {0, 0}}
	in.Hosts[1].Bands = [][]float64{{0, 0}, {0, low}}
	return in
}

// Strict priority across hosts, as a switch's priority leaves give it: a
// backlogged high-priority sender takes the uplink but the floors
// (1 + 98 = 99); the low one on the other host keeps its floor, 1.
func TestHighBandFillsBeforeLow(t *testing.T) {
	out := compute(t, banded(Backlogged, Backlogged))
	near(t, "high host", out[0][1], 99)
	near(t, "low host", out[1][1], 1)
}

// What the high band does not want goes to the low one: high wants 30
// (floor 1 + 29), low gets 1 + (98 - 29) = 70.
func TestLowBandTakesWhatHighLeaves(t *testing.T) {
	out := compute(t, banded(30, Backlogged))
	near(t, "high host", out[0][1], 30)
	near(t, "low host", out[1][1], 70)
}

// With Spare, what the demands leave goes by band too: both want 10, so
// high gets 10 + the 80 left (100 - 2 floors - 2 × 9), low its 10.
func TestSpareGoesToTheHighBandFirst(t *testing.T) {
	in := banded(10, 10)
	in.Spare = true
	out := compute(t, in)
	near(t, "high host", out[0][1], 90)
	near(t, "low host", out[1][1], 10)
}

// One host with both bands toward one rack: its flows add up, and a
// backlogged rack-mate in the low band shares only what the high band
// leaves: host 0 high 40 + low backlogged, host 1 low backlogged. The
// floor of host 0 (1) serves its high band: high 1 + 39; the low band
// then splits 100 - 2 - 39 = 59 between host 0 and host 1: 29.5 each.
func TestBandsOfOneHostAddUp(t *testing.T) {
	in := twoByTwo(0, 0)
	in.Hosts[0].Bands = [][]float64{{0, 40}, {0, Backlogged}}
	in.Hosts[1].Bands = [][]float64{{0, 0}, {0, Backlogged}}
	out := compute(t, in)
	near(t, "host 0", out[0][1], 40+29.5)
	near(t, "host 1", out[1][1], 1+29.5)
}

func TestBadBandIsAnError(t *testing.T) {
	in := banded(Backlogged, Backlogged)
	in.Hosts[1].Bands[1][1] = -1
	if _, err := Compute(in); err == nil {
		t.Fatal("a negative band demand was accepted")
	}
}
