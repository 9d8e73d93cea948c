package fidelity

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/sim"
)

// Shadow's relocations and held outputs, replayed with not_before, are
// reproduced exactly: a kill waits for its recorded end (killed as soon
// as the launches before it were made, an original left its relocation
// nothing to duplicate), and an original's output that Shadow held while
// its duplicate ran is held (used at once, it ended the race early).
// Seeds 1 and 5 with an early slow-start had both.
func TestNotBeforeReplayOfShadowIsExact(t *testing.T) {
	for _, seed := range []string{"1", "5"} {
		camp := strings.Replace(testCampaign, "policies: [fifo, fair, capacity, delay, hadoop, shadow, trident, dawn, quartet, hscheduler, sparkdefault, shufflewatcher,\n               corral, {name: corral, label: corral-hdfs, args: {placement: hdfs}}]",
			"policies: [shadow, {name: capacity, label: capacity-am, args: {yarn_am: true}}]", 1)
		camp = strings.Replace(camp, "seed: 3", "slowstart: 0.05\nseed: "+seed, 1)
		c, out := runCampaign(t, camp)
		for _, r := range c.Matrix(out) {
			run, err := Locate(r.Dir, filepath.Join(filepath.Dir(out), "c.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			spec, err := run.ReplaySpec(filepath.Join(out, "replay"), true)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := sim.RunOne(spec); err != nil {
				t.Fatal(err)
			}
			rows, err := Compare(run, r.Dir, spec.Dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				if math.IsNaN(row.Live.JCT) || math.Abs(row.Replay.JCT-row.Live.JCT) > 2e-6 || row.Replay.CrossBytes != row.Live.CrossBytes {
					t.Errorf("seed %s %s job %s: JCT recorded %g, replayed %g; cross-rack bytes %d, %d", seed, r.Policy, row.Job,
						row.Live.JCT, row.Replay.JCT, row.Live.CrossBytes, row.Replay.CrossBytes)
				}
			}
		}
	}
}
