package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/metricsrv"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/members"
	"github.com/racklab/racklab/worker/store"
	"github.com/racklab/racklab/worker/task"
)

// Config configures a worker.
type Config struct {
	Host  string // the topology's host name
	Rack  string
	Slots int
	// NATS: the server URL, the password of this host's own user
	// (wire.WorkerUser(Host)), and the cluster name that prefixes every
	// subject.
	NATSURL  string
	Password string
	Cluster  string
	// DataAddr is where the data server listens (ip:port; port 0 picks
	// one). The ip is what peers dial, so it must be the data NIC's.
	DataAddr string
	// MemberAddr is the ip memberlist binds, on the management network;
	// MemberPort its port (0 picks one; a lab with a firewall wants a
	// fixed one, such as memberlist's 7946).
	MemberAddr string
	MemberPort int
	Tiers      []store.TierConfig
	// DataDev is the data NIC, for counters and host shaping.
	DataDev string
	// ShapeBps, when positive, makes the worker shape its own traffic to
	// every other rack at this rate (host shaping).
	ShapeBps float64
	// ShapePriorities gives each shaped rack class one HTB leaf per band
	// of the priority table (internal/traffic), chosen by DSCP.
	ShapePriorities bool
	// Share, with ShapeBps, sets the rack classes by demand sharing
	// instead (ShapeBps is the rate until the first share).
	Share *ShareConfig
	// DeadMan, when positive and shaping is on, starts a guardian process
	// that removes the shaping if the worker dies or stops refreshing it
	// for this long (see deadman.go); GuardArgs are the arguments that
	// make this binary (/proc/self/exe) run as a guardian, e.g.
	// {"--guard"} or {"worker", "--guard"}.
	DeadMan   time.Duration
	GuardArgs []string
	// SleepCompute makes attempts wait their compute time out rather
	// than burn it (task.Env.SleepCompute): for hosts emulated on one
	// machine.
	SleepCompute bool
	Fetchers     int
	// Congestion is the TCP congestion control of the data plane's
	// sockets, both ends ("": the system's default).
	Congestion string
	Heartbeat  time.Duration // default 500 ms
	// MetricsAddr, when set, serves Prometheus metrics on /metrics there.
	MetricsAddr string
	Logf        func(format string, args ...any)
}

// Worker is a running worker.
type Worker struct {
	cfg      Config
	subj     wire.Subjects
	nc       *nats.Conn
	st       *store.Store
	server   *dataplane.Server
	dataLn   net.Listener
	members  *members.Agent
	env      *task.Env
	shaper   *shaper
	guard    *guardian
	prom     *workerMetrics
	stopProm func()

	mu       sync.Mutex
	attempts map[int64]*task.Attempt
	// the materialization under way, if any
	matCancel context.CancelFunc
	matDone   chan struct{}
	// the replica moves under way, cancelled together by a reset or by
	// shutdown
	movesCtx    context.Context
	movesCancel context.CancelFunc
	moves       sync.WaitGroup
	crossRx     map[string]uint64
	seq         uint64
}

// Run runs a worker until ctx ends or the coordinator says stop. It
// removes what it made (objects, shaping) before returning.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 500 * time.Millisecond
	}
	if err := wire.CheckHostName(cfg.Host); err != nil {
		return err
	}
	if cfg.Slots <= 0 {
		return fmt.Errorf("worker %s: slots must be positive", cfg.Host)
	}
	if cfg.DeadMan < 0 {
		return fmt.Errorf("worker %s: negative dead-man interval %v", cfg.Host, cfg.DeadMan)
	}
	subj, err := wire.NewSubjects(cfg.Cluster)
	if err != nil {
		return err
	}
	w := &Worker{cfg: cfg, subj: subj, attempts: map[int64]*task.Attempt{}, crossRx: map[string]uint64{}}
	w.movesCtx, w.movesCancel = context.WithCancel(context.Background())
	defer w.close()
	if err := w.open(); err != nil {
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	unguarded := w.stopIfUnguarded(ctx, stop)
	err = w.serve(ctx, stop)
	stop()
	if lost := unguarded(); lost != nil {
		return lost // the cause of whatever serve made of its cancellation
	}
	return err
}

