package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Options configure a simulation.
type Options struct {
	// Heartbeat is how often hosts with free slots are offered again while
	// work is pending (seconds). Default 1.
	Heartbeat float64
	// FetchPoll, when positive, is how often an idle reducer looks for
	// new map outputs (seconds), as Hadoop's reducers poll for map
	// completion events. 0, the default, is the live cluster's model: the
	// coordinator sends a reducer its new sources as soon as the engine
	// reports them (Ready.Shuffles), and the worker fetches them at once,
	// so a reducer hears of an output the instant its map ends. (A 2 s
	// poll made reducers that ran out of work wait up to 2 s for outputs
	// the live workers fetch at once: docs/fidelity.md.)
	FetchPoll float64
	// FullRecompute is how often (seconds) flow rates are recomputed
	// exactly over every connected flow; between, a flow's start or end
	// re-shares only the bottlenecked flows that share a resource with it.
	// 0 gives 10 s; a negative value recomputes exactly at every change.
	// NetworkVarys ignores it: it recomputes exactly at every change.
	FullRecompute float64
	// Network is how flows share the network: NetworkMaxMin ("maxmin",
	// the default when empty), max-min fair within strict priority
	// classes as TCP would roughly share; or NetworkVarys ("varys"),
	// coflow-aware (Varys, SIGCOMM'14): each stage's shuffle is one coflow,
	// served smallest-effective-bottleneck-first, see varys.go.
	Network string
	// Fetchers is how many source racks a reducer fetches from at once.
	// Default 5, Hadoop's mapreduce.reduce.shuffle.parallelcopies.
	Fetchers int
	// Sample is the period of link-load samples (seconds). By default it
	// adapts to the run: a thousandth of the span of its arrivals, between
	// 0.1 s and 10 s. It doubles, and the samples so far are averaged in
	// pairs, whenever a run's samples reach the budget of MaxLinkRows rows.
	// Sampling is a measurement: it never makes the engine schedule.
	Sample float64
	// Resolution is the simulator's time step (seconds): events are
	// rounded up to a multiple of it, so that the events of one step share
	// one rate computation. Default 0.01; smaller is slower and finer.
	Resolution float64
	// NetworkWindow is how often, and over how long, the network status
	// handed to the engine is averaged (seconds); default
	// engine.NetworkWindow, the live driver's period.
	NetworkWindow float64
	// Background is the share of every rack link's capacity that
	// background traffic holds: the workload's flows share the rest. The
	// engine still sees the links' nominal capacities, and the network
	// status counts the background, as the live cluster's counters do.
	Background float64
	// MaxSimTime stops a run that has not finished by then (seconds),
	// with Result.Stalled; 0: the bound TimeBound derives from the
	// workload. With a Window it must not be below it.
	MaxSimTime float64
	// Window is the experiment window (seconds of simulated time; 0:
	// none). A run still going at the window stops there cleanly, with
	// Result.Cut: the attempts running then are recorded with outcome
	// "cut" (engine.AttemptCut) and the jobs not ended with state
	// "unfinished" (engine.Engine.Cut), and the link counters hold what
	// moved up to the window. A run that ends before it ends as without
	// one. The derived time bound (MaxSimTime 0) still applies: when it
	// is below the window, a run that reaches it has done worse than its
	// whole work run serially ten times over after the last arrival, and
	// is stopped with an error, as without a window.
	Window float64
	// StallTimeout ends, with Result.Stalled and a reason naming the jobs
	// left, a run in which nothing has happened for this long (simulated
	// seconds): jobs left, no attempt running, and no job yet to arrive
	// (or no free slot for one), so that only heartbeats come and the
	// policy leaves the free slots idle at every one. 0 gives
	// DefaultStallTimeout; negative: no watchdog (the time bound still
	// applies).
	StallTimeout float64
	// Sink receives the run's records as they happen; nil drops them.
	Sink Sink
	// Progress, when set, is called with the simulated time and the
	// number of finished jobs when a job finishes, and every
	// progressEvery turns of the event loop between, so that a run whose
	// jobs take long (a slow tier, a huge input) still shows its
	// simulated time moving; bound is the simulated time at which the run
	// stops as stalled. It is called often: a caller that prints rations
	// itself by wall time.
	Progress func(now, bound float64, jobsDone, jobs int)
	// Cancel, when closed, stops the run with ErrCancelled.
	Cancel <-chan struct{}
}

// DefaultStallTimeout is the default Options.StallTimeout, in simulated
// seconds: an hour of heartbeats with nothing running, far longer than
// any locality wait, as the live driver's watchdog is (live.DefaultStallTimeout).
const DefaultStallTimeout = 3600

// ErrCancelled is what Run returns when Options.Cancel is closed.
var ErrCancelled = errors.New("simulation cancelled")

