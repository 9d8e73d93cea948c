package fidelity

import (
	"path/filepath"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
)

// Pair is a live run with its simulation and its replay.
type Pair struct {
	Live              Run
	SimDir, ReplayDir string
	Sim, Replay       metrics.Summary
	Placed            PlacementCheck
}

// Dirs are where a live run's simulation and replay go under out:
// out/sim/<rel>/.. and out/replay/<rel>/.., rel being the live run's
// set and workload directories.
func (r Run) Dirs(out string) (simDir, replayDir string) {
	set := filepath.Dir(r.Rel())
	return filepath.Join(out, "sim", set), filepath.Join(out, "replay", set)
}

// Simulate runs a live run's simulation and replay under out (see Dirs)
// and checks the replay's placements against the live run's; notBefore
// is as for ReplaySpec.
func Simulate(r Run, out string, notBefore bool, cancel <-chan struct{}) (Pair, error) {
	p := Pair{Live: r}
	simSet, repSet := r.Dirs(out)
	spec, err := r.SimSpec(simSet)
	if err != nil {
		return p, err
	}
	spec.Options.Cancel = cancel
	if p.Sim, _, err = sim.RunOne(spec); err != nil {
		return p, err
	}
	p.SimDir = spec.Dir
	rspec, err := r.ReplaySpec(repSet, notBefore)
	if err != nil {
		return p, err
	}
	rspec.Options.Cancel = cancel
	if p.Replay, _, err = sim.RunOne(rspec); err != nil {
		return p, err
	}
	p.ReplayDir = rspec.Dir
	p.Placed, err = Placements(r.Run.Dir, p.ReplayDir)
	return p, err
}
