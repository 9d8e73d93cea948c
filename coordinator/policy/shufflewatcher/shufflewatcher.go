package shufflewatcher

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/internal/netmon"
	"github.com/racklab/racklab/coordinator/policy/netprio"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config is the policy's args. Defaults are dawn.md §4.2's; each comment
// names the spec that asks for the other values.
type Config struct {
	// MapRacks chooses a job's map racks at submission: "cost" picks k
	// greedy racks minimising remote input plus σ_map·|In|·(1−1/k)
	// (dawn.md §4.2 SW-1); "single" is the one rack holding a replica of
	// the most input chunks, ties to the lowest rack (corral.md §4.2);
	// "all" confines no job's maps: every rack, node-local then
	// rack-local then remote (pushbox.md §4.3 SW4, whose ShuffleWatcher
	// places only the reducers by rack).
	MapRacks string `yaml:"map_racks"`
	// ReduceRacks says where a job's reducers may run: "proportional"
	// splits them over racks in proportion to the map output, largest
	// remainder (dawn.md §4.2 SW-2); "map_racks" confines them to the
	// job's map racks (corral.md §4.2: "all of j's maps and reducers run
	// only in S_j"); "largest" prefers the rack with the most map output,
	// a preference as delay scheduling's, not a limit (pushbox.md §4.3
	// SW5: "prefer nodes/racks holding the largest share"; see
	// reduce_hosts).
	ReduceRacks string `yaml:"reduce_racks"`
	// Network is what "saturated" means for SW-3: "rack" is the offering
	// host's rack, max(uplink, downlink) load ≥ threshold (dawn.md §4.2
	// SW-3, with §2.4's default scope); "host" is the host's NIC receive
	// utilisation (pushbox.md §4.3 SW2); "global" is any rack saturated
	// (dawn.md §2.4 option global; corral.md §4.2's NASS core
	// utilisation); "off" never saturates (corral.md §4.2 without NASS).
	Network string `yaml:"network"`
	// Threshold is θ; 0 takes the engine's saturation threshold (dawn.md
	// §4.2 SW-3: "same monitor and θ as Dawn"); pushbox.md §4.3 SW2 uses
	// 0.9 (sweep 0.75–1.0).
	Threshold float64 `yaml:"threshold"`
	// MonitorWindow is W, the seconds over which network=rack and global
	// average a rack's load (dawn.md §4.2 SW-3: "same monitor and θ as
	// Dawn", §2.4: 2 s); 0 takes the driver's latest measurement alone.
	MonitorWindow float64 `yaml:"monitor_window"`
	// Order is the job order SW-3 walks: "fair" is the fair-share order
	// (dawn.md §4.2 SW-3, F-2..F-5); "fifo" is submission order (corral.md
	// §4.2 "FIFO across jobs"; pushbox.md §4.5's FIFO-respecting version).
	Order string `yaml:"order"`
	// StarvationSeconds is T_fair: a job below its fair share that has
	// had no container for longer is served first (dawn.md §4.2 SW-6);
	// 0 turns the guard off.
	StarvationSeconds float64 `yaml:"starvation_s"`
	// SlowStart is the reduce slow-start the policy asks of the run,
	// unless the run sets one: 1, reducers only after every map
	// (dawn.md §4.2 SW-4, §7.4). Whatever it is, the policy itself starts
	// a reducer only once its upstream is done (SW-4): a lower value only
	// makes the engine count reducers pending earlier.
	SlowStart float64 `yaml:"slow_start"`
	// NetworkPriorities is SW6's network: "none" is the original's fair
	// sharing, every flow in class 0; "job_fifo" is the FIFO-respecting
	// version (pushbox.md §4.5): the running jobs' flows take classes
	// by submission, as Hadoop(FIFO)'s (§4.2). Pair it with order=fifo.
	NetworkPriorities string `yaml:"network_priorities"`
	// Classes is the number of job classes under job_fifo (4, PushBox's).
	Classes int `yaml:"classes"`
	// NodeDelay and RackDelay are delay scheduling's skip budgets for
	// maps, in multiples of the host count: a job declines offers where
	// it has no node-local map until it has declined NodeDelay·M of them,
	// takes rack-local after that and anything after RackDelay·M; a
	// node-local launch resets its count. 0 takes map_racks' own: under
	// "all", 1 and 2, pushbox.md §4.3 SW4's "then normal locality", i.e.
	// §4.1 Hadoop's delay scheduling (with §2.3's budgets), since there
	// nothing else keeps maps by their input; under "cost" and "single"
	// none, dawn.md §4.2 SW-3's node-local, then rack-local, then remote
	// at once inside the chosen racks. Negative is none.
	NodeDelay float64 `yaml:"node_delay"`
	RackDelay float64 `yaml:"rack_delay"`
	// Pick is how a free slot is handed out: "kind" serves one kind of
	// task first over every job, reducers while the network is quiet and
	// maps while it is saturated (dawn.md §4.2 SW-3); "job" serves the
	// first job in order that can use the slot, with its reducer unless
	// the network is saturated, when a map takes the slot instead, the
	// job's own or the next jobs' (pushbox.md §4.3 SW1-SW3: the
	// legitimate job first, then slot transfer), so that under order=fifo
	// no later job's reducer goes ahead of an earlier job's map.
	Pick string `yaml:"pick"`
	// MapHosts is where a job's maps go within their racks: "any" is by
	// locality alone (dawn.md §4.2, corral.md §4.2); "output" prefers the
	// hosts already holding the job's map output among those holding a
	// replica (pushbox.md §4.3 SW4): a host holding none of it takes a
	// map whose input has no replica on one that does, if it has one
	// node-local, so that the maps left are there for the hosts that do.
	MapHosts string `yaml:"map_hosts"`
	// ReduceHosts is where a job's reducers go within the racks
	// reduce_racks allows: "any" is any host (dawn.md §4.2 SW-2 places by
	// rack); "output" prefers the hosts holding the largest shares of
	// the job's map output, as many as the stage has reducers (pushbox.md
	// §4.3 SW5's "nodes/racks"): a reducer declines other hosts until its
	// job has declined node_delay·M offers for it (M when delay
	// scheduling is off), as delay scheduling does for a map; with
	// reduce_racks largest, the preferred rack's other hosts then, and
	// any host after rack_delay·M (2M) offers (reducePreference).
	ReduceHosts string `yaml:"reduce_hosts"`
	// RxEMAAlpha is the weight of each new measurement in network=host's
	// EMA of a host's NIC receive utilisation (pushbox.md §4.3 SW2); the
	// spec gives none, so PushBox's own α for its receive-rate EMA
	// (§1.6, 0.3); 1 is the last window alone.
	RxEMAAlpha float64 `yaml:"rx_ema_alpha"`
}