func (w *Worker) open() error {
	var err error
	if w.st, err = store.Open(w.cfg.Tiers); err != nil {
		return fmt.Errorf("worker %s: %w", w.cfg.Host, err)
	}
	if err := dataplane.CheckCongestion(w.cfg.Congestion); err != nil {
		return fmt.Errorf("worker %s: --tcp-congestion: %w", w.cfg.Host, err)
	}
	if w.dataLn, err = dataplane.Listen(w.cfg.DataAddr, w.cfg.Congestion); err != nil {
		return fmt.Errorf("worker %s: data server: %w", w.cfg.Host, err)
	}
	w.server = dataplane.NewServer(w.st, w.cfg.Logf)
	go w.server.Serve(w.dataLn)
	w.members, err = members.Start(members.Config{
		Name:     w.cfg.Host,
		Meta:     members.Meta{Role: members.RoleWorker, Rack: w.cfg.Rack, DataAddr: w.dataLn.Addr().String()},
		BindAddr: w.cfg.MemberAddr,
		BindPort: w.cfg.MemberPort,
	})
	if err != nil {
		return fmt.Errorf("worker %s: %w", w.cfg.Host, err)
	}
	if w.cfg.ShapeBps > 0 {
		if w.shaper, err = newShaper(w.cfg.DataDev, w.cfg.Rack, w.cfg.ShapeBps, w.cfg.ShapePriorities, w.cfg.Share != nil); err != nil {
			return fmt.Errorf("worker %s: host shaping on %s: %w", w.cfg.Host, w.cfg.DataDev, err)
		}
		if err := w.startGuardian(); err != nil {
			return err
		}
	}
	w.prom = newWorkerMetrics(w)
	if w.cfg.MetricsAddr != "" {
		var bound string
		if bound, w.stopProm, err = metricsrv.Serve(w.prom.reg, w.cfg.MetricsAddr, w.cfg.Logf); err != nil {
			return fmt.Errorf("worker %s: metrics on %s: %w", w.cfg.Host, w.cfg.MetricsAddr, err)
		}
		w.cfg.Logf("worker %s: metrics on http://%s/metrics", w.cfg.Host, bound)
	}
	w.env = &task.Env{Host: w.cfg.Host, Rack: w.cfg.Rack, Store: w.st, Client: dataplane.NewClient(5 * time.Second).UseCongestion(w.cfg.Congestion),
		Fetchers: w.cfg.Fetchers, CrossRx: w.noteCrossRx, SleepCompute: w.cfg.SleepCompute, Logf: w.cfg.Logf,
		// published from the attempt's goroutine, so that it goes out
		// before the attempt's end, which the serve loop publishes
		InputDone: func(ev wire.InputDone) { w.publish(wire.TypeInputDone, &ev) }}
	// the pipelines of other workers' outputs go on through this one
	w.server.ForwardWith(w.env.Client)
	// replies to our requests come to our own inboxes, which only our
	// user may hear
	opts := []nats.Option{nats.Name("racklab-worker-" + w.cfg.Host), nats.MaxReconnects(-1), nats.ReconnectWait(natsRetryWait),
		nats.RetryOnFailedConnect(true), nats.CustomInboxPrefix(w.subj.Inbox(w.cfg.Host))}
	if w.cfg.Password != "" {
		opts = append(opts, nats.UserInfo(wire.WorkerUser(w.cfg.Host), w.cfg.Password))
	}
	// the worker waits for its coordinator as long as it takes, and says
	// so: a wrong --nats must not look like an idle worker
	var lastRetryLog time.Time
	opts = append(opts,
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) {
			if time.Since(lastRetryLog) >= natsRetryLogEvery {
				lastRetryLog = time.Now()
				w.cfg.Logf("worker %s: NATS at %s does not answer (%v); retrying every %v", w.cfg.Host, w.cfg.NATSURL, err, natsRetryWait)
			}
		}),
		nats.ConnectHandler(func(nc *nats.Conn) {
			w.cfg.Logf("worker %s: connected to NATS at %s", w.cfg.Host, nc.ConnectedUrlRedacted())
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			w.cfg.Logf("worker %s: reconnected to NATS at %s", w.cfg.Host, nc.ConnectedUrlRedacted())
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				w.cfg.Logf("worker %s: NATS connection lost (%v); reconnecting", w.cfg.Host, err)
			}
		}))
	if w.nc, err = nats.Connect(w.cfg.NATSURL, opts...); err != nil {
		return fmt.Errorf("worker %s: connect to NATS at %s: %w", w.cfg.Host, w.cfg.NATSURL, err)
	}
	if w.cfg.Share != nil {
		// last: it reports its problems over NATS
		if w.shaper == nil {
			return fmt.Errorf("worker %s: demand sharing needs host shaping (--shape)", w.cfg.Host)
		}
		if err := w.shaper.startSharing(w.members, w.cfg.Host, *w.cfg.Share, w.problem); err != nil {
			return fmt.Errorf("worker %s: %w", w.cfg.Host, err)
		}
	}
	return nil
}

