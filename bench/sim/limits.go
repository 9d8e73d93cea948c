package sim

import (
	"fmt"
	"math"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// The bounds on a simulation's options and on what it may record, in one
// place. Options outside them are refused by Options.Validate (and so by
// Run) with the option's name and the limit.
const (
	// MinResolution and MaxResolution bound the time step: below a
	// microsecond, steps near the largest arrival times (workload
	// .MaxArrivalS) are lost in float64 rounding and a run crawls; above a
	// minute, every event of a job lands in one step.
	MinResolution = 1e-6
	MaxResolution = 60
	// MinPeriod bounds the periods (heartbeat, fetch poll, link sample,
	// network window) from below: a period near zero fires timers at
	// every step and a run never ends.
	MinPeriod = 1e-3
	// MaxLinkRows bounds the rows a run writes to links.csv (one per rack
	// link per sample, about 30 bytes each: some 60 MB). When a run's
	// samples reach the budget, adjacent samples are averaged in pairs and
	// the sample period doubles, so that a run of any length keeps its
	// whole span at one period, the finest that fits.
	MaxLinkRows = 2_000_000
	// TimeBoundSafety, TimeBoundSlackS: when Options.MaxSimTime is 0, the
	// run stops with an error once simulated time passes
	//   last arrival + TimeBoundSafety × (bytes / slowest rate + CPU time
	//   + tasks × (heartbeat + fetch poll, 0 by default)) + TimeBoundSlackS,
	// where bytes sums every stage's input and replicated output, and the
	// slowest rate is the slowest link, NIC or tier: the time to do all of
	// the workload's work one task at a time through the slowest resource,
	// ten times over, plus a day. A run that passes it is stuck (or
	// scheduling far worse than serially); MaxSimTime raises it.
	TimeBoundSafety = 10
	TimeBoundSlackS = 86400
)

// Validate checks the options a user can set: no NaN or infinity, no
// negative period, each within its limit. Zero means the default.
func (o Options) Validate() error {
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s %g is not a finite number", name, v)
		}
		return nil
	}
	period := func(name string, v, min float64) error {
		if err := finite(name, v); err != nil {
			return err
		}
		if v != 0 && v < min {
			return fmt.Errorf("%s %g s is below the limit of %g s (0: the default)", name, v, min)
		}
		return nil
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"heartbeat", o.Heartbeat}, {"fetch poll", o.FetchPoll}, {"link sample period", o.Sample}, {"network window", o.NetworkWindow}} {
		if err := period(p.name, p.v, MinPeriod); err != nil {
			return err
		}
	}
	if err := period("resolution", o.Resolution, MinResolution); err != nil {
		return err
	}
	if o.Resolution > MaxResolution {
		return fmt.Errorf("resolution %g s is above the limit of %g s", o.Resolution, float64(MaxResolution))
	}
	if err := finite("full-recompute period", o.FullRecompute); err != nil {
		return err
	}
	if err := validNetwork(o.Network); err != nil {
		return err
	}
	if !(o.Background >= 0 && o.Background < 1) {
		return fmt.Errorf("background share %g is outside [0, 1)", o.Background)
	}
	if err := finite("max simulated time", o.MaxSimTime); err != nil {
		return err
	}
	if o.MaxSimTime < 0 {
		return fmt.Errorf("max simulated time %g s is negative (0: a bound derived from the workload)", o.MaxSimTime)
	}
	if err := finite("stall timeout", o.StallTimeout); err != nil {
		return err
	}
	if err := finite("window", o.Window); err != nil {
		return err
	}
	if o.Window < 0 {
		return fmt.Errorf("window %g s is negative (0: none)", o.Window)
	}
	if o.MaxSimTime > 0 && o.MaxSimTime < o.Window {
		return fmt.Errorf("max simulated time %g s is below the window %g s: a run would fail before the window ends it", o.MaxSimTime, o.Window)
	}
	return nil
}

// TimeBound is the simulated time after which a run of eng's workload
// with opt (defaults filled in) is stopped when Options.MaxSimTime is 0;
// see TimeBoundSafety.
func TimeBound(eng *engine.Engine, opt Options) (float64, error) {
	jobs := eng.Jobs()
	w := &workload.Workload{Jobs: make([]workload.Job, len(jobs))}
	for i, j := range jobs {
		w.Jobs[i] = *j.Spec
	}
	vol, err := w.Volume(eng.Datasets())
	if err != nil {
		return 0, err
	}
	t := eng.Topology()
	slowest := math.Inf(1)
	for i := range t.Hosts {
		h := &t.Hosts[i]
		slowest = min(slowest, h.NICBps)
		for _, tr := range h.Tiers {
			slowest = min(slowest, tr.ReadBps, tr.WriteBps)
		}
	}
	for i := range t.Racks {
		slowest = min(slowest, t.Racks[i].UplinkBps*(1-opt.Background), t.Racks[i].DownlinkBps*(1-opt.Background))
	}
	if t.CoreBps > 0 {
		slowest = min(slowest, t.CoreBps)
	}
	serial := vol.Bytes/slowest + vol.ComputeNs/1e9 + vol.Tasks*(opt.Heartbeat+opt.FetchPoll)
	return vol.LastArrival + TimeBoundSafety*serial + TimeBoundSlackS, nil
}

// linkSample is one sample period's rack-link utilisation, kept until the
// run ends so that samples can be merged when they reach the budget.
type linkSample struct {
	t        float64
	up, down []float64
}

// linkSampleBudget is how many samples fit in MaxLinkRows for racks
// racks: even, so that samples merge in pairs, and at least 2.
func linkSampleBudget(racks int) int {
	n := MaxLinkRows / (2 * max(racks, 1))
	return max(n&^1, 2)
}

// mergeSamples averages adjacent samples in pairs: each pair spans two
// periods of equal length, so the mean of their utilisations is the
// utilisation over both.
func mergeSamples(buf []linkSample) []linkSample {
	out := buf[:0]
	for i := 0; i+1 < len(buf); i += 2 {
		a, b := buf[i], buf[i+1]
		for r := range a.up {
			a.up[r] = (a.up[r] + b.up[r]) / 2
			a.down[r] = (a.down[r] + b.down[r]) / 2
		}
		a.t = b.t
		out = append(out, a)
	}
	return out
}
