package task

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
)

// Env is what attempts share on one worker.
type Env struct {
	Host   string
	Rack   string
	Store  *store.Store
	Client *dataplane.Client
	// Fetchers is the number of parallel fetches of a shuffling task
	// (Hadoop's parallelcopies); default 5.
	Fetchers int
	// CrossRx, when set, is told of every payload byte received from
	// another rack, as it arrives (the heartbeat's network status).
	CrossRx func(rack string, n int64)
	// InputDone, when set, is told once per attempt that the attempt has
	// all its input, before it computes and writes. It is called on the
	// attempt's goroutine, which waits for it: it must not block.
	InputDone func(wire.InputDone)
	// SleepCompute makes an attempt's compute phase wait its time out
	// instead of spending it on the CPU. A host has its own cores; hosts
	// emulated on one machine share its few, and tens of burning slots
	// would starve every host's data plane of them.
	SleepCompute bool
	// Logf, when set, gets a line for what goes wrong beside an attempt's
	// report of its end: its clean-up of copies on other workers.
	Logf func(format string, args ...any)
}

// Attempt is one running attempt.
type Attempt struct {
	env    *Env
	l      wire.Launch
	group  *dataplane.Group
	ctx    context.Context
	cancel context.CancelFunc
	done   chan wire.AttemptEnded

	mu       sync.Mutex
	sources  map[string]*source // by upstream task
	complete bool
	changed  chan struct{} // signalled when sources change

	bytes [dataplane.NumClasses][wire.NumLevels]atomic.Int64
	// received is the input read or fetched so far, without the partial
	// bytes of failed fetches; inputDone turns true once it is all there.
	// The heartbeat reads both from another goroutine.
	received  atomic.Int64
	inputDone atomic.Bool
	started   time.Time
	// sentCopies is set once the output's copies to other workers have
	// started: a failed attempt then deletes them (dropCopies).
	sentCopies atomic.Bool
}

type source struct {
	r       wire.Range
	state   uint8 // waiting, fetching, fetched
	failed  bool  // the last fetch failed: wait for a replacement or retryAt
	retryAt time.Time
	fetched int64
}

const (
	waiting = iota
	fetching
	fetched
)

// Start runs an attempt in the background. Its report arrives on Done.
func Start(parent context.Context, env *Env, l wire.Launch) (*Attempt, error) {
	class, err := dataplane.ParseClass(l.Class)
	if err != nil && l.Kind != wire.KindNoop {
		return nil, fmt.Errorf("attempt %d: %w", l.Attempt, err)
	}
	g := dataplane.NewGroup(class)
	if l.DSCP != 0 {
		if err := g.SetDSCP(l.DSCP); err != nil {
			return nil, fmt.Errorf("attempt %d: %w", l.Attempt, err)
		}
	}
	ctx, cancel := context.WithCancel(parent)
	a := &Attempt{env: env, l: l, group: g, ctx: ctx, cancel: cancel, started: time.Now(),
		done: make(chan wire.AttemptEnded, 1), sources: map[string]*source{}, changed: make(chan struct{}, 1)}
	a.addSources(l.Sources, l.Complete, l.InputBytes, l.OutputBytes)
	go a.run(class)
	return a, nil
}

// ID is the attempt's id.
func (a *Attempt) ID() int64 { return a.l.Attempt }

// Done delivers the attempt's report once.
func (a *Attempt) Done() <-chan wire.AttemptEnded { return a.done }

// Progress is how far the attempt has got with its input. It may be
// called from any goroutine.
func (a *Attempt) Progress() wire.AttemptProgress {
	// the flag first: an attempt seen done has its final count
	done := a.inputDone.Load()
	return wire.AttemptProgress{Attempt: a.l.Attempt, Received: a.received.Load(), InputDone: done}
}

// haveInput marks the attempt's input complete and tells the worker.
func (a *Attempt) haveInput() {
	a.inputDone.Store(true)
	if a.env.InputDone == nil {
		return
	}
	now := time.Now()
	a.env.InputDone(wire.InputDone{Host: a.env.Host, Attempt: a.l.Attempt, Run: a.l.Run, Bytes: a.received.Load(),
		At: now.UTC(), Seconds: now.Sub(a.started).Seconds()})
}

// Kill stops the attempt; it reports a failure.
func (a *Attempt) Kill() { a.cancel() }

// SetDSCP re-marks the attempt's open and future sockets.
func (a *Attempt) SetDSCP(d uint8) error { return a.group.SetDSCP(d) }