// MaxDelay bounds node_delay and rack_delay. Their budgets, delay × the
// host count (at most cluster.MaxHosts), are ints: a larger delay
// overflowed, and the job then took any map at its first offer instead
// of waiting. A billion declines per host is already a wait no run
// reaches.
const MaxDelay = 1e9

// DefaultConfig is dawn.md §4.2's ShuffleWatcher.
func DefaultConfig() Config {
	return Config{MapRacks: "cost", ReduceRacks: "proportional", Network: "rack", Order: "fair", StarvationSeconds: 30, SlowStart: 1, MonitorWindow: netmon.DefaultWindow,
		NetworkPriorities: netprio.None, Classes: netprio.DefaultClasses, Pick: "kind",
		MapHosts: "any", ReduceHosts: "any", RxEMAAlpha: 0.3}
}

// Validate checks the args' values.
func (c Config) Validate() error {
	oneOf := func(arg, v string, ok ...string) error {
		for _, o := range ok {
			if v == o {
				return nil
			}
		}
		return fmt.Errorf("shufflewatcher: %s %q is not one of %v", arg, v, ok)
	}
	if err := oneOf("map_racks", c.MapRacks, "cost", "single", "all"); err != nil {
		return err
	}
	if err := oneOf("reduce_racks", c.ReduceRacks, "proportional", "map_racks", "largest"); err != nil {
		return err
	}
	if err := oneOf("network", c.Network, "rack", "host", "global", "off"); err != nil {
		return err
	}
	if err := oneOf("order", c.Order, "fair", "fifo"); err != nil {
		return err
	}
	if err := oneOf("pick", c.Pick, "kind", "job"); err != nil {
		return err
	}
	if err := oneOf("map_hosts", c.MapHosts, "any", "output"); err != nil {
		return err
	}
	if err := oneOf("reduce_hosts", c.ReduceHosts, "any", "output"); err != nil {
		return err
	}
	if !(c.RxEMAAlpha > 0 && c.RxEMAAlpha <= 1) {
		return fmt.Errorf("shufflewatcher: rx_ema_alpha %g is outside (0,1]", c.RxEMAAlpha)
	}
	if err := netprio.Validate("shufflewatcher", c.NetworkPriorities, c.Classes); err != nil {
		return err
	}
	if !(c.Threshold >= 0) || !(c.StarvationSeconds >= 0) {
		return fmt.Errorf("shufflewatcher: threshold %g and starvation_s %g must be ≥ 0", c.Threshold, c.StarvationSeconds)
	}
	if math.IsNaN(c.NodeDelay) || math.IsInf(c.NodeDelay, 0) || math.IsNaN(c.RackDelay) || math.IsInf(c.RackDelay, 0) {
		return fmt.Errorf("shufflewatcher: node_delay %g and rack_delay %g must be finite", c.NodeDelay, c.RackDelay)
	}
	if c.NodeDelay > MaxDelay || c.RackDelay > MaxDelay {
		return fmt.Errorf("shufflewatcher: node_delay %g and rack_delay %g must be at most %g (host counts)", c.NodeDelay, c.RackDelay, float64(MaxDelay))
	}
	if c.NodeDelay > 0 && c.RackDelay > 0 && c.RackDelay < c.NodeDelay {
		return fmt.Errorf("shufflewatcher: rack_delay %g is below node_delay %g", c.RackDelay, c.NodeDelay)
	}
	if !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return fmt.Errorf("shufflewatcher: slow_start %g is outside [0,1]", c.SlowStart)
	}
	if err := netmon.Validate(c.MonitorWindow); err != nil {
		return fmt.Errorf("shufflewatcher: %w", err)
	}
	return nil
}

