package sim

import (
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// checkShuffleLinks checks a run's per-job shuffle link bytes: a job's
// uplink and downlink bytes each add up to the cross-rack bytes its
// shuffling attempts fetched, by their classes and levels, and no rack
// link carried less than the jobs' shuffles put on it.
func checkShuffleLinks(t *testing.T, pol string, seed uint64, eng *engine.Engine, sink *checkingSink, res *Result) {
	t.Helper()
	cross := map[engine.JobID]int64{}
	for _, a := range sink.attempts {
		if a.Outcome == engine.AttemptSucceeded && a.Kind != workload.Map {
			cross[a.Task.Job] += a.Bytes[engine.ClassShuffle][engine.LevelCross] + a.Bytes[engine.ClassDuplicate][engine.LevelCross]
		}
	}
	racks := len(eng.Topology().Racks)
	up, down := make([]int64, racks), make([]int64, racks)
	for _, j := range sink.jobs {
		var u, d int64
		for r := range j.ShuffleUp {
			u += j.ShuffleUp[r]
			d += j.ShuffleDown[r]
			up[r] += j.ShuffleUp[r]
			down[r] += j.ShuffleDown[r]
		}
		if u != cross[j.ID] || d != cross[j.ID] {
			t.Fatalf("%s seed %d: job %s put %d bytes on uplinks and %d on downlinks; its attempts fetched %d across racks", pol, seed, j.Name, u, d, cross[j.ID])
		}
	}
	// the simulator rounds each source rack's part of an aggregated
	// shuffle flow: a byte per attempt and rack
	slack := float64(len(sink.attempts))
	for r := range racks {
		if float64(up[r]) > res.UplinkBytes[r]+slack || float64(down[r]) > res.DownlinkBytes[r]+slack {
			t.Fatalf("%s seed %d: rack %d: the jobs' shuffles put %d bytes up and %d down; the links carried %.0f and %.0f",
				pol, seed, r, up[r], down[r], res.UplinkBytes[r], res.DownlinkBytes[r])
		}
	}
}