// AddSources adds newly available partitions.
func (a *Attempt) AddSources(s wire.Sources) {
	a.addSources(s.Sources, s.Complete, s.InputBytes, s.OutputBytes)
}

func (a *Attempt) addSources(rs []wire.Range, complete bool, in, out int64) {
	a.mu.Lock()
	for _, r := range rs {
		old := a.sources[r.Task]
		switch {
		case old == nil:
			a.sources[r.Task] = &source{r: r}
		case old.state == fetched:
			// already have it; a recomputed copy changes nothing
		case old.r.Object != r.Object:
			// another copy, or the same one moved to another tier or
			// served from another address
			if old.state == waiting {
				old.r, old.failed = r, false
			} else {
				// in flight from the old copy: fetch the new one when it ends
				old.r = r
			}
		}
	}
	if complete && !a.complete {
		// the first complete list fixes the sizes; a later one (resent
		// after a host loss) changes nothing the attempt has fetched
		a.complete = true
		a.l.InputBytes, a.l.OutputBytes = in, out
	}
	a.mu.Unlock()
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

func (a *Attempt) run(class dataplane.Class) {
	rep := wire.AttemptEnded{Attempt: a.l.Attempt, Run: a.l.Run, Host: a.env.Host, OK: true}
	var err error
	switch a.l.Kind {
	case wire.KindNoop:
	case wire.KindMap:
		err = a.runMap(&rep, class)
	default:
		err = a.runShuffle(&rep, class)
	}
	if err == nil {
		err = a.ctx.Err()
	}
	if err != nil {
		rep.OK = false
		rep.Reason = err.Error()
		_ = a.env.Store.Remove(a.outputTier(), a.l.OutputKey)
		if a.sentCopies.Load() {
			go a.dropCopies()
		}
	}
	rep.Bytes = map[string][wire.NumLevels]int64{}
	for c := range a.bytes {
		var row [wire.NumLevels]int64
		var any bool
		for l := range row {
			row[l] = a.bytes[c][l].Load()
			any = any || row[l] != 0
		}
		if any {
			rep.Bytes[dataplane.Class(c).String()] = row
		}
	}
	a.cancel()
	a.done <- rep
}

func (a *Attempt) outputTier() cluster.TierKind {
	k, err := cluster.ParseTierKind(a.l.OutputTier)
	if err != nil {
		return cluster.Mem
	}
	return k
}

func (a *Attempt) level(r wire.Object) int {
	return hopLevel(wire.Object{Host: a.env.Host, Rack: a.env.Rack}, r)
}

// counter counts the bytes of one input read into the attempt's accounting
// and progress as they arrive.
type counter struct {
	a     *Attempt
	class dataplane.Class
	level int
	rack  string
	got   *int64 // this read's bytes, taken out of the progress if it fails
}

func (c counter) Write(p []byte) (int, error) {
	n := int64(len(p))
	c.a.bytes[c.class][c.level].Add(n)
	c.a.received.Add(n)
	*c.got += n
	if c.level == wire.LevelCross && c.a.env.CrossRx != nil {
		c.a.env.CrossRx(c.rack, n)
	}
	return len(p), nil
}

// readInput reads a whole input range into the accounting and the
// progress; a read that fails or comes up short counts for nothing in the
// progress (the accounting keeps the bytes that crossed the network).
func (a *Attempt) readInput(class dataplane.Class, r wire.Range) (int64, error) {
	var got int64
	n, err := a.read(class, r, &got)
	if err == nil && n != r.Length {
		err = fmt.Errorf("got %d of %d bytes", n, r.Length)
	}
	if err != nil {
		a.received.Add(-got)
	}
	return n, err
}

// read reads a range, locally or over the data plane, into the accounting.
func (a *Attempt) read(class dataplane.Class, r wire.Range, got *int64) (int64, error) {
	lvl := a.level(r.Object)
	dst := counter{a: a, class: class, level: lvl, rack: r.Rack, got: got}
	tier, err := cluster.ParseTierKind(r.Tier)
	if err != nil {
		return 0, fmt.Errorf("range of %s: %w", r.Task, err)
	}
	if lvl == wire.LevelLocal {
		rc, _, err := a.env.Store.OpenRange(tier, r.Key, r.Offset, r.Length)
		if err != nil {
			return 0, err
		}
		defer rc.Close()
		stop := context.AfterFunc(a.ctx, func() { rc.Close() })
		defer stop()
		return io.CopyBuffer(dst, rc, make([]byte, 256<<10))
	}
	return a.env.Client.Fetch(a.ctx, a.group, r.Addr, tier, r.Key, r.Offset, r.Length, dst)
}

func (a *Attempt) runMap(rep *wire.AttemptEnded, class dataplane.Class) error {
	t0 := time.Now()
	if in := a.l.Input; in != nil {
		if _, err := a.readInput(class, *in); err != nil {
			return fmt.Errorf("read input %s from %s: %w", in.Key, in.Host, err)
		}
	}
	rep.ReadSeconds = time.Since(t0).Seconds()
	a.haveInput()
	return a.computeAndWrite(rep)
}

func (a *Attempt) computeAndWrite(rep *wire.AttemptEnded) error {
	t1 := time.Now()
	var read int64
	for c := range a.bytes {
		if dataplane.Class(c) == dataplane.Output {
			continue
		}
		for l := range a.bytes[c] {
			read += a.bytes[c][l].Load()
		}
	}
	compute := burn
	if a.env.SleepCompute {
		compute = sleep
	}
	if err := compute(a.ctx, time.Duration(a.l.ComputeNsPerByte*float64(read))); err != nil {
		return err
	}
	rep.ComputeSeconds = time.Since(t1).Seconds()
	t2 := time.Now()
	tier := a.outputTier()
	// a late Sources message may still set the sizes: read them once
	a.mu.Lock()
	outBytes := a.l.OutputBytes
	a.mu.Unlock()
	if err := a.writeOutput(tier, outBytes); err != nil {
		return err
	}
	rep.BytesWritten = outBytes
	rep.WriteSeconds = time.Since(t2).Seconds()
	return a.ctx.Err()
}

// writeOutput writes the output on this host and sends it to the replicas
// after the first at the same time, each push streaming the generated
// content as the local copy is written, so that the write phase takes as
// long as its slowest copy, as the simulator models it: one push to each
// replica, or, with the launch's Pipeline, one push to the second replica
// that its worker forwards to the third, and so on (HDFS's write
// pipeline). (It used to write the local copy, then read it back and push
// it to each replica in turn: 3.0-4.3 s against 2.4 s modelled for a
// TeraSort reducer's 15 MB and two replicas, docs/fidelity.md.)
func (a *Attempt) writeOutput(tier cluster.TierKind, size int64) error {
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	seed := uint64(a.l.Attempt)
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	fail := func(err error) {
		errMu.Lock()
		defer errMu.Unlock()
		if first == nil {
			first = err
			cancel()
		}
	}
	reps := a.l.Replicas[min(1, len(a.l.Replicas)):]
	hops := make([]dataplane.Hop, len(reps))
	for i, r := range reps {
		rt, err := cluster.ParseTierKind(r.Tier)
		if err != nil {
			return fmt.Errorf("replica on %s: %w", r.Host, err)
		}
		hops[i] = dataplane.Hop{Addr: r.Addr, Tier: rt, Key: r.Key}
	}
	og := dataplane.NewGroup(dataplane.Output)
	a.sentCopies.Store(len(reps) > 0)
	push := func(from, to int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.push(ctx, og, reps[from:to], hops[from:to], size, seed); err != nil {
				fail(fmt.Errorf("replicate output to %s: %w", reps[from].Host, err))
			}
		}()
	}
	switch {
	case len(reps) == 0:
	case a.l.Pipeline:
		push(0, len(reps)) // one pipeline through them all
	default:
		for i := range reps {
			push(i, i+1)
		}
	}
	if _, err := a.env.Store.GenerateContext(ctx, tier, a.l.OutputKey, size, seed); err != nil {
		fail(fmt.Errorf("write output: %w", err))
	}
	wg.Wait()
	return first
}