// jobState is what the policy keeps per job.
type jobState struct {
	planned  bool
	mapRacks []bool // SW-1: racks the job's maps may run in
	// lastServed is when the job last held a container: its submission,
	// then the end of each of its attempts (SW-6)
	lastServed engine.Time
	// skips counts the offers the job declined for want of a node-local
	// map since its last node-local launch (delay scheduling), skippedAt
	// the offer it last counted, so that one offer counts once
	skips     int
	skippedAt uint64
	// quota per reduce stage index: reducers still to start per rack
	// (SW-2); nil until the stage is first considered
	quota map[int][]int
	// preferredRack per reduce stage index, under reduce_racks=largest:
	// the rack holding most of its map output (-1: none), which its
	// reducers prefer (SW5) instead of following a quota
	preferredRack map[int]cluster.RackID
	// outOn is the job's map output per host, under map_hosts=output
	outOn map[cluster.HostID]int64
	// preferred per reduce stage index: the hosts its reducers prefer
	// under reduce_hosts=output (nil: no map output to follow);
	// reduceSkips and reduceSkippedAt count the offers the job declined
	// for them, as skips and skippedAt do for maps
	preferred       map[int][]bool
	reduceSkips     int
	reduceSkippedAt uint64
}

// Policy is ShuffleWatcher.
type Policy struct {
	cfg     Config
	jobs    []jobState
	charged map[engine.AttemptID]cluster.RackID // reduce attempts counted against a quota
	order   []*engine.Job
	buf     []int64
	pending []engine.TaskRef
	// idle memoises "nothing may start in rack r" for the state stamp it
	// was found in: an event offers every free host, and a rack that had
	// nothing for one host has nothing for the next until something ends,
	// arrives or is released.
	idle []stamp
	gen  uint64
	// note is the decision note of the launch assign is trying
	note engine.DecisionNote
	net  netprio.FIFO
	// offer numbers the assign calls, for jobState.skippedAt
	offer uint64
	// rxUtil is each host's EMA of NIC receive utilisation (SW2), rxSeen
	// whether a measurement has come in
	rxUtil []float64
	rxSeen bool
	// mon averages the rack links' loads over monitor_window (SW-3)
	mon netmon.Monitor
}

// The reasons ShuffleWatcher gives for a launch in its decision note
// (engine.DecisionNote), for the records: which rule of SW-3 or SW-6
// put the task first.
const (
	// ReasonMapsFirst: the network is saturated, maps go before reducers.
	ReasonMapsFirst = "maps-first"
	// ReasonReducesFirst: it is not, reducers (shuffles) go first.
	ReasonReducesFirst = "reduces-first"
	// ReasonStarved: the job was below its fair share for too long (SW-6).
	ReasonStarved = "starved"
)

// stamp names a state: the count of hooks seen and the pending tasks.
type stamp struct {
	gen     uint64
	pending int
	pool    engine.SlotKind // the pool on offer: with split pools a rack
	// idle for maps may not be for reducers
	valid bool
}

// New returns ShuffleWatcher with the given args.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, charged: map[engine.AttemptID]cluster.RackID{},
		net: netprio.FIFO{Mode: cfg.NetworkPriorities, Classes: cfg.Classes}, mon: netmon.Monitor{Window: cfg.MonitorWindow}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "shufflewatcher" }

// Configure asks for the slow-start of SW-4 unless the run sets one.
func (p *Policy) Configure(cfg *engine.Config) {
	if p.cfg.SlowStart > 0 {
		cfg.SlowStart = p.cfg.SlowStart
	}
}

// MapRacks returns the racks job j's maps may run in (SW-1), planned on
// first use.
func (p *Policy) MapRacks(ctx *engine.Context, j engine.JobID) []bool {
	return p.state(ctx, j).mapRacks
}

func (p *Policy) state(ctx *engine.Context, j engine.JobID) *jobState {
	for int(j) >= len(p.jobs) {
		p.jobs = append(p.jobs, jobState{})
	}
	s := &p.jobs[j]
	if !s.planned {
		s.planned = true
		job := ctx.Job(j)
		s.lastServed = job.Submitted
		s.quota = map[int][]int{}
		s.preferredRack = map[int]cluster.RackID{}
		s.preferred = map[int][]bool{}
		s.mapRacks = p.planMapRacks(ctx, job)
	}
	return s
}

// JobSubmitted plans the job's map racks when it is submitted, when its
// input (a parent's output too) is in place.
func (p *Policy) JobSubmitted(ctx *engine.Context, j engine.JobID) {
	p.gen++
	p.state(ctx, j)
}

// JobFinished moves the later jobs' flows up a class under job_fifo, and
// drops what the job's placement followed.
func (p *Policy) JobFinished(ctx *engine.Context, j engine.JobID) {
	p.net.Remark(ctx)
	if int(j) < len(p.jobs) {
		p.jobs[j].outOn = nil
		clear(p.jobs[j].preferred)
	}
}

