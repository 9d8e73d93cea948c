package live

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/traffic"
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
	// SlowStart is the engine's reduce slow-start fraction (0: default).
	SlowStart float64
	// Cluster names the run's subjects.
	Cluster string
	// NATSURL connects to an external server as the coordinator user;
	// empty runs an embedded server on Listen.
	NATSURL string
	Listen  string
	Creds   wire.Credentials
	// MemberAddr, when set, is the ip the coordinator's memberlist agent
	// binds; workers join it and the coordinator hears of dead peers.
	MemberAddr string
	OutDir     string
	// RegisterTimeout bounds the wait for every host to register;
	// HeartbeatTimeout is how long a silent host lives.
	RegisterTimeout  time.Duration
	HeartbeatTimeout time.Duration
	// MaxRunTime ends a run that has not finished (0: no limit).
	MaxRunTime time.Duration
	// Counters, when set, reads the kernel's cross-rack payload bytes per
	// rack uplink and downlink (the emulator supplies it); the run records
	// them over time and in its summary.
	Counters func() (up, down []float64, err error)
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
	Dir                     string  `json:"-"`
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

// heartbeatInterval is the workers' default heartbeat period.
const heartbeatInterval = 500 * time.Millisecond

type shuffle struct {
	complete bool
	sent     map[string]string // task → key sent
}

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
	sink     Sink
	events   *journal
	attempts *journal
	res      Result
	srcBuf   []engine.ShuffleSource
	phases   map[engine.AttemptID]phases // reported, until the attempt's record is written
	// running maps each dispatched attempt to its host and launch time,
	// until its record is written: kills must reach the host, and
	// heartbeats are checked against it.
	running map[engine.AttemptID]dispatched
	// onDisk is where a replica's bytes are while a worker moves them to
	// the tier the engine already counts them on
	onDisk        map[replicaAt]cluster.TierKind
	moveSeq       uint64
	prom          *promMetrics
	seenDecisions int
	counter0      []float64 // kernel counters at the start, up then down
	lastNet       time.Time
	finished      bool // the records are complete and closed
	// workerCounted says the kernel counts come from the workers'
	// heartbeats, which lag by up to a heartbeat.
	workerCounted bool
	// lastCounters is the previous kernel sample, for utilisation.
	lastCounters []float64
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
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.RegisterTimeout <= 0 {
		cfg.RegisterTimeout = 60 * time.Second
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = 3 * time.Second
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
		running:  map[engine.AttemptID]dispatched{},
		onDisk:   map[replicaAt]cluster.TierKind{},
		rackName: map[string]cluster.RackID{}, shuffles: map[engine.AttemptID]*shuffle{}}
	r.res.Dir = cfg.OutDir
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
	defer r.events.close()
	if r.attempts, err = openJournal(filepath.Join(cfg.OutDir, "attempts.jsonl")); err != nil {
		return nil, err
	}
	defer r.attempts.close()

	url := cfg.NATSURL
	if url == "" {
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
	for _, s := range []string{subj.Register(), subj.Heartbeat(), subj.Events()} {
		// the inbox channel is the only buffer (a channel subscription has
		// no pending limits); a message dropped when it is full is caught by
		// the reconciliation of attempts with heartbeats
		if _, err := r.nc.ChanSubscribe(s, r.inbox); err != nil {
			return nil, err
		}
	}
	if cfg.MemberAddr != "" {
		r.member, err = members.Start(members.Config{Name: "coordinator", Meta: members.Meta{Role: members.RoleCoordinator}, BindAddr: cfg.MemberAddr})
		if err != nil {
			return nil, err
		}
		defer r.member.Leave(500 * time.Millisecond)
	}
	if cfg.MetricsAddr != "" {
		addr, stop, err := r.prom.serve(cfg.MetricsAddr)
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

// admit waits for every host of the topology to register.
func (r *run) admit(ctx context.Context) error {
	deadline := time.After(r.cfg.RegisterTimeout)
	missing := len(r.hosts)
	hello := time.NewTicker(time.Second)
	defer hello.Stop()
	r.hello()
	for missing > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-hello.C:
			r.hello()
		case <-deadline:
			var names []string
			for i, h := range r.hosts {
				if h.reg == nil {
					names = append(names, r.topo.Hosts[i].Name)
				}
			}
			return fmt.Errorf("%d of %d hosts did not register within %v: %v", missing, len(r.hosts), r.cfg.RegisterTimeout, names)
		case m := <-r.inbox:
			if r.handle(m) {
				missing--
			}
		}
	}
	r.event("registered", "", "all %d hosts", len(r.hosts))
	regs := make([]*wire.Register, len(r.hosts))
	for i := range r.hosts {
		regs[i] = r.hosts[i].reg
	}
	if err := writeJSON(filepath.Join(r.cfg.OutDir, "hosts.json"), regs); err != nil {
		return err
	}
	return r.agree(ctx)
}

