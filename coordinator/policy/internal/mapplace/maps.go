package mapplace

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Mode is a map placement rule.
type Mode uint8

const (
	// Hadoop is Hadoop 1.2.1's default (§4.1): node-local, else
	// rack-local, else any, no waiting.
	Hadoop Mode = iota
	// Delay is delay scheduling with only the rack-locality delay (§4.2).
	Delay
	// Even is even scheduling (§4.3): the same number of maps per rack.
	Even
)

var modeNames = [...]string{Hadoop: "hadoop", Delay: "delay", Even: "even"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// EvenVariant is how even scheduling gives splits their racks (§4.3).
type EvenVariant string

const (
	// Oblivious deals a seeded shuffle of the splits to the racks in turn,
	// whatever their replicas (the paper's wording; the default).
	Oblivious EvenVariant = "oblivious"
	// LocalityAware keeps the quotas but puts each split in a replica rack
	// under quota where it can.
	LocalityAware EvenVariant = "locality_aware"
)

// DefaultRackLocalityDelay is §4.2's rackLocalityDelay: Hadoop 1.x's
// fair scheduler default, 1.5 × the 3 s minimum heartbeat interval.
const DefaultRackLocalityDelay = 4.5

// Config is a Placer's rule.
type Config struct {
	Mode Mode
	// RackLocalityDelay is Delay's wait in seconds.
	RackLocalityDelay float64
	// Even is Even's variant ("" is Oblivious).
	Even EvenVariant
}

// Validate checks the config's values.
func (c Config) Validate() error {
	if int(c.Mode) >= len(modeNames) {
		return fmt.Errorf("mapplace: unknown map placement mode %d", c.Mode)
	}
	if !(c.RackLocalityDelay >= 0) { // NaN too
		return fmt.Errorf("mapplace: rack locality delay %g s is negative", c.RackLocalityDelay)
	}
	return ValidateEven(c.Even)
}

// ValidateEven checks an even-scheduling variant's name.
func ValidateEven(v EvenVariant) error {
	switch v {
	case "", Oblivious, LocalityAware:
		return nil
	}
	return fmt.Errorf("mapplace: even variant %q is not %s or %s", v, Oblivious, LocalityAware)
}

// Reason codes of the Placer's launches (DecisionNote.Reason).
const (
	ReasonNodeLocal = "node-local"
	ReasonRackLocal = "rack-local"
	ReasonOffRack   = "off-rack"
	ReasonWaited    = "off-rack-waited" // Delay: after the rack-locality delay
	ReasonEven      = "even-quota"
)

// Placer launches original map tasks by its Config's rule, and remembers
// where it launched them. Its zero value is not usable: use NewPlacer.
type Placer struct {
	cfg  Config
	jobs map[engine.JobID]*jobState
	buf  []engine.TaskRef
}

// jobState is what the Placer keeps of a running job.
type jobState struct {
	// Delay: the job declines off-rack slots since waitFrom, if waiting.
	waiting  bool
	waitFrom engine.Time
	// origin is the host of each map task's latest original attempt
	// launched here, by stage and task index (-1: none).
	origin [][]cluster.HostID
	// count is the number of origins in each rack (the spec's L).
	count []int
	// even is the rack each split was given, by stage and task index
	// (nil until the job's first offer under Even).
	even [][]cluster.RackID
}

// NewPlacer returns a Placer with the given rule. A zero
// RackLocalityDelay under Delay never waits; use DefaultRackLocalityDelay.
func NewPlacer(cfg Config) *Placer {
	if cfg.Even == "" {
		cfg.Even = Oblivious
	}
	return &Placer{cfg: cfg, jobs: make(map[engine.JobID]*jobState)}
}

// Config is the Placer's rule.
func (p *Placer) Config() Config { return p.cfg }

func (p *Placer) state(ctx *engine.Context, j engine.JobID) *jobState {
	s := p.jobs[j]
	if s == nil {
		job := ctx.Job(j)
		s = &jobState{origin: make([][]cluster.HostID, len(job.Stages)), count: make([]int, len(ctx.Topology().Racks))}
		for i, st := range job.Stages {
			if st.Spec.Kind != workload.Map {
				continue
			}
			o := make([]cluster.HostID, len(st.Tasks))
			for k := range o {
				o[k] = -1
			}
			s.origin[i] = o
		}
		p.jobs[j] = s
	}
	return s
}

// JobFinished forgets a job; a policy calls it from its JobFinishedHook.
func (p *Placer) JobFinished(j engine.JobID) { delete(p.jobs, j) }

// mapSlotOffered reports whether the current offer may take a map.
func mapSlotOffered(ctx *engine.Context) bool { return ctx.Offering() != engine.ReduceSlot }

// OfferMaps launches original map tasks of the running jobs on host h, in
// FIFO job order, while h has a free map slot and the rule takes one; it
// returns how many it launched. It launches nothing while a reduce pool
// is being offered.
func (p *Placer) OfferMaps(ctx *engine.Context, h cluster.HostID) int {
	if !mapSlotOffered(ctx) {
		return 0
	}
	n := 0
	offRack := 0 // Hadoop: off-rack maps this heartbeat
	for ctx.FreeMapSlots(h) > 0 && ctx.PendingTasks() > 0 {
		var ok bool
		switch p.cfg.Mode {
		case Delay:
			ok = p.delayOne(ctx, h)
		case Even:
			ok = p.evenOne(ctx, h)
		default:
			ok = p.hadoopOne(ctx, h, &offRack)
		}
		if !ok {
			break
		}
		n++
	}
	return n
}

// launch starts an original map attempt and records where.
func (p *Placer) launch(ctx *engine.Context, t engine.TaskRef, h cluster.HostID, reason string) bool {
	if _, err := ctx.Launch(t, h, engine.LaunchOptions{Source: Source(ctx, t, h), Note: engine.DecisionNote{Reason: reason}}); err != nil {
		return false // the engine counts why
	}
	s := p.state(ctx, t.Job)
	topo := ctx.Topology()
	if old := s.origin[t.Stage][t.Index]; old >= 0 {
		s.count[topo.RackOf(old)]-- // relaunched after a failure
	}
	s.origin[t.Stage][t.Index] = h
	s.count[topo.RackOf(h)]++
	return true
}

// hadoopOne gives one map slot of h by §4.1: per job in FIFO order, its
// node-local map, else its rack-local one, else any of its maps; the
// first job with one takes the slot. As Hadoop 1.2.1's
// JobQueueTaskScheduler (assignTasks: "break scheduleMaps" after a
// non-local map), an off-rack map is the heartbeat's last map.
func (p *Placer) hadoopOne(ctx *engine.Context, h cluster.HostID, offRack *int) bool {
	if *offRack > 0 {
		return false
	}
	for _, j := range ctx.Running() {
		if ctx.PendingMaps(j.ID) == 0 {
			continue
		}
		t, loc, ok := ctx.PickMap(j.ID, h, engine.Remote)
		if !ok {
			continue
		}
		if loc == engine.Remote {
			*offRack++
		}
		return p.launch(ctx, t, h, reasonOf(loc))
	}
	return false
}

func reasonOf(l engine.Locality) string {
	switch l {
	case engine.NodeLocal:
		return ReasonNodeLocal
	case engine.RackLocal:
		return ReasonRackLocal
	}
	return ReasonOffRack
}

// delayOne gives one map slot of h by §4.2.
func (p *Placer) delayOne(ctx *engine.Context, h cluster.HostID) bool {
	now := ctx.Now()
	for _, j := range ctx.Running() {
		if ctx.PendingMaps(j.ID) == 0 {
			continue
		}
		s := p.state(ctx, j.ID)
		if t, loc, ok := ctx.PickMap(j.ID, h, engine.RackLocal); ok {
			if !p.launch(ctx, t, h, reasonOf(loc)) {
				return false
			}
			s.waiting = false // a rack-local launch resets the wait
			return true
		}
		if !s.waiting {
			s.waiting, s.waitFrom = true, now
		}
		if now-s.waitFrom >= p.cfg.RackLocalityDelay {
			t, ok := ctx.NextPendingMap(j.ID)
			if !ok {
				continue
			}
			return p.launch(ctx, t, h, ReasonWaited)
		}
		// skipped: the next job may take the slot
	}
	return false
}

// Waiting reports whether a job declines off-rack slots under Delay, and
// since when.
func (p *Placer) Waiting(j engine.JobID) (since engine.Time, waiting bool) {
	if s := p.jobs[j]; s != nil && s.waiting {
		return s.waitFrom, true
	}
	return 0, false
}

// MapOrigin is where one original map task of a job was launched.
type MapOrigin struct {
	Task engine.TaskRef
	Host cluster.HostID
	Rack cluster.RackID
}

// AllOriginalMapsAssigned reports whether every map task of a running
// job has an original attempt launched (running, or done): Shadow's
// pre-assignment event (§2.2, §3.3 "AllOriginalMapsAssigned"). A map that
// failed and waits to run again makes it false until it is relaunched.
func (p *Placer) AllOriginalMapsAssigned(ctx *engine.Context, j engine.JobID) bool {
	job := ctx.Job(j)
	if job == nil || job.State != engine.JobRunning {
		return false
	}
	hasMaps := false
	for _, st := range job.Stages {
		if st.Spec.Kind != workload.Map {
			continue
		}
		if !st.Released || st.Pending > 0 {
			return false
		}
		hasMaps = hasMaps || len(st.Tasks) > 0
	}
	return hasMaps
}

// Originals appends to buf where each of the job's map tasks had its
// latest original attempt launched by this Placer, stage by stage in task
// order; a map this Placer never launched is left out.
func (p *Placer) Originals(ctx *engine.Context, j engine.JobID, buf []MapOrigin) []MapOrigin {
	s := p.jobs[j]
	if s == nil {
		return buf
	}
	topo := ctx.Topology()
	for si, o := range s.origin {
		for ti, h := range o {
			if h < 0 {
				continue
			}
			buf = append(buf, MapOrigin{
				Task: engine.TaskRef{Job: j, Stage: int16(si), Index: int32(ti)},
				Host: h, Rack: topo.RackOf(h),
			})
		}
	}
	return buf
}

// OriginalHost is the host of a map task's latest original attempt
// launched by this Placer.
func (p *Placer) OriginalHost(t engine.TaskRef) (cluster.HostID, bool) {
	s := p.jobs[t.Job]
	if s == nil || int(t.Stage) >= len(s.origin) || s.origin[t.Stage] == nil || int(t.Index) >= len(s.origin[t.Stage]) {
		return -1, false
	}
	h := s.origin[t.Stage][t.Index]
	return h, h >= 0
}

// RackCounts returns the number of the job's original maps launched by
// this Placer in each rack (the spec's L, one entry per rack; nil for a
// job it launched nothing of).
func (p *Placer) RackCounts(j engine.JobID) []int {
	if s := p.jobs[j]; s != nil {
		return append([]int(nil), s.count...)
	}
	return nil
}

// Source is the replica a map launched on host h reads: nil, the
// engine's choice (the closest live replica), when one is on h or in its
// rack; otherwise a live replica drawn at random, as HDFS 1.x's
// NetworkTopology.pseudoSortByDistance puts a random replica first when
// none is local to the reader. The engine's own tie rule (lowest host)
// would send every off-rack read of a job to the same few hosts, and so
// through the same rack uplinks.
func Source(ctx *engine.Context, t engine.TaskRef, h cluster.HostID) *workload.Replica {
	reps := ctx.Replicas(t)
	if len(reps) == 0 {
		return nil
	}
	topo := ctx.Topology()
	for _, r := range reps {
		if topo.RackOf(r.Host) == topo.RackOf(h) {
			return nil
		}
	}
	r := reps[ctx.Rand().IntN(len(reps))]
	return &r
}