// AttemptEnded gives back the quota of a reducer that did not succeed:
// its rerun may take the place again. Its job held a container until now
// (SW-6's clock).
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	p.gen++
	s := p.state(ctx, a.Task.Job)
	s.lastServed = ctx.Now()
	if p.cfg.MapHosts == "output" && a.Outcome == engine.AttemptSucceeded {
		// the hook comes before the engine finishes the task with the
		// attempt's output (ShuffleWatcher chooses no output: the first
		// attempt to succeed wins); a task already done lost a race
		job := ctx.Job(a.Task.Job)
		if job.Stages[a.Task.Stage].Spec.Kind == workload.Map && ctx.Task(a.Task).State != engine.TaskDone && len(a.OutputReplicas) > 0 {
			if s.outOn == nil {
				s.outOn = map[cluster.HostID]int64{}
			}
			s.outOn[a.OutputReplicas[0].Host] += a.OutputBytes
		}
	}
	r, ok := p.charged[a.ID]
	if !ok {
		return
	}
	delete(p.charged, a.ID)
	if a.Outcome == engine.AttemptSucceeded {
		return
	}
	if q := p.state(ctx, a.Task.Job).quota[int(a.Task.Stage)]; q != nil {
		q[r]++
	}
}

// block is one map input block: its bytes and the racks with a replica.
type block struct {
	bytes int64
	racks []cluster.RackID
}

// planMapRacks is SW-1 (or corral.md's single rack).
func (p *Policy) planMapRacks(ctx *engine.Context, job *engine.Job) []bool {
	topo := ctx.Topology()
	nr := len(topo.Racks)
	if p.cfg.MapRacks == "all" {
		all := make([]bool, nr)
		for r := range all {
			all[r] = true
		}
		return all
	}
	var blocks []block
	var in, out int64
	shuffled := false
	for _, st := range job.Stages {
		if st.Spec.Kind != workload.Map {
			shuffled = true
			continue
		}
		var stIn int64
		for i := range st.Tasks {
			ref := engine.TaskRef{Job: job.ID, Stage: int16(st.Index), Index: int32(i)}
			b := block{bytes: st.Tasks[i].InputBytes}
			for _, rep := range ctx.Replicas(ref) {
				if r := topo.RackOf(rep.Host); !slices.Contains(b.racks, r) {
					b.racks = append(b.racks, r)
				}
			}
			if p.cfg.MapRacks == "single" {
				b.bytes = 1 // corral.md §4.2 counts chunks
			}
			blocks = append(blocks, b)
			stIn += st.Tasks[i].InputBytes
		}
		in += stIn
		if st.Spec.OutputBytes > 0 {
			out += st.Spec.OutputBytes
		} else {
			out += int64(float64(stIn) * st.Spec.Selectivity)
		}
	}
	live := make([]bool, nr)
	nLive := 0
	for r := range topo.Racks {
		if live[r] = rackLive(ctx, r); live[r] {
			nLive++
		}
	}
	sigma := 0.0
	if in > 0 && shuffled {
		sigma = float64(out) / float64(in)
	}
	chosen := make([]bool, nr)
	covered := make([]bool, len(blocks))
	var total int64
	for _, b := range blocks {
		total += b.bytes
	}
	remote := total
	best, bestCost := 0, math.Inf(1)
	var picks []cluster.RackID
	for k := 1; k <= nLive; k++ { // a rack with no live host runs nothing
		gain := make([]int64, nr)
		for bi, b := range blocks {
			if covered[bi] {
				continue
			}
			for _, r := range b.racks {
				if !chosen[r] {
					gain[r] += b.bytes
				}
			}
		}
		add := -1
		for r := 0; r < nr; r++ {
			if live[r] && !chosen[r] && (add < 0 || gain[r] > gain[add]) {
				add = r
			}
		}
		chosen[add] = true
		picks = append(picks, cluster.RackID(add))
		for bi, b := range blocks {
			for _, r := range b.racks {
				if int(r) == add {
					covered[bi] = true
				}
			}
		}
		remote -= gain[add]
		cost := float64(remote) + sigma*float64(in)*(1-1/float64(k))
		if cost < bestCost { // ties → smaller k
			best, bestCost = k, cost
		}
		if p.cfg.MapRacks == "single" || remote == 0 {
			break // more racks only add shuffle cost
		}
	}
	racks := make([]bool, nr)
	for _, r := range picks[:best] {
		racks[r] = true
	}
	return racks
}

// OfferHost implements engine.HostScheduler: SW-3 with the SW-6 guard.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	rack := ctx.Topology().RackOf(h)
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		// most offers find nothing allowed on the rack (SW-1, SW-2 leave
		// slots idle): say so before sorting the jobs
		if p.nothingFor(ctx, rack) {
			return
		}
		p.order = p.jobOrder(ctx)
		if !p.assign(ctx, h) {
			return // nothing may run here: the slot stays idle
		}
	}
}

// nothingFor is !anythingFor, memoised per rack until the state changes.
func (p *Policy) nothingFor(ctx *engine.Context, rack cluster.RackID) bool {
	if len(p.idle) != len(ctx.Topology().Racks) {
		p.idle = make([]stamp, len(ctx.Topology().Racks))
	}
	now := stamp{gen: p.gen, pending: ctx.PendingTasks(), pool: ctx.Offering(), valid: true}
	if p.idle[rack] == now {
		return true
	}
	if p.anythingFor(ctx, rack) {
		return false
	}
	p.idle[rack] = now
	return true
}

