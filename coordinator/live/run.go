package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/heldcount"
	"github.com/racklab/racklab/worker/members"
)

// Config configures a live run.
type Config struct {
	Topology *cluster.Topology
	Workload *workload.Workload
	Datasets *workload.Datasets
	Policy   string
	// PolicyImpl, when set, is the policy itself (one not in the
	// registry); Policy then only names it in the records.
	PolicyImpl engine.Policy
	Seed       uint64
	// SlowStart is the engine's reduce slow-start fraction (0: default);
	// Queues its queues; Predicted what an offline planner is told.
	SlowStart float64
	Queues    []engine.Queue
	Predicted *workload.Predicted
	// Placer places the unplaced datasets (nil: the engine's default,
	// HDFS's); MemoryLRU turns on the engine's LRU memory tier
	// (engine.Config). OutputPlacer places job outputs (nil: the
	// engine's default, the writer then hosts of its rack).
	Placer       engine.DatasetPlacer
	OutputPlacer engine.ReplicaPlacer
	MemoryLRU    bool
	// OutputPipeline has the workers send job outputs' replicas as HDFS's
	// write pipeline (engine.Config.OutputPipeline, wire.Launch.Pipeline).
	OutputPipeline bool
	// Cluster names the run's subjects.
	Cluster string
	// NATSURL connects to an external server as the coordinator user;
	// empty runs an embedded server on Listen.
	NATSURL string
	Listen  string
	// Creds: the coordinator's password, and with an embedded server
	// every host's, which the server admits each as its own user.
	Creds wire.Credentials
	// MemberAddr, when set, is the ip the coordinator's memberlist agent
	// binds; workers join it and the coordinator hears of dead peers.
	MemberAddr string
	OutDir     string
	// RegisterTimeout bounds the wait for every host to register;
	// HeartbeatTimeout is how long a silent host lives.
	RegisterTimeout  time.Duration
	HeartbeatTimeout time.Duration
	// MaxRunTime ends a run that has not finished, with an error (0: no
	// limit). With a Window it must not be shorter.
	MaxRunTime time.Duration
	// Window is the experiment window, from the run's start (workload
	// time 0); 0: none. A run still going at the window ends there, with
	// success: no attempt is launched after it, the attempts running are
	// killed on their workers and recorded with outcome "cut", the jobs
	// not ended are recorded as "unfinished" (engine.Engine.Cut), the
	// kernel counters are read at the window, and the records and the
	// summary are completed as at a normal end. A Sink with a
	// SetWindow(seconds float64) method is told the window at the start.
	Window time.Duration
	// StallTimeout ends, with an error that says why, a run whose engine
	// has made no progress for this long: jobs are left, no attempt runs
	// and none is launched, and no job is yet to arrive (or no live host
	// has a slot). 0 means DefaultStallTimeout or twice HeartbeatTimeout,
	// whichever is longer; a negative value turns the watchdog off. It
	// must be longer than HeartbeatTimeout: workers that fell silent with
	// attempts running are not stalled until the failure detector has
	// declared them lost, and a policy may leave slots idle on purpose
	// for a few seconds (delay scheduling).
	StallTimeout time.Duration
	// Counters, when set, reads the kernel's cross-rack payload bytes per
	// rack uplink and downlink (the emulator supplies it); the run records
	// them over time and in its summary.
	Counters func() (up, down []float64, err error)
	// PriorityOrder, when set, is called at the end of the run for how
	// the network served priorities (the emulator measures it from the
	// kernel's priority leaves): the seconds that pairs of bands shared
	// a bottleneck while the lower one queued, and those of the pairs
	// whose higher band waited less per byte. A Sink with a SetPriorityOrder(sharedS, inOrderS
	// float64) method records them in the summary.
	PriorityOrder func() (sharedS, inOrderS float64, err error)
	// StopWorkers tells the workers to exit at the end.
	StopWorkers bool
	// Background is the share of every rack link that background traffic
	// holds; the network status handed to the engine counts it.
	Background float64
	// Sink receives the run's records as they happen (nil drops them).
	// Run finishes and closes it.
	Sink Sink
	// MaterializeOnly ends the run once the input blocks are written.
	MaterializeOnly bool
	// MetricsAddr, when set, serves Prometheus metrics on /metrics there
	// (port 0 picks one; the "metrics" event says where).
	MetricsAddr string
	// OnListening is called once the NATS server is up, with its URL;
	// OnEvent with every event the run records, from the run's goroutine.
	OnListening func(url string)
	OnEvent     func(Event)
	Logf        func(format string, args ...any)
}

