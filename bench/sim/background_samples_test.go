package sim

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// linkSampleSink keeps the link samples of a run.
type linkSampleSink struct {
	checkingSink
	up, down [][]float64
}

func (s *linkSampleSink) LinkSample(t float64, up, down []float64) error {
	s.up = append(s.up, append([]float64(nil), up...))
	s.down = append(s.down, append([]float64(nil), down...))
	return nil
}

// links.csv's utilisation means what the live driver's means
// (live.kernelUtilisation): the workload's bytes over the link's nominal
// capacity, the background left out. With half of every rack link
// background, a read across racks that fills what the background leaves
// of the sender's uplink uses 0.5 of it: the network status, which adds
// the background, says 1.0 (TestNetworkStatusMeansWhatLiveMeans), and the
// live links.csv 0.5. The simulator's samples divided by the capacity the
// background leaves, and said 1.0 where the live one says 0.5.
func TestLinkSamplesAreSharesOfTheNominalCapacity(t *testing.T) {
	const bg = 0.5
	sink := &linkSampleSink{checkingSink: checkingSink{t: t}}
	readRemotely(t, 2, 1, []workload.Block{{Size: 1 << 30, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}}}},
		Options{Background: bg, Sink: sink, Sample: 1})
	if len(sink.up) < 3 {
		t.Fatalf("%d samples, want a few", len(sink.up))
	}
	// the second sample is within the read (1 GiB at 62.5 MB/s: 17 s)
	if got := sink.up[1][1]; math.Abs(got-(1-bg)) > 1e-6 {
		t.Fatalf("the sender's uplink, full of workload and background, sampled at %g of its capacity; the live links.csv counts the workload's share of the nominal capacity, %g", got, 1-bg)
	}
}