// StageReleased marks a change: reducers may have become runnable.
func (p *Policy) StageReleased(*engine.Context, engine.JobID, int) { p.gen++ }

// HostLost marks a change: lost outputs are queued to rerun, and no job's
// map output is on the host any more. A job whose map racks have no live
// host left has its racks chosen again among the live ones, and a reduce
// quota with room only where no host lives is split again when next
// needed: else the job would wait for racks that are gone.
func (p *Policy) HostLost(ctx *engine.Context, h cluster.HostID) {
	p.gen++
	for i := range p.jobs {
		s := &p.jobs[i]
		delete(s.outOn, h)
		clear(s.preferred) // found again when the reruns are done
		if !s.planned || ctx.Job(engine.JobID(i)).State != engine.JobRunning {
			continue
		}
		live := false
		for r, ok := range s.mapRacks {
			live = live || ok && rackLive(ctx, r)
		}
		if !live {
			s.mapRacks = p.planMapRacks(ctx, ctx.Job(engine.JobID(i)))
		}
		for stage, q := range s.quota {
			room, liveRoom := false, false
			for r, n := range q {
				room = room || n > 0
				liveRoom = liveRoom || (n > 0 && rackLive(ctx, r))
			}
			if room && !liveRoom {
				delete(s.quota, stage)
			}
		}
		for stage, r := range s.preferredRack {
			if r >= 0 && !rackLive(ctx, int(r)) {
				delete(s.preferredRack, stage)
			}
		}
	}
}

// NetworkMeasured implements engine.NetworkMeasuredHook: SW2's EMA of
// each host's NIC receive utilisation takes in every measurement; the
// first one starts it.
func (p *Policy) NetworkMeasured(ctx *engine.Context) {
	if p.cfg.Network == "rack" || p.cfg.Network == "global" {
		p.mon.Add(ctx.Now(), ctx.Network())
	}
	if p.cfg.Network != "host" {
		return
	}
	n, topo := ctx.Network(), ctx.Topology()
	if len(p.rxUtil) != len(topo.Hosts) {
		p.rxUtil = make([]float64, len(topo.Hosts))
	}
	alpha := p.cfg.RxEMAAlpha
	if !p.rxSeen {
		alpha, p.rxSeen = 1, true
	}
	for h := range p.rxUtil {
		u := 0.0
		if nic := topo.Hosts[h].NICBps; nic > 0 && h < len(n.HostRxBps) {
			u = n.HostRxBps[h] / nic
		}
		p.rxUtil[h] = alpha*u + (1-alpha)*p.rxUtil[h]
	}
}

// anythingFor reports whether some job may start a task in the rack: a
// pending map with the rack among its map racks, or a releasable reducer
// whose quota has room there.
func (p *Policy) anythingFor(ctx *engine.Context, rack cluster.RackID) bool {
	for _, j := range ctx.Running() {
		if j.Pending == 0 {
			continue
		}
		if p.state(ctx, j.ID).mapRacks[rack] && ctx.PendingMaps(j.ID) > 0 {
			return true
		}
		if t, ok := ctx.NextPendingShuffle(j.ID); ok && ctx.CanRun(t) && p.reduceAllowed(ctx, j, t, rack) {
			return true
		}
	}
	return false
}

func (p *Policy) jobOrder(ctx *engine.Context) []*engine.Job {
	if p.cfg.Order == "fair" {
		return fair.Order(ctx, p.order)
	}
	buf := p.order[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 {
			buf = append(buf, j)
		}
	}
	sort.SliceStable(buf, func(a, b int) bool { return engine.OrderFIFO.Less(buf[a], buf[b]) })
	return buf
}

func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) bool {
	p.offer++
	sat := p.saturated(ctx, h)
	p.note.Saturation = engine.Unsaturated
	switch {
	case p.cfg.Network == "off":
		p.note.Saturation = engine.SaturationUnknown // it does not look
	case sat:
		p.note.Saturation = engine.Saturated
	}
	if j := p.starving(ctx); j != nil {
		p.note.Reason = ReasonStarved
		if p.tryReduce(ctx, h, j) || p.tryMap(ctx, h, j) {
			return true
		}
	}
	if p.cfg.Pick == "job" {
		return p.jobFirst(ctx, h, sat)
	}
	if sat {
		p.note.Reason = ReasonMapsFirst
		return p.anyMap(ctx, h) || p.anyReduce(ctx, h)
	}
	p.note.Reason = ReasonReducesFirst
	return p.anyReduce(ctx, h) || p.anyMap(ctx, h)
}