// Result is what a run measured.
type Result struct {
	// Jobs and FailedJobs count the jobs that ended, and those that
	// failed.
	Jobs       int `json:"jobs"`
	FailedJobs int `json:"failed_jobs"`
	// UnfinishedJobs counts the jobs the Window left unfinished, and Cut
	// says it ended the run.
	UnfinishedJobs int  `json:"unfinished_jobs"`
	Cut            bool `json:"cut,omitempty"`
	// ExpectedCrossBytes is the engine's accounting of cross-rack payload
	// over successful attempts; ReportedCrossBytes the workers' own;
	// KernelCrossBytes the kernel counters' (payload, headers removed by
	// the counter reader), or -1 without counters.
	ExpectedCrossBytes int64    `json:"expected_cross_rack_bytes"`
	ReportedCrossBytes int64    `json:"reported_cross_rack_bytes"`
	KernelCrossBytes   float64  `json:"kernel_cross_rack_bytes"`
	HostsLost          []string `json:"hosts_lost"`
	MalformedMessages  int      `json:"rejected_messages"`
	// Materialization: bytes of block replicas written before the run,
	// how long it took, and the least time the tiers' rates allow.
	MaterializedBytes       int64   `json:"materialized_bytes"`
	MaterializeSeconds      float64 `json:"materialize_seconds"`
	MaterializeBoundSeconds float64 `json:"materialize_bound_seconds"`
	// Stalled says the watchdog ended the run (StallTimeout), and
	// StallReason why, as the simulator's Result does.
	Stalled     bool   `json:"stalled,omitempty"`
	StallReason string `json:"stall_reason,omitempty"`
	// Interrupted says the run was stopped (its context cancelled: a
	// signal) before its end; its records are what it had done by then.
	Interrupted bool   `json:"interrupted,omitempty"`
	Dir         string `json:"-"`
}

type hostInfo struct {
	id        cluster.HostID
	reg       *wire.Register
	lastSeen  time.Time
	lost      bool
	txBytes   uint64
	rxBytes   uint64
	crossRx   map[string]uint64
	prevRx    uint64
	prevCross map[string]uint64
	deadSince time.Time // when memberlist last said it died
	members   map[string]string
	shaped    map[string]wire.Counter
}

// DefaultStallTimeout is the default StallTimeout: far longer than any
// wait a policy makes on purpose (delay scheduling waits seconds), short
// enough that a stuck run does not hold a campaign for its MaxRunTime.
const DefaultStallTimeout = 30 * time.Second

// heartbeatInterval is the workers' default heartbeat period.
const heartbeatInterval = 500 * time.Millisecond