// copyCleanupTimeout bounds a failed attempt's deletion of its output's
// copies on other workers; what is left then goes when its worker wipes
// its store.
const copyCleanupTimeout = 30 * time.Second

// dropCopies deletes the copies of a failed attempt's output on the other
// workers, each replica's at once: a replica may have committed its copy
// (the last of a pipeline commits as soon as it has the bytes, whatever
// happens before it), or still be receiving it, which the DELETE stops
// from committing. It runs beside the report of the attempt's end, which
// it does not hold up.
func (a *Attempt) dropCopies() {
	ctx, cancel := context.WithTimeout(context.Background(), copyCleanupTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range a.l.Replicas[min(1, len(a.l.Replicas)):] {
		tier, err := cluster.ParseTierKind(r.Tier)
		if err != nil {
			continue // never pushed: writeOutput refused it
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.env.Client.Delete(ctx, r.Addr, tier, r.Key); err != nil && a.env.Logf != nil {
				a.env.Logf("attempt %d: output copy on %s left until its worker's store is wiped: %v", a.l.Attempt, r.Host, err)
			}
		}()
	}
	wg.Wait()
}

// push sends the output to the replicas of chain (hops, the same as the
// data plane names them), the first forwarding to the next, generating the
// content the local copy has (that of the attempt's output key and seed)
// as it goes. Each copy is counted at the level of its hop: the writer to
// the first, each replica to the next.
func (a *Attempt) push(ctx context.Context, og *dataplane.Group, chain []wire.Object, hops []dataplane.Hop, size int64, seed uint64) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(store.GenContent(pw, a.l.OutputKey, size, seed)) }()
	defer pr.Close() // ends the generator if the push stops early
	if err := a.env.Client.Push(ctx, og, hops[0].Addr, hops[0].Tier, hops[0].Key, pr, size, hops[1:]...); err != nil {
		return err
	}
	from := wire.Object{Host: a.env.Host, Rack: a.env.Rack}
	for _, r := range chain {
		a.bytes[dataplane.Output][hopLevel(from, r)].Add(size)
		from = r
	}
	return nil
}