// starving is SW-6: the first job, in order, below its fair share of the
// slots that has had no container for longer than T_fair. A job holding
// one now is not; one holding none has had none since lastServed, the
// end of its last attempt (or its submission). Counting from its last
// launch instead would take a job whose last map started long ago for
// starved the moment its reducers are released.
func (p *Policy) starving(ctx *engine.Context) *engine.Job {
	if p.cfg.StarvationSeconds <= 0 || len(p.order) == 0 {
		return nil
	}
	share := float64(ctx.TotalSlots()) / float64(len(p.order))
	for _, j := range p.order {
		if j.Running > 0 {
			continue
		}
		s := p.state(ctx, j.ID)
		if float64(j.Running) < share && float64(ctx.Now()-s.lastServed) > p.cfg.StarvationSeconds {
			return j
		}
	}
	return nil
}

func (p *Policy) saturated(ctx *engine.Context, h cluster.HostID) bool {
	n := ctx.Network()
	theta := p.cfg.Threshold
	if theta == 0 {
		theta = n.SaturationThreshold
	}
	topo := ctx.Topology()
	up, down := p.mon.Loads(ctx.Now(), n)
	rackSat := func(r cluster.RackID) bool { return netmon.RackLoad(up, down, int(r)) >= theta }
	switch p.cfg.Network {
	case "rack":
		return rackSat(topo.RackOf(h))
	case "host":
		return int(h) < len(p.rxUtil) && p.rxUtil[h] >= theta
	case "global":
		for r := range topo.Racks {
			if rackSat(cluster.RackID(r)) {
				return true
			}
		}
	}
	return false
}

// jobFirst is pick=job (pushbox.md §4.3 SW1-SW3): the jobs in order, each
// with its reducer if it has one to start here, unless the network is
// saturated: then a map takes the slot, the job's own or the next jobs',
// and the reducer only if no map can.
func (p *Policy) jobFirst(ctx *engine.Context, h cluster.HostID, sat bool) bool {
	for i, j := range p.order {
		if t, ok := ctx.NextPendingShuffle(j.ID); ok && ctx.CanRun(t) && p.reduceAllowed(ctx, j, t, ctx.Topology().RackOf(h)) {
			if !sat {
				p.note.Reason = ReasonReducesFirst
				if p.tryReduce(ctx, h, j) {
					return true
				}
			} else {
				p.note.Reason = ReasonMapsFirst
				for _, k := range p.order[i:] {
					if p.tryMap(ctx, h, k) {
						return true
					}
				}
				if p.tryReduce(ctx, h, j) {
					return true
				}
			}
		}
		p.note.Reason = ReasonMapsFirst
		if p.tryMap(ctx, h, j) {
			return true
		}
	}
	return false
}

func (p *Policy) anyMap(ctx *engine.Context, h cluster.HostID) bool {
	for _, j := range p.order {
		if p.tryMap(ctx, h, j) {
			return true
		}
	}
	return false
}

func (p *Policy) anyReduce(ctx *engine.Context, h cluster.HostID) bool {
	for _, j := range p.order {
		if p.tryReduce(ctx, h, j) {
			return true
		}
	}
	return false
}

// tryMap launches one of j's maps on h if h's rack is one of j's map
// racks: node-local, then rack-local, then remote (SW-3), as far as its
// delay-scheduling skips allow; a job that declines counts a skip.
func (p *Policy) tryMap(ctx *engine.Context, h cluster.HostID, j *engine.Job) bool {
	s := p.state(ctx, j.ID)
	if !s.mapRacks[ctx.Topology().RackOf(h)] {
		return false
	}
	allowed := p.allowedLocality(ctx, s)
	t, level, ok := p.mapNearOutput(ctx, j, s, h)
	if !ok {
		t, level, ok = ctx.PickMap(j.ID, h, allowed)
	}
	if !ok {
		if allowed < engine.Remote && ctx.PendingMaps(j.ID) > 0 && s.skippedAt != p.offer {
			s.skips++
			s.skippedAt = p.offer
		}
		return false
	}
	if !p.launch(ctx, h, j, t, false) {
		return false
	}
	if level == engine.NodeLocal {
		p.jobs[j.ID].skips = 0
	}
	return true
}

// mapNearOutput is map_hosts=output (SW4) on a host holding none of
// job j's map output while others do: the first of j's maps node-local
// to h whose input has no replica on a host that does. ok is false when
// the rule does not apply or no such map is pending: then locality alone
// decides.
func (p *Policy) mapNearOutput(ctx *engine.Context, j *engine.Job, s *jobState, h cluster.HostID) (engine.TaskRef, engine.Locality, bool) {
	if p.cfg.MapHosts != "output" || len(s.outOn) == 0 || s.outOn[h] > 0 {
		return engine.TaskRef{}, 0, false
	}
	if _, ok := ctx.NextNodeLocal(j.ID, h); !ok {
		return engine.TaskRef{}, 0, false
	}
	p.pending = ctx.Pending(j.ID, p.pending[:0])
	for _, t := range p.pending {
		if j.Stages[t.Stage].Spec.Kind != workload.Map {
			continue
		}
		here, elsewhere := false, false
		for _, rep := range ctx.Replicas(t) {
			here = here || rep.Host == h
			elsewhere = elsewhere || s.outOn[rep.Host] > 0
		}
		if here && !elsewhere {
			return t, engine.NodeLocal, true
		}
	}
	return engine.TaskRef{}, 0, false
}