// Sink receives what a run records, as it happens.
type Sink interface {
	Attempt(r *engine.AttemptRecord) error
	Job(r *engine.JobRecord) error
	// LinkSample gives the utilisation (0..1) of every rack's uplink and
	// downlink over the sample period that ends at t.
	LinkSample(t float64, up, down []float64) error
}

// Result is what a finished simulation measured beyond the records.
type Result struct {
	SimTime float64
	Events  int64
	// UplinkBytes and DownlinkBytes are the bytes each rack link carried,
	// the simulator's equivalent of kernel counters: those of the flows
	// that ended, and, in a run cut at its window, what the flows still
	// running had carried by then.
	UplinkBytes   []float64
	DownlinkBytes []float64
	Stalled       bool
	StallReason   string
	// Cut says the run stopped at Options.Window with work left.
	Cut bool
}

type phase uint8

const (
	phaseRead phase = iota
	phaseFetch
	phaseCompute
	phaseWrite
	phaseDone
)

// run is an attempt being executed by the simulator.
type run struct {
	a         *engine.Attempt
	kind      workload.StageKind
	phase     phase
	flows     []*flow
	active    int
	dead      bool
	fetched   []int64 // per source rack, reduce only
	fetchedLo int64   // from the attempt's own host
	busyRack  []bool  // source racks being fetched from now
	fetchers  int     // fetch flows running
	cursor    int     // next source rack to serve
	avail     []int64 // upstream bytes for this reducer per rack
	availLo   int64   // the part on its own host
	stale     bool    // the engine said the upstream outputs changed
	availFix  bool    // avail was read with the input fixed: all of it
	waiting   bool    // idle reducer with a poll timer set
	received  int64   // input bytes fetched by flows that have ended
	coflow    *coflow // NetworkVarys: the shuffle its fetches belong to
	compute   float64 // ns per byte
}

type timerKind uint8

const (
	timerCompute timerKind = iota
	timerPoll
	timerHeartbeat
	timerSample
	timerNetwork // the network status handed to the engine, every window
)