// agree waits until every worker's memberlist view holds every other
// worker in its rack, as the coordinator sees them: only then do racks
// exist for the workers (and their shaping, if they shape).
func (r *run) agree(ctx context.Context) error {
	deadline := time.After(r.cfg.RegisterTimeout)
	for {
		var disagree []string
		for i := range r.hosts {
			if d := r.disagreement(i); d != "" {
				disagree = append(disagree, d)
			}
		}
		if len(disagree) == 0 {
			r.event("membership-agreed", "", "every worker sees the %d others in their racks", len(r.hosts)-1)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("memberlist and the coordinator still disagree after %v: %s", r.cfg.RegisterTimeout, strings.Join(disagree, "; "))
		case m := <-r.inbox:
			r.handle(m)
		}
	}
}

// disagreement says how host i's last reported membership differs from
// the registrations, or "" if it agrees.
func (r *run) disagreement(i int) string {
	h := &r.hosts[i]
	for j := range r.hosts {
		if j == i {
			continue
		}
		o := r.hosts[j].reg
		if h.members[o.Host] != o.Rack {
			return fmt.Sprintf("%s sees %s in rack %q, not %q", h.reg.Host, o.Host, h.members[o.Host], o.Rack)
		}
	}
	return ""
}

// prepare builds the engine, which places the datasets, and has every
// worker write the blocks it holds.
func (r *run) prepare(ctx context.Context) error {
	p := r.cfg.PolicyImpl
	var err error
	if p == nil {
		if p, err = policy.New(r.cfg.Policy); err != nil {
			return err
		}
	}
	clock := time.Now()
	r.eng, err = engine.New(engine.Config{Seed: r.cfg.Seed, SlowStart: r.cfg.SlowStart,
		Stopwatch: func() int64 { return int64(time.Since(clock)) }}, r.topo, r.cfg.Workload, r.cfg.Datasets, p)
	if err != nil {
		return err
	}
	r.sink = r.cfg.Sink
	if r.sink == nil {
		r.sink = discard{}
	}
	perHost := make([][]wire.Block, len(r.hosts))
	var total int64
	for _, d := range r.eng.Datasets().Datasets {
		for b, blk := range d.Blocks {
			for _, rep := range blk.Replicas {
				perHost[rep.Host] = append(perHost[rep.Host], wire.Block{Key: DatasetBlockKey(d.Name, b), Tier: rep.Tier.String(), Size: blk.Size})
				total += blk.Size
			}
		}
	}
	t0 := time.Now()
	waiting := 0
	for h, blocks := range perHost {
		if len(blocks) > 0 {
			r.send(r.topo.Hosts[h].Name, wire.TypeMaterialize, &wire.Materialize{Seed: r.cfg.Seed, Blocks: blocks})
			waiting++
		}
	}
	written := map[string]int64{}
	finished := map[string]bool{}
	sums := map[string]uint64{} // block key → checksum, the same for every replica
	verified := 0
	lastReport := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for waiting > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			// a host that dies now takes replicas the run needs
			r.checkHosts()
			for h, blocks := range perHost {
				if len(blocks) > 0 && r.hosts[h].lost {
					return fmt.Errorf("host %s was lost while writing its %d blocks", r.topo.Hosts[h].Name, len(blocks))
				}
			}
		case m := <-r.inbox:
			typ, err := wire.Peek(m.Data)
			if err != nil || typ != wire.TypeMaterialized {
				r.handle(m)
				continue
			}
			var done wire.Materialized
			if err := wire.Decode(m.Data, typ, &done); err != nil {
				r.malformed(m.Subject, err)
				continue
			}
			if done.Error != "" {
				return fmt.Errorf("host %s could not write its blocks: %s", done.Host, done.Error)
			}
			if _, ok := r.known(done.Host); !ok || finished[done.Host] {
				continue // not in the run, or a late copy
			}
			written[done.Host] = done.Bytes
			if done.Done {
				finished[done.Host] = true
				waiting--
				for key, sum := range done.Checksums {
					if prev, ok := sums[key]; ok && prev != sum {
						return fmt.Errorf("block %s: host %s wrote checksum %016x, another replica %016x", key, done.Host, sum, prev)
					}
					sums[key] = sum
					verified++
				}
			}
			if time.Since(lastReport) >= time.Second {
				lastReport = time.Now()
				var sum int64
				for _, n := range written {
					sum += n
				}
				r.event("materializing", "", "%d of %d bytes (%.0f%%), %d hosts to finish", sum, total, 100*float64(sum)/float64(max(total, 1)), waiting)
			}
		}
	}
	r.res.MaterializedBytes = total
	r.res.MaterializeSeconds = time.Since(t0).Seconds()
	r.res.MaterializeBoundSeconds = materializeBound(r.topo, perHost)
	if want := countBlocks(perHost); verified != want {
		return fmt.Errorf("%d of %d block replicas came back with a checksum", verified, want)
	}
	r.event("materialized", "", "%d bytes of replicas in %.2f s, %d replicas of %d blocks verified by checksum; the tiers' write rates allow %.2f s",
		total, r.res.MaterializeSeconds, verified, len(sums), r.res.MaterializeBoundSeconds)
	return nil
}

