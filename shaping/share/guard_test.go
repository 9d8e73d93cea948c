package share

import (
	"math"
	"testing"
	"time"
)

// A link of a capacity so small that its remainder cannot be split among
// its flows in floating point (5e-324, say a peer's message) used to
// make the filling loop for ever, adding 0 to every flow.
func TestTinyCapacityEnds(t *testing.T) {
	for _, c := range []float64{math.SmallestNonzeroFloat64, 7 * math.SmallestNonzeroFloat64, 1e-320, 1e-310} {
		in := Input{Racks: []Rack{{c, c}, {c, c}}, Spare: true}
		for h := range 6 {
			in.Hosts = append(in.Hosts, Host{Rack: h % 2, Demand: []float64{Backlogged, Backlogged}})
		}
		done := make(chan error, 1)
		var out [][]float64
		go func() {
			var err error
			out, err = Compute(in)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("capacity %v: Compute did not return", c)
		}
		for h := range out {
			sum := 0.0
			for _, v := range out[h] {
				sum += v
			}
			if math.IsNaN(sum) || sum > 3*c {
				t.Errorf("capacity %v: host %d gets %v", c, h, out[h])
			}
		}
	}
}

// With Spare, a flow whose demand its floor covers wants something too,
// and shares what is left: host 0 wants 0.5 (within its floor of 1),
// host 1 wants 10; the 89 left go 44.5 to each: 1 + 44.5 and 10 + 44.5.
// Host 0 used to be held at its floor, host 1 given the rest, 99.
func TestSpareReachesDemandsWithinTheFloor(t *testing.T) {
	in := twoByTwo(0.5, 10)
	in.Spare = true
	out := compute(t, in)
	near(t, "host 0", out[0][1], 45.5)
	near(t, "host 1", out[1][1], 54.5)
	near(t, "idle rack 1 toward rack 0", out[2][0], 1)
}