type timer struct {
	t    float64
	seq  int64
	kind timerKind
	r    *run
}

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(a, b int) bool {
	if h[a].t != h[b].t {
		return h[a].t < h[b].t
	}
	return h[a].seq < h[b].seq
}
func (h timerHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Sim drives an engine with modelled time and a flow-level network.
type Sim struct {
	opt    Options
	eng    *engine.Engine
	topo   *cluster.Topology
	net    *network
	timers timerHeap
	seq    int64
	now    float64
	runs   map[engine.AttemptID]*run
	events int64

	hbPending  bool
	inputsDone int64 // reducers' InputDone calls, to see them in step
	acted      bool  // this instant had an event other than a link sample

	// resource indexes
	nicOut, nicIn    []int32
	tierRd, tierWr   [][cluster.NumTierKinds]int32
	uplink, downlink []int32
	core             int32
	interTier        []cluster.TierKind
	lastUp, lastDown []float64
	lastSample       float64
	samplePeriod     float64      // Options.Sample, doubled at each merge
	samples          []linkSample // kept until the run ends
	sampleBudget     int
	timeBound        float64 // Options.MaxSimTime or TimeBound
	boundDerived     bool
	optErr           error                 // from Options.Validate, returned by Run
	coflows          map[coflowKey]*coflow // NetworkVarys: each fetching stage's shuffle
	lastFull         float64
	idleSince        float64 // when the run last went idle (watchdog); -1: busy

	// network status: bytes carried at the start of the current window,
	// per rack link and host NIC, and the status handed to the engine
	netT0            float64
	netUp0, netDown0 []float64
	netRx0           []float64
	netCrossRx0      []float64
	netStatus        engine.NetworkStatus
	netResting       bool // no network timer is set: nothing moves
}

// New prepares a simulation of an engine's workload on its topology.
func New(eng *engine.Engine, opt Options) *Sim {
	optErr := opt.Validate()
	if optErr == nil {
		optErr = checkBackground(eng.Topology(), opt.Background)
	}
	if opt.Heartbeat <= 0 {
		opt.Heartbeat = 1
	}
	if opt.Fetchers <= 0 {
		opt.Fetchers = 5
	}
	if opt.FullRecompute == 0 {
		opt.FullRecompute = 10
	}
	if opt.StallTimeout == 0 {
		opt.StallTimeout = DefaultStallTimeout
	}
	if opt.Resolution <= 0 {
		opt.Resolution = 0.01
	}
	if opt.Sample <= 0 {
		opt.Sample = samplePeriodFor(eng)
	}
	if opt.NetworkWindow <= 0 {
		opt.NetworkWindow = engine.NetworkWindow
	}
	t := eng.Topology()
	s := &Sim{opt: opt, eng: eng, topo: t, runs: map[engine.AttemptID]*run{}, core: -1, optErr: optErr, idleSince: -1,
		samplePeriod: opt.Sample, sampleBudget: linkSampleBudget(len(t.Racks)), timeBound: opt.MaxSimTime}
	if optErr == nil && s.timeBound == 0 {
		s.timeBound, s.optErr = TimeBound(eng, opt)
		s.boundDerived = true
	}
	var caps []float64
	add := func(c float64) int32 {
		caps = append(caps, c)
		return int32(len(caps) - 1)
	}
	s.nicOut = make([]int32, len(t.Hosts))
	s.nicIn = make([]int32, len(t.Hosts))
	s.tierRd = make([][cluster.NumTierKinds]int32, len(t.Hosts))
	s.tierWr = make([][cluster.NumTierKinds]int32, len(t.Hosts))
	s.interTier = make([]cluster.TierKind, len(t.Hosts))
	for i := range t.Hosts {
		h := &t.Hosts[i]
		s.nicOut[i] = add(h.NICBps)
		s.nicIn[i] = add(h.NICBps)
		for k := range s.tierRd[i] {
			s.tierRd[i][k], s.tierWr[i][k] = -1, -1
		}
		for _, tr := range h.Tiers {
			s.tierRd[i][tr.Kind] = add(tr.ReadBps)
			s.tierWr[i][tr.Kind] = add(tr.WriteBps)
		}
		s.interTier[i] = eng.IntermediateTier(cluster.HostID(i))
	}
	s.uplink = make([]int32, len(t.Racks))
	s.downlink = make([]int32, len(t.Racks))
	for i := range t.Racks {
		s.uplink[i] = add(t.Racks[i].UplinkBps * (1 - opt.Background))
		s.downlink[i] = add(t.Racks[i].DownlinkBps * (1 - opt.Background))
	}
	if t.CoreBps > 0 {
		s.core = add(t.CoreBps)
	}
	s.net = newNetwork(caps)
	// what each host receives from other racks (NetworkStatus.HostCrossRxBps)
	s.net.counters = make([]counter, len(t.Hosts))
	if opt.Network == NetworkVarys {
		s.net.coflows = true
		s.coflows = map[coflowKey]*coflow{}
	}
	s.lastUp = make([]float64, len(t.Racks))
	s.lastDown = make([]float64, len(t.Racks))
	s.netUp0, s.netDown0 = make([]float64, len(t.Racks)), make([]float64, len(t.Racks))
	s.netRx0, s.netCrossRx0 = make([]float64, len(t.Hosts)), make([]float64, len(t.Hosts))
	s.netStatus = engine.NetworkStatus{UplinkLoad: make([]float64, len(t.Racks)), DownlinkLoad: make([]float64, len(t.Racks)),
		HostRxBps: make([]float64, len(t.Hosts)), HostCrossRxBps: make([]float64, len(t.Hosts)), Window: opt.NetworkWindow}
	for r := range t.Racks {
		// an idle network carries the background alone
		s.netStatus.UplinkLoad[r], s.netStatus.DownlinkLoad[r] = opt.Background, opt.Background
	}
	eng.SetNetwork(s.netStatus)
	return s
}

func (s *Sim) addTimer(t float64, k timerKind, r *run) {
	s.seq++
	heap.Push(&s.timers, timer{t: t, seq: s.seq, kind: k, r: r})
}

// Run simulates until every job has finished, or nothing more can happen.
func (s *Sim) Run() (res *Result, err error) {
	if s.optErr != nil {
		return nil, s.optErr
	}
	defer func() {
		if ferr := s.flushSamples(); err == nil && ferr != nil {
			res, err = nil, ferr
		}
	}()
	res = &Result{}
	s.addTimer(s.samplePeriod, timerSample, nil)
	s.netResting = true // until the first attempt starts
	if err := s.step(); err != nil {
		return nil, err
	}
	for iter := 0; !s.eng.Done(); iter++ {
		if s.opt.Cancel != nil && iter%1024 == 0 {
			select {
			case <-s.opt.Cancel:
				return nil, ErrCancelled
			default:
			}
		}
		if s.opt.Progress != nil && iter%progressEvery == progressEvery-1 {
			s.opt.Progress(s.now, s.timeBound, s.eng.JobsFinished(), len(s.eng.Jobs()))
		}
		next, arrivalAt := math.Inf(1), math.Inf(1)
		if t, ok := s.eng.NextArrival(); ok {
			next, arrivalAt = t, t
		}
		if t, _ := s.net.nextFinish(); t < next {
			next = t
		}
		// measurement timers alone do not keep a finished or stuck run going
		for len(s.timers) > 0 && s.timers[0].kind >= timerSample && !s.busy() && math.IsInf(next, 1) {
			heap.Pop(&s.timers)
		}
		if len(s.timers) > 0 && s.timers[0].t < next {
			next = s.timers[0].t
		}
		if math.IsInf(next, 1) {
			res.Stalled = true
			res.StallReason = fmt.Sprintf("no event left at t=%.3fs with %d tasks pending and %d attempts running", s.now, s.eng.Pending(), len(s.runs)) + s.stallDetails()
			break
		}
		if w := s.opt.Window; w > 0 && s.roundUp(next) > w {
			// the next event falls after the window: stop at the window
			if err := s.cut(); err != nil {
				return nil, err
			}
			res.Cut = true
			break
		}
		if next > s.timeBound {
			res.Stalled = true
			if s.boundDerived {
				res.StallReason = fmt.Sprintf("simulated time passed %.0fs, the bound derived from the workload (last arrival + %d × its work done serially through the slowest resource + %ds); raise it with --max-sim-time or the campaign's limits: max_sim_time_s",
					s.timeBound, TimeBoundSafety, TimeBoundSlackS)
			} else {
				res.StallReason = fmt.Sprintf("simulated time limit %.0fs reached", s.timeBound)
			}
			res.StallReason += s.stallDetails()
			break
		}
		if why, stalled := s.stalled(next); stalled {
			res.Stalled, res.StallReason = true, why
			break
		}
		// round up to the time step, so that nearby events share a step
		next = s.stepEnd(next, arrivalAt)
		if next > s.now {
			s.now = next
		}
		arrival, waiting := s.eng.NextArrival()
		if err := s.eng.Advance(s.now); err != nil {
			return nil, err
		}
		// only what changes the cluster's state makes the engine schedule:
		// an arrival, a flow's end, a timer of the work; not a sample
		after, still := s.eng.NextArrival()
		s.acted = waiting && (!still || after != arrival)
		if err := s.fireDue(); err != nil {
			return nil, err
		}
		if !s.acted {
			continue
		}
		if err := s.step(); err != nil {
			return nil, err
		}
	}
	s.recompute()
	for i := range s.net.res {
		s.net.settleRes(s.now, &s.net.res[i])
	}
	// a run cut at its window (or stopped as stalled) leaves flows
	// running: their bytes so far crossed the links, as a kernel counter
	// would have them
	s.net.countLive(s.now)
	res.SimTime = s.now
	res.Events = s.events
	res.UplinkBytes = make([]float64, len(s.topo.Racks))
	res.DownlinkBytes = make([]float64, len(s.topo.Racks))
	for r := range s.topo.Racks {
		res.UplinkBytes[r] = s.net.res[s.uplink[r]].moved
		res.DownlinkBytes[r] = s.net.res[s.downlink[r]].moved
	}
	return res, nil
}

// roundUp rounds a time up to the time step; a time within a millionth
// of a step above a step's end (float noise) rounds down to it.
func (s *Sim) roundUp(t float64) float64 {
	return math.Ceil(t/s.opt.Resolution-1e-6) * s.opt.Resolution
}

// stepEnd is the end of the step that the next event, at next, falls in:
// next rounded up to the time step. Flows and timers within a millionth
// of a step after the end are due in it (fireDue), float noise; but where
// rounding leaves the next event at now and it would not be handled
// there, the step ends at the event's own time: an arrival within that
// millionth (the engine releases a job only once its time has come), or
// any event where a millionth of a step is below a float's spacing at now
// (past 3·10⁴ s at a step of 1 µs, 7·10⁸ s at 10 ms). Before, the loop,
// finding the same event next, spun at now without end.
func (s *Sim) stepEnd(next, arrivalAt float64) float64 {
	end := s.roundUp(next)
	if end <= s.now && next > s.now && (next == arrivalAt || next > s.now+1e-6*s.opt.Resolution) {
		return next
	}
	return end
}

// cut stops the run at its window: the engine's clock moves to the
// window, and what is still running or left is recorded (Engine.Cut).
// The flows stay as they are, so that the link counters, settled at the
// window by Run, hold what they moved until then.
func (s *Sim) cut() error {
	s.now = max(s.now, s.opt.Window)
	if err := s.eng.Advance(s.now); err != nil {
		return err
	}
	attempts, jobs := s.eng.Cut()
	if s.opt.Sink == nil {
		return nil
	}
	for i := range attempts {
		if err := s.opt.Sink.Attempt(&attempts[i]); err != nil {
			return err
		}
	}
	for i := range jobs {
		if err := s.opt.Sink.Job(&jobs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sim) recompute() {
	full := s.opt.FullRecompute < 0 || s.now-s.lastFull >= s.opt.FullRecompute
	if full && len(s.net.dirty) > 0 {
		s.lastFull = s.now
	}
	s.net.recompute(s.now, full)
}

func (s *Sim) busy() bool { return len(s.runs) > 0 || s.eng.Pending() > 0 }

// fireDue handles every flow end and timer due now.
func (s *Sim) fireDue() error {
	for {
		t, f := s.net.nextFinish()
		if f == nil || t > s.now+1e-6*s.opt.Resolution {
			break
		}
		s.events++
		s.acted = true
		s.net.remove(s.now, f)
		r := f.owner
		r.active--
		switch {
		case s.gone(r):
		case r.phase == phaseFetch:
			if f.srcRack >= 0 {
				r.busyRack[f.srcRack] = false
				r.fetchers--
			}
			r.received += int64(f.size)
			if err := s.eng.Progress(r.a.ID, r.received); err != nil {
				return err
			}
			if err := s.fetch(r); err != nil {
				return err
			}
		case r.active == 0:
			if err := s.advance(r); err != nil {
				return err
			}
		}
	}
	for len(s.timers) > 0 && s.timers[0].t <= s.now+1e-6*s.opt.Resolution {
		tm := heap.Pop(&s.timers).(timer)
		s.events++
		switch tm.kind {
		case timerCompute:
			if !s.gone(tm.r) {
				if err := s.advance(tm.r); err != nil {
					return err
				}
			}
		case timerPoll:
			if !s.gone(tm.r) {
				tm.r.waiting = false
				if err := s.fetch(tm.r); err != nil {
					return err
				}
			}
		case timerHeartbeat:
			s.hbPending = false
		case timerSample:
			if err := s.sample(); err != nil {
				return err
			}
			s.addTimer(s.now+s.samplePeriod, timerSample, nil)
		case timerNetwork:
			// while the network is quiet the status stays as it is, and
			// the timer rests (a run may idle for days); a start wakes it
			if moved := s.updateNetworkStatus(); moved || len(s.runs) > 0 {
				s.addTimer(s.now+s.opt.NetworkWindow, timerNetwork, nil)
			} else {
				s.netResting = true
			}
		}
		// samples and network status are measurements: they alone are no
		// reason to schedule (the policy sees the status at its next
		// decision, as the live driver's does)
		if tm.kind < timerSample {
			s.acted = true
		}
	}
	return nil
}

// progressEvery is how many loop turns of Run pass between progress
// calls when no job finishes: a turn takes microseconds on a small
// cluster and milliseconds on thousands of hosts, so that a caller
// rationing its output by wall time still hears of the run every few
// seconds at most scales.
const progressEvery = 1 << 10

// gone reports whether a run's attempt has ended: cancelled, or ended by
// the engine since the last Ready (the loser of a duplicate race
// finishing at the same moment as the winner, or an attempt a policy's
// hook killed while the simulator reported another event of the same
// instant; its kill comes with the next Ready).
func (s *Sim) gone(r *run) bool { return r.dead || s.eng.Attempt(r.a.ID) == nil }

// step lets the engine schedule and carries out what it decided, until
// nothing more happens at this instant.
func (s *Sim) step() error {
	for i := 0; ; i++ {
		s.recompute()
		s.eng.Schedule()
		if err := s.eng.PolicyErr(); err != nil {
			return fmt.Errorf("the policy stopped the run at t=%.3fs: %w", s.now, err)
		}
		rd := s.eng.Ready()
		inputsDone := s.inputsDone
		if err := s.apply(&rd); err != nil {
			return err
		}
		// a reducer woken by rd.Shuffles may have told the engine its
		// input is done (a policy's hook may act on it): one more round
		// hands the driver what that changed
		if len(rd.Launches) == 0 && len(rd.Attempts) == 0 && s.inputsDone == inputsDone {
			break
		}
		if i > 1_000_000 {
			return fmt.Errorf("simulator livelock at t=%g", s.now)
		}
	}
	s.recompute()
	if !s.hbPending && s.eng.Pending() > 0 && s.eng.HasFreeSlot() {
		s.hbPending = true
		s.addTimer(s.now+s.opt.Heartbeat, timerHeartbeat, nil)
	}
	return nil
}

// updateNetworkStatus hands the engine the network as the live driver
// measures it, at the end of every window: every rack link's load averaged
// over the window as a fraction of the link's nominal capacity
// (background traffic included), and every host's receive rate.
// It reports whether any bytes moved in the window.
func (s *Sim) updateNetworkStatus() (moved bool) {
	dt := s.now - s.netT0
	if dt <= 0 {
		return false
	}
	bg := s.opt.Background
	for r := range s.topo.Racks {
		up, down := &s.net.res[s.uplink[r]], &s.net.res[s.downlink[r]]
		u, d := carried(s.now, up), carried(s.now, down)
		// the simulated link is what background traffic leaves of it
		s.netStatus.UplinkLoad[r] = bg + (1-bg)*(u-s.netUp0[r])/dt/up.capacity
		s.netStatus.DownlinkLoad[r] = bg + (1-bg)*(d-s.netDown0[r])/dt/down.capacity
		moved = moved || u != s.netUp0[r] || d != s.netDown0[r]
		s.netUp0[r], s.netDown0[r] = u, d
	}
	for h := range s.topo.Hosts {
		rx := carried(s.now, &s.net.res[s.nicIn[h]])
		s.netStatus.HostRxBps[h] = (rx - s.netRx0[h]) / dt
		moved = moved || rx != s.netRx0[h]
		s.netRx0[h] = rx
		x := s.net.counted(s.now, int32(h))
		s.netStatus.HostCrossRxBps[h] = (x - s.netCrossRx0[h]) / dt
		s.netCrossRx0[h] = x
	}
	s.netT0 = s.now
	s.eng.SetNetwork(s.netStatus)
	return moved
}

// snapshotNetwork notes the bytes every rack link and host NIC has
// carried by now: the start of a window.
func (s *Sim) snapshotNetwork() {
	for r := range s.topo.Racks {
		s.netUp0[r] = carried(s.now, &s.net.res[s.uplink[r]])
		s.netDown0[r] = carried(s.now, &s.net.res[s.downlink[r]])
	}
	for h := range s.topo.Hosts {
		s.netRx0[h] = carried(s.now, &s.net.res[s.nicIn[h]])
		s.netCrossRx0[h] = s.net.counted(s.now, int32(h))
	}
}

// carried is the bytes a resource has carried by now, without settling it
// (settling would change the floating-point sums behind the samples).
func carried(now float64, r *resource) float64 { return r.bytes + r.load*(now-r.lastT) }

func (s *Sim) apply(rd *engine.Ready) error {
	for _, id := range rd.Kills {
		if r := s.runs[id]; r != nil {
			s.cancel(r)
		}
	}
	for _, u := range rd.Shuffles {
		r := s.runs[u.Attempt]
		if r == nil {
			continue
		}
		r.stale = true
		if s.opt.FetchPoll > 0 || r.phase != phaseFetch || s.gone(r) {
			// polling: it sees the change at its next fetch or poll
			continue
		}
		// the live coordinator sends the reducer its new sources now
		// (live.updateShuffle), and the worker's free fetchers start on
		// them at once
		if err := s.fetch(r); err != nil {
			return err
		}
	}
	// rd.TierMoves need nothing here: the engine has moved the replica,
	// and the simulator does not model the copy's use of the tiers
	for _, id := range rd.Priorities {
		if r := s.runs[id]; r != nil {
			for _, f := range r.flows {
				if f.heapIdx >= 0 {
					s.net.setPriority(f, r.a.Priority)
				}
			}
		}
	}
	if sink := s.opt.Sink; sink != nil {
		for i := range rd.Attempts {
			if err := sink.Attempt(&rd.Attempts[i]); err != nil {
				return err
			}
		}
		for i := range rd.Jobs {
			if err := sink.Job(&rd.Jobs[i]); err != nil {
				return err
			}
		}
	}
	if s.opt.Progress != nil && len(rd.Jobs) > 0 {
		s.opt.Progress(s.now, s.timeBound, s.eng.JobsFinished(), len(s.eng.Jobs()))
	}
	for _, a := range rd.Launches {
		if s.eng.Attempt(a.ID) == nil {
			continue // launched and ended within the same engine calls
		}
		if err := s.start(a); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sim) cancel(r *run) {
	r.dead = true
	for _, f := range r.flows {
		if f.heapIdx >= 0 {
			s.net.remove(s.now, f)
		}
	}
	r.flows = nil
	delete(s.runs, r.a.ID)
}

func (s *Sim) start(a *engine.Attempt) error {
	if s.netResting {
		// the window starts now: what it averages is this run's traffic
		s.netResting = false
		s.netT0 = s.now
		s.snapshotNetwork()
		s.addTimer(s.now+s.opt.NetworkWindow, timerNetwork, nil)
	}
	kind, ns := s.eng.StageInfo(a.Task)
	r := &run{a: a, kind: kind, compute: ns}
	if kind != workload.Map && s.coflows != nil {
		r.coflow = s.coflowOf(a.Task)
	}
	s.runs[a.ID] = r
	if kind == workload.Map {
		r.phase = phaseRead
		if a.Source.Host >= 0 && a.InputBytes > 0 {
			f := s.flow(r, s.path(a.Source.Host, a.Host, s.tierRd[a.Source.Host][a.Source.Tier], -1), a.InputBytes)
			s.countCross(f, s.topo.RackOf(a.Source.Host), a.Host)
		}
		if r.active == 0 {
			return s.advance(r)
		}
		return nil
	}
	r.phase = phaseFetch
	r.fetched = make([]int64, len(s.topo.Racks))
	r.busyRack = make([]bool, len(s.topo.Racks))
	r.cursor = int(s.topo.RackOf(a.Host)) // own rack first
	return s.fetch(r)
}

// path is the list of resources from a source to a destination host:
// read at the source (a tier, or none), the NICs and, across racks, the
// rack links and core; write at the destination (a tier, or none).
func (s *Sim) path(src, dst cluster.HostID, read, write int32) []int32 {
	p := make([]int32, 0, 7)
	if read >= 0 {
		p = append(p, read)
	}
	if src != dst {
		p = append(p, s.nicOut[src], s.nicIn[dst])
		sr, dr := s.topo.RackOf(src), s.topo.RackOf(dst)
		if sr != dr {
			p = append(p, s.uplink[sr], s.downlink[dr])
			if s.core >= 0 {
				p = append(p, s.core)
			}
		}
	}
	if write >= 0 {
		p = append(p, write)
	}
	return p
}

func (s *Sim) flow(r *run, res []int32, bytes int64) *flow {
	if bytes <= 0 || len(res) == 0 {
		return &flow{heapIdx: -1, counter: -1} // nothing to move: a throwaway the caller may label
	}
	f := s.net.add(s.now, res, float64(bytes), r.a.Priority, r)
	r.flows = append(r.flows, f)
	r.active++
	return f
}

// countCross has a flow from rack src to host dst add to what dst
// receives from other racks (NetworkStatus.HostCrossRxBps), if it crosses
// racks and moves bytes.
func (s *Sim) countCross(f *flow, src cluster.RackID, dst cluster.HostID) {
	if f.heapIdx >= 0 && src != s.topo.RackOf(dst) {
		f.counter = int32(dst)
	}
}

// fetch keeps a reducer's fetchers busy: each fetches, from one source
// rack, what the upstream there has produced for this reducer and it has
// not yet fetched, as one aggregated flow; at most Fetchers run at once
// (Hadoop's shuffle.parallelcopies). Outputs on the reducer's own host are
// read from its disk without a fetcher. Sources are served in turn,
// starting after the last one served.
func (s *Sim) fetch(r *run) error {
	a := r.a
	// what the upstream holds for this reducer changes only when the
	// engine says so (Ready.Shuffles)
	// the engine may fix the input (its upstream is done) before the
	// driver reads Ready.Shuffles: a fixed input read before its last
	// outputs were in place is stale too, or the attempt would report
	// its input done without fetching them
	if r.stale || r.avail == nil || (a.InputFixed && !r.availFix) {
		if r.avail == nil {
			r.avail = make([]int64, len(s.topo.Racks))
		}
		r.availLo = s.eng.ShuffleAvailable(a, r.avail)
		r.stale, r.availFix = false, a.InputFixed
	}
	onHost := r.availLo
	own := s.topo.RackOf(a.Host)
	live := r.flows[:0]
	for _, f := range r.flows {
		if f.heapIdx >= 0 {
			live = append(live, f)
		}
	}
	r.flows = live
	if lo := onHost - r.fetchedLo; lo > 0 {
		f := s.flow(r, []int32{s.tierRd[a.Host][s.interTier[a.Host]]}, lo)
		f.srcRack = -1
		s.net.join(f, r.coflow)
		r.fetchedLo += lo
	}
	racks := len(r.avail)
	// one pass over the racks, from where the last call left off (the
	// cursor moves as flows start: the pass must not, or it skips racks)
	start := r.cursor
	for k := 0; k < racks && r.fetchers < s.opt.Fetchers; k++ {
		src := (start + k) % racks
		if r.busyRack[src] {
			continue
		}
		want := r.avail[src] - r.fetched[src]
		if cluster.RackID(src) == own {
			// the rest of the own rack, less the host's own outputs
			want -= onHost
		}
		if want <= 0 {
			continue
		}
		var p []int32
		if cluster.RackID(src) == own {
			p = []int32{s.nicIn[a.Host]}
		} else {
			p = []int32{s.uplink[src], s.downlink[own], s.nicIn[a.Host]}
			if s.core >= 0 {
				p = append(p, s.core)
			}
		}
		f := s.flow(r, p, want)
		s.countCross(f, cluster.RackID(src), a.Host)
		f.srcRack = int32(src)
		s.net.join(f, r.coflow)
		r.fetched[src] += want
		r.busyRack[src] = true
		r.fetchers++
		r.cursor = src + 1
	}
	if r.active > 0 {
		return nil
	}
	if a.InputFixed {
		if err := s.eng.InputDone(a.ID); err != nil {
			return err
		}
		s.inputsDone++
		return s.compute(r)
	}
	if !r.waiting && s.opt.FetchPoll > 0 {
		r.waiting = true
		s.addTimer(s.now+s.opt.FetchPoll, timerPoll, r)
	}
	return nil
}

// advance moves an attempt to its next phase once the current one is over.
func (s *Sim) advance(r *run) error {
	switch r.phase {
	case phaseFetch:
		return s.fetch(r)
	case phaseRead:
		if err := s.eng.InputDone(r.a.ID); err != nil {
			return err
		}
		return s.compute(r)
	case phaseCompute:
		return s.write(r)
	case phaseWrite:
		r.phase = phaseDone
		delete(s.runs, r.a.ID)
		return s.eng.AttemptSucceeded(r.a.ID, nil)
	}
	return nil
}

func (s *Sim) compute(r *run) error {
	r.phase = phaseCompute
	if d := r.compute * float64(r.a.InputBytes) * 1e-9; d > 0 {
		s.addTimer(s.now+d, timerCompute, r)
		return nil
	}
	return s.write(r)
}

func (s *Sim) write(r *run) error {
	a := r.a
	r.phase = phaseWrite
	r.flows = r.flows[:0]
	// every copy at once: from the writer, or, as HDFS's pipeline
	// (engine.Config.OutputPipeline), from the replica before it
	reps := a.OutputReplicas
	if len(reps) > 0 && reps[0].Host == a.Host {
		s.flow(r, []int32{s.tierWr[a.Host][reps[0].Tier]}, a.OutputBytes)
		reps = reps[1:]
	}
	if !(s.eng.OutputPipeline() && len(reps) > 1 && s.pipelineFlow(r, reps)) {
		engine.EachOutputHop(a.Host, reps, s.eng.OutputPipeline(), func(from cluster.HostID, rep workload.Replica) {
			f := s.flow(r, s.path(from, rep.Host, -1, s.tierWr[rep.Host][rep.Tier]), a.OutputBytes)
			s.countCross(f, s.topo.RackOf(from), rep.Host)
		})
	}
	if r.active > 0 {
		return nil
	}
	return s.advance(r)
}

// pipelineFlow sends an output through its pipeline (the replicas after
// the writer's own copy, reps) as one flow over every hop's links and
// every replica's disk, as a live pipeline moves: each replica forwards
// what it has received, so the chain runs at its slowest hop. A flow
// counts its bytes into one host's cross-rack receive counter, so a chain
// that crosses racks more than once (HDFS's placement crosses once), or
// meets a resource twice, is left to one flow a hop; it reports whether it
// took the output.
func (s *Sim) pipelineFlow(r *run, reps []workload.Replica) bool {
	a := r.a
	var res []int32
	crossings := 0
	var crossFrom cluster.RackID
	var crossInto cluster.HostID
	engine.EachOutputHop(a.Host, reps, true, func(from cluster.HostID, rep workload.Replica) {
		res = append(res, s.path(from, rep.Host, -1, s.tierWr[rep.Host][rep.Tier])...)
		if s.topo.RackOf(from) != s.topo.RackOf(rep.Host) {
			crossings++
			crossFrom, crossInto = s.topo.RackOf(from), rep.Host
		}
	})
	if crossings > 1 {
		return false
	}
	for i, x := range res { // a few resources a hop: no map
		if slices.Contains(res[:i], x) {
			return false
		}
	}
	f := s.flow(r, res, a.OutputBytes)
	if crossings == 1 {
		s.countCross(f, crossFrom, crossInto)
	}
	return true
}

func (s *Sim) sample() error {
	smpUp, smpDown := make([]float64, len(s.topo.Racks)), make([]float64, len(s.topo.Racks))
	dt := s.now - s.lastSample
	for r := range s.topo.Racks {
		up, down := &s.net.res[s.uplink[r]], &s.net.res[s.downlink[r]]
		s.net.settleRes(s.now, up)
		s.net.settleRes(s.now, down)
		if dt > 0 {
			// a share of the link's nominal capacity, as the live
			// driver's samples (live.kernelUtilisation): the simulated
			// link's capacity is what the background leaves of it
			keep := 1 - s.opt.Background
			smpUp[r] = (up.bytes - s.lastUp[r]) / dt / up.capacity * keep
			smpDown[r] = (down.bytes - s.lastDown[r]) / dt / down.capacity * keep
		}
		s.lastUp[r], s.lastDown[r] = up.bytes, down.bytes
	}
	s.lastSample = s.now
	// kept even without a sink, so that the period doubles alike
	s.samples = append(s.samples, linkSample{t: s.now, up: smpUp, down: smpDown})
	if len(s.samples) >= s.sampleBudget {
		s.samples = mergeSamples(s.samples)
		s.samplePeriod *= 2
	}
	return nil
}

// flushSamples hands the run's link samples to the sink.
func (s *Sim) flushSamples() error {
	if s.opt.Sink == nil {
		return nil
	}
	for _, smp := range s.samples {
		if err := s.opt.Sink.LinkSample(smp.t, smp.up, smp.down); err != nil {
			return err
		}
	}
	s.samples = nil
	return nil
}

// samplePeriodFor is the default link-sample period of a run: a
// thousandth of the span of its arrivals, between 0.1 s and 10 s, so that
// short runs have samples and day-long ones a manageable number.
func samplePeriodFor(eng *engine.Engine) float64 {
	var span float64
	for _, j := range eng.Jobs() {
		span = max(span, j.Arrival)
	}
	return min(max(span/1000, 0.1), 10)
}