func countBlocks(perHost [][]wire.Block) int {
	n := 0
	for _, b := range perHost {
		n += len(b)
	}
	return n
}

// materializeBound is the least time the tiers' write rates allow for
// writing the blocks: every host writes its tiers at once, each tier at
// its rate, and the slowest host sets the time.
func materializeBound(t *cluster.Topology, perHost [][]wire.Block) float64 {
	var worst float64
	for h, blocks := range perHost {
		var byTier [cluster.NumTierKinds]int64
		for _, b := range blocks {
			if k, err := cluster.ParseTierKind(b.Tier); err == nil {
				byTier[k] += b.Size
			}
		}
		for k, n := range byTier {
			if tier, ok := t.Hosts[h].Tier(cluster.TierKind(k)); ok && n > 0 && tier.WriteBps > 0 {
				worst = max(worst, float64(n)/tier.WriteBps)
			}
		}
	}
	return worst
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

func (r *run) malformed(subject string, err error) {
	r.res.MalformedMessages++
	r.prom.rejected.Inc()
	r.event("rejected-message", "", "on %s: %v", subject, err)
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
	var limit <-chan time.Time
	if r.cfg.MaxRunTime > 0 {
		limit = time.After(r.cfg.MaxRunTime)
	}
	for !r.eng.Done() {
		select {
		case <-ctx.Done():
			r.finish()
			return ctx.Err()
		case <-limit:
			r.finish()
			return fmt.Errorf("the run did not finish within %v", r.cfg.MaxRunTime)
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
		}
		if err := r.step(); err != nil {
			r.finish()
			return err
		}
	}
	r.finish()
	return nil
}

// step advances the engine to now, lets it schedule, and acts on what it
// decided.
func (r *run) step() error {
	if err := r.eng.Advance(r.now()); err != nil {
		return err
	}
	r.eng.Schedule()
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
	ns := r.eng.Stats.DecisionNanos
	for _, n := range ns[min(r.seenDecisions, len(ns)):] {
		r.prom.decisionSecs.Observe(float64(n) / 1e9)
	}
	r.seenDecisions = len(ns)
}

func (r *run) drainReady() {
	rd := r.eng.Ready()
	for _, a := range rd.Launches {
		r.launch(a)
		r.prom.launched.WithLabelValues(r.eng.Job(a.Task.Job).Stages[a.Task.Stage].Spec.Kind.String()).Inc()
		r.prom.running.Inc()
	}
	for _, id := range rd.Kills {
		// the engine has ended the attempt already: its host is ours
		if d, ok := r.running[id]; ok {
			r.send(r.topo.Hosts[d.host].Name, wire.TypeKill, &wire.Kill{Attempt: int64(id), Reason: "engine"})
		}
		delete(r.shuffles, id)
	}
	r.moveReplicas(rd.TierMoves)
	for _, u := range rd.Shuffles {
		r.updateShuffle(u)
	}
	for _, id := range rd.Priorities {
		if a := r.eng.Attempt(id); a != nil {
			r.send(r.topo.Hosts[a.Host].Name, wire.TypePriority, &wire.Priority{Attempt: int64(id), DSCP: traffic.PriorityDSCP(a.Priority)})
		}
	}
	for i := range rd.Attempts {
		rec := &rd.Attempts[i]
		delete(r.shuffles, rec.ID)
		delete(r.running, rec.ID)
		r.prom.ended.WithLabelValues(rec.Outcome.String()).Inc()
		r.prom.running.Dec()
		if rec.Outcome == engine.AttemptSucceeded {
			r.res.ExpectedCrossBytes += rec.Bytes.Cross()
			if rec.Reported != nil {
				r.res.ReportedCrossBytes += rec.Reported.Cross()
			}
		}
		if err := r.sink.Attempt(rec); err != nil {
			r.logf("record attempt: %v", err)
		}
		line := attemptLine(r.topo, rec)
		if ph, ok := r.phases[rec.ID]; ok {
			line.Phases = &ph
			delete(r.phases, rec.ID)
		}
		r.attempts.write(line)
	}
	for i := range rd.Jobs {
		if err := r.sink.Job(&rd.Jobs[i]); err != nil {
			r.logf("record job: %v", err)
		}
		j := &rd.Jobs[i]
		r.res.Jobs++
		if j.State == engine.JobFailed {
			r.res.FailedJobs++
		}
		r.prom.jobs.WithLabelValues(j.State.String()).Inc()
		r.event("job-"+j.State.String(), "", "%s in %.2f s%s", j.Name, j.Finished-j.Submitted, reasonSuffix(j.Reason))
	}
}

func reasonSuffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}