// hopLevel is the level of a copy from one host to another.
func hopLevel(from, to wire.Object) int {
	switch {
	case from.Host == to.Host:
		return wire.LevelLocal
	case from.Rack == to.Rack:
		return wire.LevelRack
	}
	return wire.LevelCross
}

// runShuffle fetches every partition with parallel fetchers, taking new
// sources as the coordinator announces them, until it has them all.
func (a *Attempt) runShuffle(rep *wire.AttemptEnded, class dataplane.Class) error {
	t0 := time.Now()
	fetchers := a.env.Fetchers
	if fetchers <= 0 {
		fetchers = 5
	}
	type result struct {
		s    *source
		from wire.Object
		n    int64
		err  error
	}
	results := make(chan result, fetchers)
	inflight := 0
	retry := time.NewTicker(500 * time.Millisecond)
	defer retry.Stop()
	for {
		a.mu.Lock()
		now := time.Now()
		for _, s := range a.sources {
			if s.failed && now.After(s.retryAt) {
				s.failed = false
			}
		}
		done := a.complete && inflight == 0
		for _, s := range a.sources {
			if s.state != fetched {
				done = false
			}
		}
		// each source with its range as of now: addSources may replace
		// s.r (under a.mu) while the fetch runs
		type start struct {
			s *source
			r wire.Range
		}
		var next []start
		for _, s := range a.sources {
			if inflight+len(next) < fetchers && s.state == waiting && !s.failed {
				s.state = fetching
				next = append(next, start{s, s.r})
			}
		}
		a.mu.Unlock()
		if done {
			break
		}
		for _, st := range next {
			inflight++
			s, r := st.s, st.r
			go func() {
				n, err := a.readInput(class, r)
				results <- result{s: s, from: r.Object, n: n, err: err}
			}()
		}
		select {
		case <-a.ctx.Done():
			for ; inflight > 0; inflight-- {
				<-results
			}
			return a.ctx.Err()
		case <-a.changed:
		case <-retry.C:
		case res := <-results:
			inflight--
			a.mu.Lock()
			switch {
			case res.err == nil:
				res.s.state = fetched
				res.s.fetched = res.n
			case res.s.r.Object != res.from:
				res.s.state = waiting // a replacement arrived meanwhile
			default:
				// the source's host may be gone: wait for the coordinator
				// to announce its recomputed output, or retry in a while
				res.s.state, res.s.failed = waiting, true
				res.s.retryAt = time.Now().Add(2 * time.Second)
			}
			a.mu.Unlock()
		}
	}
	rep.ReadSeconds = time.Since(t0).Seconds()
	a.haveInput()
	return a.computeAndWrite(rep)
}

// sleep waits d, or until ctx is cancelled.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// burn spends d of CPU time in this goroutine, checking for cancellation.
func burn(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	end := time.Now().Add(d)
	x := uint64(88172645463325252)
	for time.Now().Before(end) {
		for i := 0; i < 20000; i++ { // about 50 µs of xorshift
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if x == 0 {
		return errors.New("unreachable")
	}
	return nil
}