type run struct {
	cfg      Config
	subj     wire.Subjects
	nc       *nats.Conn
	inbox    chan *nats.Msg
	eng      *engine.Engine
	topo     *cluster.Topology
	hosts    []hostInfo
	byName   map[string]cluster.HostID
	rackName map[string]cluster.RackID
	shuffles map[engine.AttemptID]*shuffle
	member   *members.Agent
	start    time.Time
	tag      string // the run's part of its output keys (outputKey)
	// cutOff says the coordinator's own NATS connection was seen down
	// since the last host check; reconnects is the connection's count of
	// reconnections then (checkHosts)
	cutOff     bool
	reconnects uint64
	sink       Sink
	events     *journal
	attempts   *journal
	res        Result
	srcBuf     []engine.ShuffleSource
	phases     map[engine.AttemptID]phases // reported, until the attempt's record is written
	// running maps each dispatched attempt to its host and launch time,
	// until its record is written: kills must reach the host, and
	// heartbeats are checked against it.
	running map[engine.AttemptID]dispatched
	// onDisk is where a replica's bytes are while a worker moves them to
	// the tier the engine already counts them on
	onDisk map[replicaAt]cluster.TierKind
	// moving is the moves sent and not yet answered, with the tier each
	// leaves; leaving counts them by host and tier; heldMoves is each
	// host's moves not yet sent, in the engine's order (moveReplicas)
	moving    map[replicaAt]cluster.TierKind
	leaving   map[hostTier]int
	heldMoves map[cluster.HostID][]engine.TierMove
	// heldLaunches are attempts whose output waits for room in a memory
	// tier (awaitsRoom), in launch order
	heldLaunches []engine.AttemptID
	moveSeq      uint64
	prom         *promMetrics
	counter0     []float64 // kernel counters at the start, up then down
	// shapedHeld holds the workers' reported class counters across
	// their classes' lives (workerCounters)
	shapedHeld heldcount.Held[string]
	lastNet    time.Time
	finished   bool // the records are complete and closed
	// workerCounted says the kernel counts come from the workers'
	// heartbeats, which lag by up to a heartbeat.
	workerCounted bool
	// lastCounters is the previous kernel sample, for utilisation.
	lastCounters []float64
	// windowUp and windowDown are the kernel counters read at the
	// window (nil: read them at the end).
	windowUp, windowDown []float64
	// idleSince is when the engine was last seen with jobs left and
	// nothing running or to come (zero while it progresses).
	idleSince time.Time
	rejected  rejectedLog
}

func (r *run) logf(format string, args ...any) { r.cfg.Logf(format, args...) }

func (r *run) now() float64 {
	if r.start.IsZero() {
		return 0
	}
	return time.Since(r.start).Seconds()
}

func (r *run) event(kind, host, format string, args ...any) {
	d := fmt.Sprintf(format, args...)
	ev := newEvent(r.now(), kind, host, d)
	r.events.write(ev)
	if r.cfg.OnEvent != nil {
		r.cfg.OnEvent(ev)
	}
	if host != "" {
		r.logf("%s %s: %s", kind, host, d)
	} else {
		r.logf("%s: %s", kind, d)
	}
}