func (r *run) object(h cluster.HostID, tier cluster.TierKind, key string) wire.Object {
	host := r.topo.Hosts[h]
	return wire.Object{Host: host.Name, Rack: r.topo.Racks[host.Rack].Name, Addr: r.hosts[h].reg.DataAddr, Tier: tier.String(), Key: key}
}

func (r *run) launch(a *engine.Attempt) {
	job := r.eng.Job(a.Task.Job)
	st := job.Stages[a.Task.Stage]
	class := st.InputClass
	if a.Duplicate {
		class = engine.ClassDuplicate
	}
	l := wire.Launch{Attempt: int64(a.ID), Job: job.Spec.ID, Stage: st.Spec.Name, Index: int(a.Task.Index),
		Class: class.String(), ComputeNsPerByte: st.Spec.ComputeNsPerByte, InputBytes: a.InputBytes,
		OutputKey: OutputKey(a.ID)}
	if st.Spec.Kind == workload.Map {
		l.Kind = wire.KindMap
		if ref, ok := r.eng.InputObject(a); ok && a.Source.Host >= 0 {
			key := objectKey(ref)
			tier := r.readTier(a.Source.Host, key, a.Source.Tier)
			l.Input = &wire.Range{Object: r.object(a.Source.Host, tier, key), Task: "input", Length: a.InputBytes}
		}
	} else {
		l.Kind = wire.KindReduce
		if st.Spec.Kind == workload.Generic {
			l.Kind = wire.KindGeneric
		}
		sh := &shuffle{sent: map[string]string{}}
		r.shuffles[a.ID] = sh
		l.Sources = r.newSources(a, sh)
		if a.InputFixed {
			sh.complete, l.Complete = true, true
			l.InputBytes = a.InputBytes
		}
	}
	l.OutputBytes = a.OutputBytes
	l.OutputTier = a.OutputReplicas[0].Tier.String()
	for _, rep := range a.OutputReplicas {
		l.Replicas = append(l.Replicas, r.object(rep.Host, rep.Tier, l.OutputKey))
	}
	r.running[a.ID] = dispatched{host: a.Host, at: time.Now()}
	r.sendLaunch(r.topo.Hosts[a.Host].Name, &l)
}

// dispatched is an attempt sent to a worker.
type dispatched struct {
	host cluster.HostID
	at   time.Time
}

// maxRanges bounds the ranges of one message, so that a shuffle over
// thousands of upstream tasks stays far below NATS's payload limit (1 MB
// on a default external server).
const maxRanges = 2000

// sendLaunch sends a launch, its sources beyond the first maxRanges
// following in Sources messages.
func (r *run) sendLaunch(host string, l *wire.Launch) {
	rest := l.Sources
	if len(rest) <= maxRanges {
		r.send(host, wire.TypeLaunch, l)
		return
	}
	complete := l.Complete
	l.Sources, l.Complete = rest[:maxRanges], false
	r.send(host, wire.TypeLaunch, l)
	r.sendSources(host, &wire.Sources{Attempt: l.Attempt, Sources: rest[maxRanges:], Complete: complete,
		InputBytes: l.InputBytes, OutputBytes: l.OutputBytes})
}

// sendSources sends ranges in messages of at most maxRanges; only the
// last says whether the list is complete.
func (r *run) sendSources(host string, s *wire.Sources) {
	all := s.Sources
	for len(all) > maxRanges {
		part := *s
		part.Sources, part.Complete = all[:maxRanges], false
		r.send(host, wire.TypeSources, &part)
		all = all[maxRanges:]
	}
	s.Sources = all
	r.send(host, wire.TypeSources, s)
}

// newSources lists the upstream outputs not yet sent to a shuffling
// attempt, or sent from an output since lost and recomputed.
func (r *run) newSources(a *engine.Attempt, sh *shuffle) []wire.Range {
	r.srcBuf = r.eng.ShuffleSources(a, r.srcBuf[:0])
	var out []wire.Range
	for _, s := range r.srcBuf {
		task := fmt.Sprintf("s%d.t%d", s.Task.Stage, s.Task.Index)
		key := OutputKey(s.Attempt)
		if sh.sent[task] == key {
			continue
		}
		sh.sent[task] = key
		out = append(out, wire.Range{Object: r.object(s.Host, s.Tier, key), Task: task, Offset: s.Offset, Length: s.Length})
	}
	return out
}

// updateShuffle tells a shuffling attempt of the upstream outputs the
// engine says are new, and whether the list is complete.
func (r *run) updateShuffle(u engine.ShuffleUpdate) {
	sh, a := r.shuffles[u.Attempt], r.eng.Attempt(u.Attempt)
	if sh == nil || a == nil {
		return
	}
	msg := wire.Sources{Attempt: int64(u.Attempt), Sources: r.newSources(a, sh)}
	sh.complete = sh.complete || u.Complete
	msg.Complete = sh.complete
	msg.InputBytes, msg.OutputBytes = a.InputBytes, a.OutputBytes
	if len(msg.Sources) > 0 || msg.Complete {
		r.sendSources(r.topo.Hosts[a.Host].Name, &msg)
	}
}