// natsRetryWait is the wait between attempts to reach NATS, and
// natsRetryLogEvery how often a worker that cannot says so.
const (
	natsRetryWait     = 200 * time.Millisecond
	natsRetryLogEvery = 10 * time.Second
)

func (w *Worker) close() {
	w.stopMaterialize()
	w.stopMoves()
	w.mu.Lock()
	for _, a := range w.attempts {
		a.Kill()
	}
	w.mu.Unlock()
	if w.nc != nil {
		w.nc.Close()
	}
	if w.stopProm != nil {
		w.stopProm()
	}
	if w.members != nil {
		_ = w.members.Leave(500 * time.Millisecond)
	}
	if w.server != nil {
		w.server.Close()
	}
	if w.shaper != nil {
		err := w.shaper.close()
		if err != nil {
			w.cfg.Logf("worker %s: remove shaping: %v", w.cfg.Host, err)
		}
		if w.guard != nil {
			// removed: the guardian leaves the NIC alone; not removed:
			// it tries too
			w.guard.stop(err == nil)
		}
	}
	if w.st != nil {
		if err := w.st.Wipe(); err != nil {
			w.cfg.Logf("worker %s: wipe store: %v", w.cfg.Host, err)
		}
	}
}

func (w *Worker) register(ctx context.Context) error {
	var tiers []wire.TierInfo
	for _, t := range w.cfg.Tiers {
		tiers = append(tiers, wire.TierInfo{Kind: t.Kind.String(), ReadBps: t.ReadBps, WriteBps: t.WriteBps, Capacity: t.Capacity})
	}
	req := wire.MustEncode(wire.TypeRegister, &wire.Register{Host: w.cfg.Host, Rack: w.cfg.Rack, Slots: w.cfg.Slots, Tiers: tiers,
		DataAddr: w.dataLn.Addr().String(), MemberAddr: w.members.Addr(), Pid: os.Getpid(), Facts: Facts()})
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		msg, err := w.nc.RequestWithContext(rctx, w.subj.Register(w.cfg.Host), req)
		cancel()
		if err == nil {
			var rep wire.Registered
			if err := wire.Decode(msg.Data, wire.TypeRegistered, &rep); err != nil {
				return fmt.Errorf("worker %s: registration answer: %w", w.cfg.Host, err)
			}
			if !rep.OK {
				return fmt.Errorf("worker %s: the coordinator refused registration: %s", w.cfg.Host, rep.Error)
			}
			if w.shaper != nil {
				w.shaper.setRacks(rep.Racks)
			}
			if err := w.members.Join(rep.Members); err != nil {
				w.cfg.Logf("worker %s: %v", w.cfg.Host, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// the coordinator may not be up yet
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (w *Worker) serve(ctx context.Context, stop context.CancelFunc) error {
	cmds := make(chan *nats.Msg, 4096)
	sub, err := w.nc.ChanSubscribe(w.subj.Worker(w.cfg.Host), cmds)
	if err != nil {
		return fmt.Errorf("worker %s: subscribe: %w", w.cfg.Host, err)
	}
	defer sub.Unsubscribe()
	hsub, err := w.nc.ChanSubscribe(w.subj.Hello(), cmds)
	if err != nil {
		return fmt.Errorf("worker %s: subscribe: %w", w.cfg.Host, err)
	}
	defer hsub.Unsubscribe()
	if err := w.register(ctx); err != nil {
		return err
	}
	w.cfg.Logf("worker %s (rack %s) registered; data on %s, TCP %s", w.cfg.Host, w.cfg.Rack, w.dataLn.Addr(), congestionName(w.cfg.Congestion))
	hb := time.NewTicker(w.cfg.Heartbeat)
	defer hb.Stop()
	ended := make(chan wire.AttemptEnded, 1024)
	w.heartbeat()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-cmds:
			if typ, _ := wire.Peek(m.Data); typ == wire.TypeHello {
				// a new coordinator: join its run
				if err := w.register(ctx); err != nil {
					return err
				}
				w.heartbeat()
				continue
			}
			if w.handle(ctx, m.Data, ended) {
				stop()
			}
		case rep := <-ended:
			w.mu.Lock()
			delete(w.attempts, rep.Attempt)
			w.mu.Unlock()
			w.prom.attemptEnded(&rep)
			w.publish(wire.TypeAttemptEnded, &rep)
		case <-hb.C:
			w.heartbeat()
		case ev := <-w.members.Events():
			if ev.Kind == members.Left {
				w.cfg.Logf("worker %s: peer %s (rack %s) is gone", w.cfg.Host, ev.Peer.Name, ev.Peer.Rack)
			}
			if w.shaper != nil {
				if err := w.shaper.update(w.members.Peers()); err != nil {
					w.problem("host shaping: %v", err)
				}
			}
		}
	}
}

func (w *Worker) publish(typ string, body any) {
	if err := w.nc.Publish(w.subj.Events(w.cfg.Host), wire.MustEncode(typ, body)); err != nil {
		w.cfg.Logf("worker %s: publish %s: %v", w.cfg.Host, typ, err)
	}
}

func (w *Worker) problem(format string, args ...any) {
	p := fmt.Sprintf(format, args...)
	w.cfg.Logf("worker %s: %s", w.cfg.Host, p)
	w.publish(wire.TypeWorkerProblem, &wire.WorkerProblem{Host: w.cfg.Host, Problem: p})
}

// handle acts on one command; it reports whether the worker should stop.
func (w *Worker) handle(ctx context.Context, data []byte, ended chan<- wire.AttemptEnded) bool {
	typ, err := wire.Peek(data)
	if err != nil {
		w.problem("dropped a command: %v", err)
		return false
	}
	switch typ {
	case wire.TypeLaunch:
		if l, ok := decodeCommand[wire.Launch](w, data, typ); ok {
			w.launch(ctx, *l, ended)
		}
	case wire.TypeSources:
		if src, ok := decodeCommand[wire.Sources](w, data, typ); ok {
			if a := w.attempt(src.Attempt); a != nil {
				a.AddSources(*src)
			}
		}
	case wire.TypeKill:
		if k, ok := decodeCommand[wire.Kill](w, data, typ); ok {
			if a := w.attempt(k.Attempt); a != nil {
				a.Kill()
			}
		}
	case wire.TypePriority:
		if p, ok := decodeCommand[wire.Priority](w, data, typ); ok {
			if a := w.attempt(p.Attempt); a != nil {
				if err := a.SetDSCP(p.DSCP); err != nil {
					w.problem("re-mark attempt %d: %v", p.Attempt, err)
				}
			}
		}
	case wire.TypeMaterialize:
		if m, ok := decodeCommand[wire.Materialize](w, data, typ); ok {
			w.startMaterialize(*m)
		}
	case wire.TypeMoveReplica:
		w.moveReplica(data, typ)
	case wire.TypeReset:
		w.stopMaterialize()
		w.stopMoves()
		w.mu.Lock()
		for _, a := range w.attempts {
			a.Kill()
		}
		w.mu.Unlock()
		if err := w.st.Wipe(); err != nil {
			w.problem("reset: %v", err)
		}
	case wire.TypeStop:
		var s wire.Stop
		_ = wire.Decode(data, typ, &s)
		w.cfg.Logf("worker %s: stopping: %s", w.cfg.Host, s.Reason)
		return true
	default:
		w.problem("dropped a %q message: not a worker command", typ)
	}
	return false
}

// decodeCommand decodes a command's body, or reports it malformed.
func decodeCommand[T any](w *Worker, data []byte, typ string) (*T, bool) {
	var v T
	if err := wire.Decode(data, typ, &v); err != nil {
		w.problem("dropped a command: %v", err)
		return nil, false
	}
	return &v, true
}

func (w *Worker) attempt(id int64) *task.Attempt {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.attempts[id]
}

func (w *Worker) launch(ctx context.Context, l wire.Launch, ended chan<- wire.AttemptEnded) {
	if l.Kind == wire.KindNoop {
		// answered inline: the dispatch benchmark measures the protocol
		w.publish(wire.TypeAttemptEnded, &wire.AttemptEnded{Attempt: l.Attempt, Run: l.Run, Host: w.cfg.Host, OK: true})
		return
	}
	w.mu.Lock()
	if w.attempts[l.Attempt] != nil {
		w.mu.Unlock()
		w.problem("attempt %d launched twice", l.Attempt)
		return
	}
	a, err := task.Start(ctx, w.env, l)
	if err != nil {
		w.mu.Unlock()
		w.publish(wire.TypeAttemptEnded, &wire.AttemptEnded{Attempt: l.Attempt, Run: l.Run, Host: w.cfg.Host, Reason: err.Error()})
		return
	}
	w.attempts[l.Attempt] = a
	w.mu.Unlock()
	go func() { ended <- <-a.Done() }()
}

// startMaterialize writes blocks in the background, cancelled by a reset
// or by shutdown.
func (w *Worker) startMaterialize(m wire.Materialize) {
	w.stopMaterialize()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.mu.Lock()
	w.matCancel, w.matDone = cancel, done
	w.mu.Unlock()
	go func() {
		defer close(done)
		w.materialize(ctx, m)
	}()
}

// stopMaterialize cancels a materialization under way and waits for it.
func (w *Worker) stopMaterialize() {
	w.mu.Lock()
	cancel, done := w.matCancel, w.matDone
	w.matCancel, w.matDone = nil, nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (w *Worker) materialize(ctx context.Context, m wire.Materialize) {
	start := time.Now()
	var mu sync.Mutex
	rep := wire.Materialized{Host: w.cfg.Host}
	sums := map[string]uint64{}
	var errs []error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	stop := make(chan struct{})
	progressDone := make(chan struct{})
	go func() { // progress, about once a second
		defer close(progressDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				mu.Lock()
				p := rep
				mu.Unlock()
				p.Seconds = time.Since(start).Seconds()
				w.publish(wire.TypeMaterialized, &p)
			}
		}
	}()
	for _, b := range m.Blocks {
		tier, err := cluster.ParseTierKind(b.Tier)
		if err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("block %s: %w", b.Key, err))
			mu.Unlock()
			continue
		}
		wg.Add(1)
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Done()
			continue
		}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			sum, err := w.st.GenerateContext(ctx, tier, b.Key, b.Size, m.Seed)
			if err == nil {
				// read back what landed on the tier
				var stored uint64
				if stored, err = w.st.StoredChecksum(tier, b.Key); err == nil && stored != sum {
					err = fmt.Errorf("block %s on %s: checksum %016x read back, %016x written", b.Key, tier, stored, sum)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			sums[b.Key] = sum
			rep.Blocks++
			rep.Bytes += b.Size
		}()
	}
	wg.Wait()
	close(stop)
	<-progressDone
	if ctx.Err() != nil {
		return // reset or shut down: nobody waits for the report
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Done = true
	rep.Checksums = sums
	if err := errors.Join(errs...); err != nil {
		rep.Error = err.Error()
	}
	w.publish(wire.TypeMaterialized, &rep)
}

func (w *Worker) noteCrossRx(rack string, n int64) {
	w.mu.Lock()
	w.crossRx[rack] += uint64(n)
	w.mu.Unlock()
}

func (w *Worker) heartbeat() {
	hb := wire.Heartbeat{Host: w.cfg.Host, Members: map[string]string{}}
	hb.TxBytes, hb.RxBytes = nicCounters(w.cfg.DataDev)
	w.mu.Lock()
	w.seq++
	hb.Seq = w.seq
	for id, a := range w.attempts {
		hb.Running = append(hb.Running, id)
		hb.Progress = append(hb.Progress, a.Progress())
	}
	slices.Sort(hb.Running)
	slices.SortFunc(hb.Progress, func(a, b wire.AttemptProgress) int { return cmp.Compare(a.Attempt, b.Attempt) })
	hb.CrossRxByRack = make(map[string]uint64, len(w.crossRx))
	for r, n := range w.crossRx {
		hb.CrossRxByRack[r] = n
	}
	w.mu.Unlock()
	peers := w.members.Peers()
	if w.shaper != nil {
		// filters first, so that the membership reported is one the
		// shaping already covers
		if err := w.shaper.update(peers); err != nil {
			w.problem("host shaping: %v", err)
			peers = nil
		}
	}
	for _, p := range peers {
		if p.Role == members.RoleWorker {
			hb.Members[p.Name] = p.Rack
		}
	}
	if w.shaper != nil {
		hb.Shaped = w.shaper.counters()
	}
	if err := w.nc.Publish(w.subj.Heartbeat(w.cfg.Host), wire.MustEncode(wire.TypeHeartbeat, &hb)); err != nil {
		w.cfg.Logf("worker %s: heartbeat: %v", w.cfg.Host, err)
	}
}

// congestionName names the data plane's congestion control for the log.
func congestionName(cc string) string {
	if cc == "" {
		return "the system's default congestion control"
	}
	return cc
}