// Run runs the workload on the workers that register, and returns what it
// measured. Records are in cfg.OutDir as they happen.
func Run(ctx context.Context, cfg Config) (_ *Result, err error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.RegisterTimeout <= 0 {
		cfg.RegisterTimeout = 60 * time.Second
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = 3 * time.Second
	}
	switch {
	case cfg.StallTimeout == 0:
		cfg.StallTimeout = max(DefaultStallTimeout, 2*cfg.HeartbeatTimeout)
	case cfg.StallTimeout > 0 && cfg.StallTimeout <= cfg.HeartbeatTimeout:
		return nil, fmt.Errorf("stall timeout %v must be longer than the heartbeat timeout %v", cfg.StallTimeout, cfg.HeartbeatTimeout)
	}
	if err := cfg.Workload.CheckRunnable(); err != nil {
		return nil, err
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("window %v is negative (0: none)", cfg.Window)
	}
	if cfg.MaxRunTime > 0 && cfg.MaxRunTime < cfg.Window {
		return nil, fmt.Errorf("max run time %v is shorter than the window %v: the run would fail before the window ends it", cfg.MaxRunTime, cfg.Window)
	}
	if ws, ok := cfg.Sink.(interface{ SetWindow(seconds float64) }); ok {
		ws.SetWindow(cfg.Window.Seconds())
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:4222"
	}
	subj, err := wire.NewSubjects(cfg.Cluster)
	if err != nil {
		return nil, err
	}
	for _, h := range cfg.Topology.Hosts {
		if err := wire.CheckHostName(h.Name); err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, subj: subj, topo: cfg.Topology, byName: map[string]cluster.HostID{}, phases: map[engine.AttemptID]phases{},
		running: map[engine.AttemptID]dispatched{},
		onDisk:  map[replicaAt]cluster.TierKind{},
		moving:  map[replicaAt]cluster.TierKind{}, leaving: map[hostTier]int{}, heldMoves: map[cluster.HostID][]engine.TierMove{},
		rackName: map[string]cluster.RackID{}, shuffles: map[engine.AttemptID]*shuffle{}, tag: runTag(time.Now())}
	r.res.Dir = cfg.OutDir
	r.rejected.since = time.Now()
	r.res.KernelCrossBytes = -1
	for i, h := range r.topo.Hosts {
		r.byName[h.Name] = cluster.HostID(i)
	}
	for i, rk := range r.topo.Racks {
		r.rackName[rk.Name] = cluster.RackID(i)
	}
	r.hosts = make([]hostInfo, len(r.topo.Hosts))
	r.prom = newMetrics()
	if r.events, err = openJournal(filepath.Join(cfg.OutDir, "events.jsonl")); err != nil {
		return nil, err
	}
	// a record the journals could not write fails the run
	defer func() { err = errors.Join(err, r.events.close()) }()
	if r.attempts, err = openJournal(filepath.Join(cfg.OutDir, "attempts.jsonl")); err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, r.attempts.close()) }()

	url := cfg.NATSURL
	if url == "" {
		for _, h := range cfg.Topology.Hosts {
			if _, ok := cfg.Creds.Workers[h.Name]; !ok {
				return nil, fmt.Errorf("credentials: none for host %s, which the embedded NATS server must admit", h.Name)
			}
		}
		srv, err := StartServer(cfg.Listen, subj, cfg.Creds)
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		url = srv.URL()
	}
	opts := []nats.Option{nats.Name("racklab-coordinator"), nats.MaxReconnects(-1)}
	if cfg.Creds.Coordinator != "" {
		// else the URL carries the credentials an external server wants
		opts = append(opts, nats.UserInfo(wire.CoordinatorUser, cfg.Creds.Coordinator))
	}
	r.nc, err = nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	defer r.nc.Close()
	r.inbox = make(chan *nats.Msg, 1<<16)
	for _, s := range subj.Reports() {
		// the inbox channel is the only buffer (a channel subscription has
		// no pending limits); a message dropped when it is full is caught by
		// the reconciliation of attempts with heartbeats
		if _, err := r.nc.ChanSubscribe(s, r.inbox); err != nil {
			return nil, err
		}
	}
	// a subscription counts once the server has it: without this round
	// trip, the first messages of a worker that is quicker than our SUB
	// (a registration, a report) would go to nobody
	if err := r.nc.Flush(); err != nil {
		return nil, fmt.Errorf("subscribe at %s: %w", url, err)
	}
	if cfg.MemberAddr != "" {
		r.member, err = members.Start(members.Config{Name: "coordinator", Meta: members.Meta{Role: members.RoleCoordinator}, BindAddr: cfg.MemberAddr})
		if err != nil {
			return nil, err
		}
		defer r.member.Leave(500 * time.Millisecond)
	}
	if cfg.MetricsAddr != "" {
		addr, stop, err := r.prom.serve(cfg.MetricsAddr, r.logf)
		if err != nil {
			return nil, fmt.Errorf("metrics on %s: %w", cfg.MetricsAddr, err)
		}
		defer stop()
		r.event("metrics", "", "http://%s/metrics", addr)
	}
	r.event("listening", "", "NATS at %s", url)
	if cfg.OnListening != nil {
		cfg.OnListening(url)
	}
	defer func() {
		// workers that stay up between runs start the next one clean
		for _, h := range r.hosts {
			if h.reg == nil {
				continue
			}
			if cfg.StopWorkers {
				r.send(h.reg.Host, wire.TypeStop, &wire.Stop{Reason: "run finished"})
			} else {
				r.send(h.reg.Host, wire.TypeReset, &wire.Reset{Reason: "run finished"})
			}
		}
		r.nc.Flush()
	}()
	// the messages rejected but not logged since the last summary
	defer func() { r.summarizeRejected(time.Now()) }()
	defer func() {
		if r.sink != nil && !r.finished {
			_ = r.sink.Close() // a run that ended early keeps what it wrote
		}
	}()
	if err := r.admit(ctx); err != nil {
		return &r.res, err
	}
	if err := r.prepare(ctx); err != nil {
		return &r.res, err
	}
	if cfg.MaterializeOnly {
		r.finished = true
		return &r.res, r.sink.Close()
	}
	err = r.loop(ctx)
	return &r.res, err
}

// hello asks workers that are up already, from an earlier run, to
// register; new workers register on their own.
func (r *run) hello() {
	if err := r.nc.Publish(r.subj.Hello(), wire.MustEncode(wire.TypeHello, &wire.Hello{Run: r.cfg.OutDir})); err != nil {
		r.logf("hello: %v", err)
	}
}