// handle ingests one message; it reports whether it was a new, valid
// registration.
func (r *run) handle(m *nats.Msg) bool {
	typ, err := wire.Peek(m.Data)
	if err != nil {
		r.malformed(m.Subject, err)
		return false
	}
	switch typ {
	case wire.TypeRegister:
		return r.register(m)
	case wire.TypeHeartbeat:
		if hb, ok := decodeReport[wire.Heartbeat](r, m, typ); ok {
			r.heartbeat(hb)
		}
	case wire.TypeAttemptEnded:
		if ev, ok := decodeReport[wire.AttemptEnded](r, m, typ); ok {
			r.attemptEnded(ev)
		}
	case wire.TypeInputDone:
		if ev, ok := decodeReport[wire.InputDone](r, m, typ); ok {
			r.inputDone(ev)
		}
	case wire.TypeReplicaMoved:
		if ev, ok := decodeReport[wire.ReplicaMoved](r, m, typ); ok {
			r.replicaMoved(ev)
		}
	case wire.TypeWorkerProblem:
		if p, ok := decodeReport[wire.WorkerProblem](r, m, typ); ok {
			r.event("worker-problem", p.Host, "%s", p.Problem)
		}
	case wire.TypeMaterialized:
		// late, after the run started: nothing waits for it
	default:
		r.malformed(m.Subject, fmt.Errorf("a %q message is not for the coordinator", typ))
	}
	return false
}

// decodeReport decodes a worker's message, or records it as rejected.
func decodeReport[T any](r *run, m *nats.Msg, typ string) (*T, bool) {
	var v T
	if err := wire.Decode(m.Data, typ, &v); err != nil {
		r.malformed(m.Subject, err)
		return nil, false
	}
	return &v, true
}

func (r *run) register(m *nats.Msg) bool {
	var reg wire.Register
	reply := func(rep wire.Registered) {
		if m.Reply != "" {
			_ = m.Respond(wire.MustEncode(wire.TypeRegistered, &rep))
		}
	}
	if err := wire.Decode(m.Data, wire.TypeRegister, &reg); err != nil {
		r.malformed(m.Subject, err)
		reply(wire.Registered{Error: err.Error()})
		return false
	}
	h, ok := r.byName[reg.Host]
	if !ok {
		r.event("registration-refused", reg.Host, "not a host of the topology")
		reply(wire.Registered{Error: fmt.Sprintf("host %q is not in the topology", reg.Host)})
		return false
	}
	want := r.topo.Racks[r.topo.Hosts[h].Rack].Name
	if reg.Rack != want {
		r.event("registration-refused", reg.Host, "says rack %q, the topology says %q", reg.Rack, want)
		reply(wire.Registered{Error: fmt.Sprintf("host %s is in rack %q, not %q", reg.Host, want, reg.Rack)})
		return false
	}
	if missing := missingTiers(&r.topo.Hosts[h], &reg); len(missing) > 0 {
		r.event("registration-refused", reg.Host, "lacks tiers %v that the topology gives it", missing)
		reply(wire.Registered{Error: fmt.Sprintf("host %s has no %s tier, which the topology gives it: add --tier for it", reg.Host, strings.Join(missing, ", "))})
		return false
	}
	if reg.Slots != r.topo.Hosts[h].Slots {
		r.event("slots-differ", reg.Host, "the worker has %d slots, the topology %d: the topology's count is used", reg.Slots, r.topo.Hosts[h].Slots)
	}
	hi := &r.hosts[h]
	fresh := hi.reg == nil
	if !fresh && !hi.lost && r.eng != nil && (hi.reg.Pid != reg.Pid || hi.reg.DataAddr != reg.DataAddr) {
		// a new worker process: what the old one ran and stored is gone
		r.lose(reg.Host, fmt.Sprintf("restarted: a new worker process (pid %d, data %s) registered", reg.Pid, reg.DataAddr))
	}
	if !fresh && hi.lost {
		reply(wire.Registered{Error: fmt.Sprintf("host %s was declared lost in this run", reg.Host)})
		return false
	}
	hi.id, hi.reg, hi.lastSeen = h, &reg, time.Now()
	if hi.prevCross == nil {
		hi.prevCross = map[string]uint64{}
	}
	var peers []string
	if r.member != nil {
		peers = append(peers, r.member.Addr())
	}
	for _, o := range r.hosts {
		if o.reg != nil && o.reg.Host != reg.Host && o.reg.MemberAddr != "" {
			peers = append(peers, o.reg.MemberAddr)
		}
	}
	racks := make([]string, len(r.topo.Racks))
	for i, rk := range r.topo.Racks {
		racks[i] = rk.Name
	}
	reply(wire.Registered{OK: true, Members: peers, Racks: racks})
	if fresh {
		r.event("host-registered", reg.Host, "rack %s, %d slots, data %s, %d CPUs", reg.Rack, reg.Slots, reg.DataAddr, reg.Facts.CPUs)
	}
	return fresh
}