// delays returns the skip budgets, NodeDelay·M and RackDelay·M, with
// map_racks' defaults; ok is false without delay scheduling.
func (p *Policy) delays(ctx *engine.Context) (node, rack int, ok bool) {
	nd, rd := p.cfg.NodeDelay, p.cfg.RackDelay
	if nd == 0 && rd == 0 && p.cfg.MapRacks == "all" {
		nd, rd = 1, 2
	}
	if nd <= 0 && rd <= 0 {
		return 0, 0, false
	}
	nd, rd = max(nd, 0), max(rd, nd)
	m := float64(len(ctx.Topology().Hosts))
	return int(math.Ceil(nd * m)), int(math.Ceil(rd * m)), true
}

// allowedLocality is the farthest map job s may take now.
func (p *Policy) allowedLocality(ctx *engine.Context, s *jobState) engine.Locality {
	node, rack, ok := p.delays(ctx)
	switch {
	case !ok || s.skips >= rack:
		return engine.Remote
	case s.skips >= node:
		return engine.RackLocal
	}
	return engine.NodeLocal
}

// tryReduce launches j's next releasable reducer on h if its stage's
// quota has room on h's rack (SW-2) and its preferences allow h (SW5).
func (p *Policy) tryReduce(ctx *engine.Context, h cluster.HostID, j *engine.Job) bool {
	t, ok := ctx.NextPendingShuffle(j.ID)
	if !ok || !ctx.CanRun(t) {
		return false
	}
	r := ctx.Topology().RackOf(h)
	if !p.reduceAllowed(ctx, j, t, r) {
		return false
	}
	preferred, ok := p.reducePreference(ctx, j, int(t.Stage), h)
	if !ok {
		return false
	}
	q := p.quota(ctx, j, int(t.Stage))
	charge := q != nil && q[r] > 0
	if !p.launch(ctx, h, j, t, charge) {
		return false
	}
	if preferred {
		p.jobs[j.ID].reduceSkips = 0
	}
	return true
}

// reducePreference is SW5's "prefer nodes/racks holding the largest
// share of J's map output", as delay scheduling prefers a map's input:
// a reducer of the stage starts at once on a preferred host (one of the
// hosts holding the most output, under reduce_hosts=output) or, without
// host preferences, anywhere in the preferred rack (the one holding the
// most, under reduce_racks=largest). With both, another host of the
// preferred rack is taken once the job has declined node_delay·M offers
// for its reducers; any host once it has declined rack_delay·M (M and
// 2M when delay scheduling is off); with host preferences alone, any
// host after node_delay·M. A decline counts once an offer. preferred
// says h is where the reducer prefers to be; ok that it may start there.
func (p *Policy) reducePreference(ctx *engine.Context, j *engine.Job, stage int, h cluster.HostID) (preferred, ok bool) {
	var hosts []bool
	if p.cfg.ReduceHosts == "output" {
		hosts = p.preferredHosts(ctx, j, stage)
	}
	rack := cluster.RackID(-1)
	if p.cfg.ReduceRacks == "largest" {
		rack = p.preferredRack(ctx, j, stage)
	}
	if hosts == nil && rack < 0 {
		return false, true // no output to follow
	}
	inRack := rack >= 0 && rack == ctx.Topology().RackOf(h)
	if (hosts != nil && hosts[h]) || (hosts == nil && inRack) {
		return true, true
	}
	node, rackDelay, delay := p.delays(ctx)
	if !delay {
		node, rackDelay = len(ctx.Topology().Hosts), 2*len(ctx.Topology().Hosts)
	}
	budget := node
	if rack >= 0 && !inRack {
		budget = rackDelay
	}
	s := &p.jobs[j.ID]
	if s.reduceSkips >= budget {
		return false, true
	}
	if s.reduceSkippedAt != p.offer {
		s.reduceSkips++
		s.reduceSkippedAt = p.offer
	}
	return false, false
}

// preferredHosts returns the hosts a reduce stage's reducers prefer: the
// n holding the most of its upstream's output, n its reducers (fewer if
// fewer hold any), ties to the lower host; found when the stage is first
// considered (with SW-4, when every map is done). Nil: no output.
func (p *Policy) preferredHosts(ctx *engine.Context, j *engine.Job, stage int) []bool {
	s := p.state(ctx, j.ID)
	if pref, ok := s.preferred[stage]; ok {
		return pref
	}
	hosts := len(ctx.Topology().Hosts)
	onHost := make([]int64, hosts)
	st := j.Stages[stage]
	for _, up := range st.Spec.After {
		for _, us := range j.Stages {
			if us.Spec.Name != up {
				continue
			}
			for i := range us.Tasks {
				if t := &us.Tasks[i]; t.State == engine.TaskDone && t.OutputBytes > 0 && int(t.OutHost) < hosts {
					onHost[t.OutHost] += t.OutputBytes
				}
			}
		}
	}
	order := make([]int, 0, hosts)
	for h, b := range onHost {
		if b > 0 {
			order = append(order, h)
		}
	}
	var pref []bool
	if len(order) > 0 {
		sort.SliceStable(order, func(a, b int) bool { return onHost[order[a]] > onHost[order[b]] })
		pref = make([]bool, hosts)
		for _, h := range order[:min(len(order), len(st.Tasks))] {
			pref[h] = true
		}
	}
	s.preferred[stage] = pref
	return pref
}