func (r *run) send(host, typ string, body any) {
	if err := r.nc.Publish(r.subj.Worker(host), wire.MustEncode(typ, body)); err != nil {
		r.event("send-failed", host, "%s: %v", typ, err)
	}
}

func (r *run) loop(ctx context.Context) error {
	if r.cfg.Counters == nil {
		if _, _, ok := r.workerCounters(); ok {
			// a lab cluster whose workers shape: their class counters are
			// the kernel's count, a heartbeat old
			r.cfg.Counters = func() ([]float64, []float64, error) {
				up, down, _ := r.workerCounters()
				return up, down, nil
			}
			r.workerCounted = true
			r.event("counters", "", "cross-rack bytes from the workers' shaping classes")
		}
	}
	if r.cfg.Counters != nil {
		up, down, err := r.cfg.Counters()
		if err != nil {
			return fmt.Errorf("kernel counters: %w", err)
		}
		r.counter0 = append(append([]float64(nil), up...), down...)
	}
	r.start = time.Now()
	r.lastNet = r.start
	for i := range r.hosts {
		h := &r.hosts[i]
		h.lastSeen = r.start
		// workers' counters are cumulative since they started
		h.prevRx = h.rxBytes
		for rack, n := range h.crossRx {
			h.prevCross[rack] = n
		}
	}
	r.event("started", "", "policy %s, seed %d, %d jobs", r.cfg.Policy, r.cfg.Seed, len(r.eng.Jobs()))
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var limit, window <-chan time.Time
	if r.cfg.MaxRunTime > 0 {
		limit = time.After(r.cfg.MaxRunTime)
	}
	if r.cfg.Window > 0 {
		window = time.After(r.cfg.Window)
	}
	for !r.eng.Done() {
		select {
		case <-ctx.Done():
			// the records so far are kept, marked as those of a run that
			// did not end: no reader should take them for a whole run
			r.res.Interrupted = true
			r.event("interrupted", "", "the run was stopped before its end: %v", context.Cause(ctx))
			return ended(ctx.Err(), r.finish())
		case <-limit:
			return ended(fmt.Errorf("the run did not finish within %v", r.cfg.MaxRunTime), r.finish())
		case m := <-r.inbox:
			r.handle(m)
		drain:
			for {
				select {
				case m := <-r.inbox:
					r.handle(m)
				default:
					break drain
				}
			}
		case <-tick.C:
			r.checkHosts()
			r.sampleNetwork()
			r.flushRejected()
		case <-window:
		}
		if r.cfg.Window > 0 && time.Since(r.start) >= r.cfg.Window {
			// before a step: nothing is launched after the window
			r.cut()
			return r.finish()
		}
		if err := r.step(); err != nil {
			return ended(err, r.finish())
		}
		if why, stalled := r.stalled(time.Now()); stalled {
			r.res.Stalled, r.res.StallReason = true, why
			r.event("stalled", "", "%s", why)
			return ended(fmt.Errorf("the run stalled: %s", why), r.finish())
		}
	}
	return r.finish()
}

// step advances the engine to now, lets it schedule, and acts on what it
// decided.
func (r *run) step() error {
	if err := r.eng.Advance(r.now()); err != nil {
		return err
	}
	r.eng.Schedule()
	if err := r.eng.PolicyErr(); err != nil {
		// events.jsonl says why the run ended where it did
		r.event("policy-stopped", "", "%v", err)
		return fmt.Errorf("the policy stopped the run: %w", err)
	}
	r.drainReady()
	r.observe()
	return r.sink.Flush()
}

// observe updates the gauges that summarise the run so far.
func (r *run) observe() {
	r.prom.crossBytes.WithLabelValues("engine").Set(float64(r.res.ExpectedCrossBytes))
	r.prom.crossBytes.WithLabelValues("workers").Set(float64(r.res.ReportedCrossBytes))
	alive := 0
	for i := range r.hosts {
		if r.hosts[i].reg != nil && !r.hosts[i].lost {
			alive++
		}
	}
	r.prom.hostsAlive.Set(float64(alive))
}