// missingTiers lists the tier kinds a topology host has that its worker
// did not register.
func missingTiers(h *cluster.Host, reg *wire.Register) []string {
	var missing []string
	for _, t := range h.Tiers {
		found := false
		for _, rt := range reg.Tiers {
			found = found || rt.Kind == t.Kind.String()
		}
		if !found {
			missing = append(missing, t.Kind.String())
		}
	}
	return missing
}

func (r *run) known(name string) (*hostInfo, bool) {
	h, ok := r.byName[name]
	if !ok || r.hosts[h].reg == nil || r.hosts[h].lost {
		return nil, false
	}
	return &r.hosts[h], true
}

func (r *run) heartbeat(hb *wire.Heartbeat) {
	hi, ok := r.known(hb.Host)
	if !ok {
		return
	}
	hi.lastSeen = time.Now()
	r.reconcile(hi, hb.Running)
	hi.txBytes, hi.rxBytes = hb.TxBytes, hb.RxBytes
	hi.crossRx = hb.CrossRxByRack
	hi.members = hb.Members
	hi.shaped = hb.Shaped
	r.progress(hb.Host, hb.Progress)
}

// workerCounters sums the shaping workers' class counters into payload
// bytes per rack uplink and downlink: the kernel's count on a cluster
// where every worker shapes its own NIC. ok is false when no worker
// shapes.
func (r *run) workerCounters() (up, down []float64, ok bool) {
	nr := len(r.topo.Racks)
	up, down = make([]float64, nr), make([]float64, nr)
	for i := range r.hosts {
		h := &r.hosts[i]
		if h.reg == nil {
			continue
		}
		src := r.topo.Hosts[i].Rack
		for rack, c := range h.shaped {
			dst, known := r.rackName[rack]
			if !known || dst == src {
				continue
			}
			ok = true
			p := c.Payload()
			up[src] += p
			down[dst] += p
		}
	}
	return up, down, ok
}

// reconcile abandons the attempts a worker does not know although they
// were sent to it a while ago: a launch or a report lost in transit (core
// NATS delivers at most once) must not leave a task running forever.
func (r *run) reconcile(hi *hostInfo, running []int64) {
	if r.eng == nil || r.start.IsZero() {
		return
	}
	known := make(map[engine.AttemptID]bool, len(running))
	for _, id := range running {
		known[engine.AttemptID(id)] = true
	}
	grace := time.Now().Add(-reconcileGrace)
	var lost []engine.AttemptID
	for id, d := range r.running {
		if d.host == hi.id && !known[id] && d.at.Before(grace) && r.eng.Attempt(id) != nil {
			lost = append(lost, id)
		}
	}
	if len(lost) == 0 {
		return
	}
	sort.Slice(lost, func(i, j int) bool { return lost[i] < lost[j] })
	if err := r.eng.Advance(r.now()); err != nil {
		r.logf("advance: %v", err)
	}
	for _, id := range lost {
		r.event("attempt-unknown", hi.reg.Host, "attempt %d is not running on its worker; its task runs again", id)
		if err := r.eng.AttemptAbandoned(id, "its worker does not know it"); err != nil {
			r.logf("attempt %d: %v", id, err)
		}
	}
}

// reconcileGrace is how old a dispatched attempt must be before a
// heartbeat without it counts: a heartbeat can leave before the launch
// arrives, but a report always arrives before the next heartbeat.
const reconcileGrace = 3 * heartbeatInterval

func (r *run) attemptEnded(ev *wire.AttemptEnded) {
	if _, ok := r.known(ev.Host); !ok {
		r.event("late-report", ev.Host, "attempt %d from a host not in the run", ev.Attempt)
		return
	}
	id := engine.AttemptID(ev.Attempt)
	a := r.eng.Attempt(id)
	if a == nil || r.topo.Hosts[a.Host].Name != ev.Host {
		return // killed or failed already; its end was recorded then
	}
	if err := r.eng.Advance(r.now()); err != nil {
		r.logf("advance: %v", err)
	}
	if !ev.OK {
		r.phases[id] = phases{Read: ev.ReadSeconds, Compute: ev.ComputeSeconds, Write: ev.WriteSeconds, Reason: ev.Reason}
		if err := r.eng.AttemptFailed(id, ev.Reason); err != nil {
			r.logf("attempt %d: %v", id, err)
		}
		r.event("attempt-failed", ev.Host, "attempt %d: %s", id, ev.Reason)
		return
	}
	r.phases[id] = phases{Read: ev.ReadSeconds, Compute: ev.ComputeSeconds, Write: ev.WriteSeconds}
	var bc engine.ByteCounts
	for name, row := range ev.Bytes {
		for c := engine.Class(0); c < engine.NumClasses; c++ {
			if c.String() == name {
				for l := range row {
					bc[c][l] += row[l]
				}
			}
		}
	}
	if err := r.eng.AttemptSucceeded(id, &bc); err != nil {
		// the worker is done with it either way: rerun the task
		r.event("report-refused", ev.Host, "attempt %d: %v; its task runs again", id, err)
		if err := r.eng.AttemptAbandoned(id, "its success was refused: "+err.Error()); err != nil {
			r.logf("attempt %d: %v", id, err)
		}
	}
}