// reduceAllowed reports whether reducer t may start in rack r: its
// stage's quota has room there, or there is no quota to follow (no map
// output, or reruns past it).
func (p *Policy) reduceAllowed(ctx *engine.Context, j *engine.Job, t engine.TaskRef, r cluster.RackID) bool {
	if !upstreamDone(j, int(t.Stage)) {
		// SW-4 whatever slow-start the run set: an early reducer would
		// hold a slot of a rack its job's maps may be confined to
		return false
	}
	q := p.quota(ctx, j, int(t.Stage))
	if q == nil || q[r] > 0 {
		return true
	}
	for rk, n := range q {
		if n > 0 && rackLive(ctx, rk) {
			return false
		}
	}
	// reruns past the quota go anywhere, and so do reducers whose room is
	// left only in racks with no live host
	return true
}

// rackLive reports whether some host of rack r is alive.
func rackLive(ctx *engine.Context, r int) bool {
	for _, h := range ctx.Topology().Racks[r].Hosts {
		if ctx.Alive(h) {
			return true
		}
	}
	return false
}

func (p *Policy) launch(ctx *engine.Context, h cluster.HostID, j *engine.Job, t engine.TaskRef, charge bool) bool {
	id, err := ctx.Launch(t, h, engine.LaunchOptions{Note: p.note, Priority: p.net.Class(ctx, j.ID)})
	if err != nil {
		return false
	}
	if charge {
		r := ctx.Topology().RackOf(h)
		p.jobs[j.ID].quota[int(t.Stage)][r]--
		p.charged[id] = r
	}
	return true
}

// quota returns the reducers of a stage still to start per rack, split
// when the stage is first considered (with SW-4, when every map is done).
// Nil means no quota to follow: the upstream wrote nothing, or, under
// reduce_racks=largest, the reducers prefer a rack (preferredRack)
// rather than being held to one.
func (p *Policy) quota(ctx *engine.Context, j *engine.Job, stage int) []int {
	if p.cfg.ReduceRacks == "largest" {
		return nil
	}
	s := p.state(ctx, j.ID)
	if q, ok := s.quota[stage]; ok {
		return q
	}
	st := j.Stages[stage]
	inter, total := p.outputByRack(ctx, j, stage)
	var q []int
	if total > 0 {
		q = make([]int, len(inter))
		n := len(st.Tasks)
		switch p.cfg.ReduceRacks {
		case "proportional":
			q = largestRemainder(inter, total, n)
		case "map_racks":
			// every map rack may take any number: the confinement is the point
			for r, ok := range s.mapRacks {
				if ok {
					q[r] = n
				}
			}
		}
	}
	s.quota[stage] = q
	return q
}

// preferredRack is the rack holding most of a reduce stage's map output
// (-1: its upstream wrote nothing), found when the stage is first
// considered and again if that rack loses its last host.
func (p *Policy) preferredRack(ctx *engine.Context, j *engine.Job, stage int) cluster.RackID {
	s := p.state(ctx, j.ID)
	if r, ok := s.preferredRack[stage]; ok {
		return r
	}
	r := cluster.RackID(-1)
	if inter, total := p.outputByRack(ctx, j, stage); total > 0 {
		r = cluster.RackID(argmax(inter))
	}
	s.preferredRack[stage] = r
	return r
}

// outputByRack is the output of the stages a stage shuffles from, per
// rack, and its total.
func (p *Policy) outputByRack(ctx *engine.Context, j *engine.Job, stage int) (inter []int64, total int64) {
	inter = make([]int64, len(ctx.Topology().Racks))
	for _, up := range j.Stages[stage].Spec.After {
		for _, us := range j.Stages {
			if us.Spec.Name != up {
				continue
			}
			p.buf = ctx.StageOutputByRack(j.ID, us.Index, p.buf[:0])
			for r, b := range p.buf {
				inter[r] += b
				total += b
			}
		}
	}
	return inter, total
}

// largestRemainder splits n over racks in proportion to w (which sums to
// total), floors first, then the largest remainders, ties to the lower rack.
func largestRemainder(w []int64, total int64, n int) []int {
	q := make([]int, len(w))
	rem := make([]float64, len(w))
	given := 0
	for r, b := range w {
		exact := float64(n) * float64(b) / float64(total)
		q[r] = int(exact)
		rem[r] = exact - float64(q[r])
		given += q[r]
	}
	idx := make([]int, len(w))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return rem[idx[a]] > rem[idx[b]] })
	for i := 0; given < n; i++ {
		q[idx[i]]++
		given++
	}
	return q
}

func argmax(w []int64) int {
	best := 0
	for r, b := range w {
		if b > w[best] {
			best = r
		}
	}
	return best
}

// upstreamDone reports whether every task of the stages a stage shuffles
// from is done.
func upstreamDone(j *engine.Job, stage int) bool {
	for _, up := range j.Stages[stage].Spec.After {
		for _, us := range j.Stages {
			if us.Spec.Name == up && us.Done < len(us.Tasks) {
				return false
			}
		}
	}
	return true
}