// checkHosts declares lost the hosts whose heartbeats stopped or whom
// memberlist saw die.
func (r *run) checkHosts() {
	if r.member != nil {
		for {
			select {
			case ev := <-r.member.Events():
				if ev.Kind == members.Left && ev.Peer.Role == members.RoleWorker {
					if hi, ok := r.known(ev.Peer.Name); ok {
						hi.deadSince = time.Now()
					}
				}
				continue
			default:
			}
			break
		}
	}
	// Two witnesses: memberlist's failure detector, confirmed by a missed
	// heartbeat (a worker busy burning CPU can be slow to answer a probe
	// but still heartbeats), or heartbeats silent for the full timeout.
	now := time.Now()
	for i := range r.hosts {
		h := &r.hosts[i]
		if h.reg == nil || h.lost {
			continue
		}
		silent := now.Sub(h.lastSeen)
		switch {
		case !h.deadSince.IsZero() && h.deadSince.After(h.lastSeen) && silent > 2*heartbeatInterval:
			r.lose(h.reg.Host, fmt.Sprintf("memberlist declared it dead and no heartbeat for %v", silent.Round(time.Millisecond)))
		case silent > r.cfg.HeartbeatTimeout:
			r.lose(h.reg.Host, fmt.Sprintf("no heartbeat for %v", silent.Round(time.Millisecond)))
		}
	}
}

func (r *run) lose(name, why string) {
	hi, ok := r.known(name)
	if !ok || r.eng == nil {
		return
	}
	hi.lost = true
	r.res.HostsLost = append(r.res.HostsLost, name)
	if err := r.eng.Advance(r.now()); err != nil {
		r.logf("advance: %v", err)
	}
	before := r.eng.Stats.Recomputed
	if err := r.eng.HostLost(hi.id); err != nil {
		r.logf("host lost: %v", err)
	}
	r.event("host-lost", name, "%s; %d finished tasks to recompute", why, r.eng.Stats.Recomputed-before)
	// it may be alive but slow: its attempts and objects are of no use
	r.send(name, wire.TypeReset, &wire.Reset{Reason: "declared lost: " + why})
}

// sampleNetwork feeds the engine the network status from the workers'
// reports, and records rack-link utilisation from the kernel counters.
// sampleNetwork hands the engine the network status every
// engine.NetworkWindow: each rack link's load over the window as a share
// of its nominal capacity, background traffic included, from the kernel's
// counters where the cluster has them (the emulator's), else from the
// workers' own counts; and each host's receive rate. It also records the
// kernel-counted link utilisation.
func (r *run) sampleNetwork() {
	now := time.Now()
	dt := now.Sub(r.lastNet).Seconds()
	if dt < engine.NetworkWindow {
		return
	}
	r.lastNet = now
	nr := len(r.topo.Racks)
	st := engine.NetworkStatus{UplinkLoad: make([]float64, nr), DownlinkLoad: make([]float64, nr),
		HostRxBps: make([]float64, len(r.hosts)), Window: dt}
	upB, downB := make([]float64, nr), make([]float64, nr)
	for i := range r.hosts {
		h := &r.hosts[i]
		if h.reg == nil || h.lost {
			continue
		}
		st.HostRxBps[i] = float64(h.rxBytes-h.prevRx) / dt
		h.prevRx = h.rxBytes
		dst := r.topo.Hosts[i].Rack
		for rack, n := range h.crossRx {
			src, ok := r.rackName[rack]
			if !ok {
				continue
			}
			d := float64(n - h.prevCross[rack])
			h.prevCross[rack] = n
			upB[src] += d
			downB[dst] += d
		}
	}
	util, kernel := r.kernelUtilisation(dt)
	bg := r.cfg.Background
	for k, rk := range r.topo.Racks {
		switch {
		case kernel:
			st.UplinkLoad[k], st.DownlinkLoad[k] = bg+util[k], bg+util[nr+k]
		default:
			if rk.UplinkBps > 0 {
				st.UplinkLoad[k] = bg + upB[k]/dt/rk.UplinkBps
			}
			if rk.DownlinkBps > 0 {
				st.DownlinkLoad[k] = bg + downB[k]/dt/rk.DownlinkBps
			}
		}
	}
	r.eng.SetNetwork(st)
	if !kernel {
		return
	}
	for k, rk := range r.topo.Racks {
		r.prom.linkUtil.WithLabelValues(rk.Name, "up").Set(util[k])
		r.prom.linkUtil.WithLabelValues(rk.Name, "down").Set(util[nr+k])
	}
	if err := r.sink.LinkSample(r.now(), util[:nr], util[nr:]); err != nil {
		r.logf("link sample: %v", err)
	}
}

// kernelUtilisation is each rack link's workload payload over the last dt
// seconds from the kernel's counters, as a share of its capacity: uplinks
// then downlinks. ok is false where the cluster has no such counters.
func (r *run) kernelUtilisation(dt float64) (util []float64, ok bool) {
	if r.cfg.Counters == nil {
		return nil, false
	}
	nr := len(r.topo.Racks)
	u, d, err := r.cfg.Counters()
	if err != nil || len(u) < nr || len(d) < nr {
		return nil, false
	}
	cur := append(append([]float64(nil), u[:nr]...), d[:nr]...)
	if r.lastCounters == nil {
		r.lastCounters = r.counter0
	}
	util = make([]float64, 2*nr)
	for k, rk := range r.topo.Racks {
		if rk.UplinkBps > 0 {
			util[k] = (cur[k] - r.lastCounters[k]) / dt / rk.UplinkBps
		}
		if rk.DownlinkBps > 0 {
			util[nr+k] = (cur[nr+k] - r.lastCounters[nr+k]) / dt / rk.DownlinkBps
		}
	}
	r.lastCounters = cur
	return util, true
}

func (r *run) finish() {
	if r.sink == nil {
		return
	}
	r.finished = true
	if r.workerCounted {
		// the heartbeats that carry the last bytes' counts
		for deadline := time.After(2 * heartbeatInterval); ; {
			select {
			case m := <-r.inbox:
				r.handle(m)
				continue
			case <-deadline:
			}
			break
		}
	}
	var up, down []float64
	if r.cfg.Counters != nil {
		u, d, err := r.cfg.Counters()
		if err != nil {
			r.event("counters-failed", "", "%v", err)
		} else {
			nr := len(r.topo.Racks)
			up, down = make([]float64, nr), make([]float64, nr)
			r.res.KernelCrossBytes = 0
			for i := 0; i < nr && i < len(u); i++ {
				up[i] = u[i] - r.counter0[i]
				down[i] = d[i] - r.counter0[nr+i]
				r.res.KernelCrossBytes += up[i]
			}
		}
	}
	if err := r.sink.Finish(&r.eng.Stats, up, down); err != nil {
		r.logf("records: %v", err)
	}
	if err := r.sink.Close(); err != nil {
		r.logf("records: %v", err)
	}
	if err := writeJSON(filepath.Join(r.cfg.OutDir, "result.json"), &r.res); err != nil {
		r.logf("result: %v", err)
	}
	r.event("finished", "", "expected cross-rack %d B, workers reported %d B, kernel %.0f B", r.res.ExpectedCrossBytes, r.res.ReportedCrossBytes, r.res.KernelCrossBytes)
}

type attemptRecord struct {
	ID       int64                              `json:"id"`
	Job      string                             `json:"job"`
	Stage    int                                `json:"stage"`
	Index    int                                `json:"index"`
	Host     string                             `json:"host"`
	Start    float64                            `json:"start"`
	End      float64                            `json:"end"`
	Outcome  string                             `json:"outcome"`
	Dup      bool                               `json:"duplicate,omitempty"`
	Locality string                             `json:"locality"`
	Expected map[string][engine.NumLevels]int64 `json:"expected_bytes"`
	Reported map[string][engine.NumLevels]int64 `json:"reported_bytes,omitempty"`
	Phases   *phases                            `json:"phases,omitempty"`
}

// phases are the worker's timing of an attempt, and why it failed.
type phases struct {
	Read    float64 `json:"read_s"`
	Compute float64 `json:"compute_s"`
	Write   float64 `json:"write_s"`
	Reason  string  `json:"reason,omitempty"`
}

func byClass(b *engine.ByteCounts) map[string][engine.NumLevels]int64 {
	out := map[string][engine.NumLevels]int64{}
	for c := range b {
		if b[c] != ([engine.NumLevels]int64{}) {
			out[engine.Class(c).String()] = b[c]
		}
	}
	return out
}

func attemptLine(t *cluster.Topology, rec *engine.AttemptRecord) attemptRecord {
	l := attemptRecord{ID: int64(rec.ID), Job: rec.JobName, Stage: int(rec.Task.Stage), Index: int(rec.Task.Index),
		Host: t.Hosts[rec.Host].Name, Start: rec.Start, End: rec.End, Outcome: rec.Outcome.String(), Dup: rec.Duplicate,
		Locality: rec.Locality.String(), Expected: byClass(&rec.Bytes)}
	if rec.Reported != nil {
		l.Reported = byClass(rec.Reported)
	}
	return l
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
