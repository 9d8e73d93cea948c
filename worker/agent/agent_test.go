package agent

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/store"
)

// coordinator is a test's stand-in for the coordinator: it admits one
// worker, sends it commands and collects what it publishes.
type coordinator struct {
	t      *testing.T
	nc     *nats.Conn
	subj   wire.Subjects
	host   string
	events chan *nats.Msg
	beats  chan *nats.Msg
}

// startWorker runs a NATS server, a worker with the given tiers on
// loopback, and the stand-in coordinator, until the test ends.
func startWorker(t *testing.T, tiers ...store.TierConfig) *coordinator {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	t.Cleanup(srv.Shutdown)
	subj, err := wire.NewSubjects("agenttest")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c := &coordinator{t: t, nc: nc, subj: subj, host: "r0h0", events: make(chan *nats.Msg, 1024), beats: make(chan *nats.Msg, 1024)}
	if _, err := nc.Subscribe(subj.Register(c.host), func(m *nats.Msg) {
		_ = m.Respond(wire.MustEncode(wire.TypeRegistered, &wire.Registered{OK: true, Run: "test"}))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.ChanSubscribe(subj.Events(c.host), c.events); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.ChanSubscribe(subj.Heartbeat(c.host), c.beats); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range tiers {
		tiers[i].Dir = filepath.Join(dir, tiers[i].Kind.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := Run(ctx, Config{Host: c.host, Rack: "r0", Slots: 2, NATSURL: srv.ClientURL(), Cluster: "agenttest",
			DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1", Tiers: tiers, Heartbeat: 20 * time.Millisecond, Logf: t.Logf})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("worker: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	c.nextBeat(func(*wire.Heartbeat) bool { return true }) // registered and serving
	return c
}

func (c *coordinator) send(typ string, body any) {
	c.t.Helper()
	if err := c.nc.Publish(c.subj.Worker(c.host), wire.MustEncode(typ, body)); err != nil {
		c.t.Fatal(err)
	}
}

// nextEvent returns the next event of type typ, decoded into body, and
// the types of the events that came before it.
func (c *coordinator) nextEvent(typ string, body any) []string {
	c.t.Helper()
	var before []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-c.events:
			got, err := wire.Peek(m.Data)
			if err != nil {
				c.t.Fatalf("the worker published a bad event: %v", err)
			}
			if got != typ {
				before = append(before, got)
				continue
			}
			if err := wire.Decode(m.Data, typ, body); err != nil {
				c.t.Fatalf("the worker published a bad %s: %v", typ, err)
			}
			return before
		case <-timeout:
			c.t.Fatalf("no %s event (saw %v)", typ, before)
			return nil
		}
	}
}

// nextBeat returns the first heartbeat that ok accepts.
func (c *coordinator) nextBeat(ok func(*wire.Heartbeat) bool) *wire.Heartbeat {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-c.beats:
			var hb wire.Heartbeat
			if err := wire.Decode(m.Data, wire.TypeHeartbeat, &hb); err != nil {
				c.t.Fatalf("bad heartbeat: %v", err)
			}
			if ok(&hb) {
				return &hb
			}
		case <-timeout:
			c.t.Fatal("no heartbeat as expected")
			return nil
		}
	}
}

func (c *coordinator) materialize(blocks ...wire.Block) {
	c.t.Helper()
	c.send(wire.TypeMaterialize, &wire.Materialize{Seed: 1, Blocks: blocks})
	for {
		var rep wire.Materialized
		c.nextEvent(wire.TypeMaterialized, &rep)
		if rep.Done {
			if rep.Error != "" {
				c.t.Fatal(rep.Error)
			}
			return
		}
	}
}

// A running map shows its input on the heartbeats, reports input done
// before it ends, and keeps the received count once done.
func TestHeartbeatProgressAndInputDone(t *testing.T) {
	c := startWorker(t, store.TierConfig{Kind: cluster.Mem, ReadBps: 20e6}) // 4 MiB in 0.2 s
	const size = 4 << 20
	c.materialize(wire.Block{Key: "ds/t/000000", Tier: "mem", Size: size})
	in := &wire.Range{Object: wire.Object{Host: c.host, Rack: "r0", Tier: "mem", Key: "ds/t/000000"}, Task: "input", Length: size}
	c.send(wire.TypeLaunch, &wire.Launch{Attempt: 41, Kind: wire.KindMap, Class: "input", Input: in, InputBytes: size,
		ComputeNsPerByte: 100, OutputKey: "out/a41", OutputTier: "mem", OutputBytes: 1000}) // 0.4 s of compute
	progress := func(hb *wire.Heartbeat) (wire.AttemptProgress, bool) {
		for _, p := range hb.Progress {
			if p.Attempt == 41 {
				return p, true
			}
		}
		return wire.AttemptProgress{}, false
	}
	reading := c.nextBeat(func(hb *wire.Heartbeat) bool {
		p, ok := progress(hb)
		return ok && p.Received > 0 && p.Received < size
	})
	if p, _ := progress(reading); p.InputDone {
		t.Errorf("input done with %d of %d bytes", p.Received, size)
	}
	computing := c.nextBeat(func(hb *wire.Heartbeat) bool { p, ok := progress(hb); return ok && p.InputDone })
	if p, _ := progress(computing); p.Received != size {
		t.Errorf("input done with %d bytes received, want %d", p.Received, size)
	}
	var done wire.InputDone
	c.nextEvent(wire.TypeInputDone, &done)
	if done.Host != c.host || done.Attempt != 41 || done.Bytes != size || done.Seconds <= 0 {
		t.Errorf("input-done %+v", done)
	}
	var ended wire.AttemptEnded
	c.nextEvent(wire.TypeAttemptEnded, &ended)
	if !ended.OK || ended.Attempt != 41 {
		t.Fatalf("attempt ended %+v", ended)
	}
	if done.Seconds > ended.ReadSeconds+ended.ComputeSeconds {
		t.Errorf("input done after %g s, but reading took %g s", done.Seconds, ended.ReadSeconds)
	}
	c.nextBeat(func(hb *wire.Heartbeat) bool { _, ok := progress(hb); return !ok && len(hb.Running) == 0 })
}

// The worker moves a block between its tiers, answers every move it can
// decode, and refuses what it cannot do with a reason.
func TestMoveReplica(t *testing.T) {
	c := startWorker(t, store.TierConfig{Kind: cluster.Mem},
		store.TierConfig{Kind: cluster.HDD, ReadBps: 100e6, WriteBps: 40e6, Capacity: 6 << 20})
	c.materialize(wire.Block{Key: "ds/t/000000", Tier: "mem", Size: 4 << 20}, wire.Block{Key: "ds/t/000001", Tier: "mem", Size: 3 << 20})

	var moved wire.ReplicaMoved
	c.send(wire.TypeMoveReplica, &wire.MoveReplica{Request: 1, Key: "ds/t/000000", From: "mem", To: "hdd"})
	c.nextEvent(wire.TypeReplicaMoved, &moved)
	want := wire.ReplicaMoved{Host: c.host, Request: 1, Key: "ds/t/000000", From: "mem", To: "hdd", OK: true, Bytes: 4 << 20, Seconds: moved.Seconds}
	if moved != want {
		t.Fatalf("move answered %+v, want %+v", moved, want)
	}
	// 4 MiB at 40 MB/s is 0.105 s; a tier's bucket refills while idle up
	// to 20 ms of tokens (worker/store's bucketSlack), which the move may
	// take at once: at least 0.085 s
	if moved.Seconds < 0.08 {
		t.Errorf("4 MiB written to a 40 MB/s tier in %g s", moved.Seconds)
	}
	// the block is read from its new tier
	read := func(attempt int64, tier string) wire.AttemptEnded {
		in := &wire.Range{Object: wire.Object{Host: c.host, Rack: "r0", Tier: tier, Key: "ds/t/000000"}, Task: "input", Length: 4 << 20}
		c.send(wire.TypeLaunch, &wire.Launch{Attempt: attempt, Kind: wire.KindMap, Class: "input", Input: in, InputBytes: 4 << 20,
			OutputKey: "out/r", OutputTier: "mem", OutputBytes: 10})
		var ended wire.AttemptEnded
		c.nextEvent(wire.TypeAttemptEnded, &ended)
		return ended
	}
	if ended := read(50, "hdd"); !ended.OK {
		t.Errorf("reading the moved block from hdd: %s", ended.Reason)
	}
	// a reader still told the old tier is served from the new one (the
	// store's tests check that the old copy is gone)
	if ended := read(51, "mem"); !ended.OK {
		t.Errorf("a reader told the old tier: %s", ended.Reason)
	}

	for _, c2 := range []struct {
		name string
		move wire.MoveReplica
		want string
	}{
		{"missing key", wire.MoveReplica{Request: 2, Key: "ds/t/none", From: "mem", To: "hdd"}, "no such file"},
		{"tier the worker lacks", wire.MoveReplica{Request: 3, Key: "ds/t/000001", From: "mem", To: "ssd"}, "no such tier"},
		{"unknown tier", wire.MoveReplica{Request: 4, Key: "ds/t/000001", From: "mem", To: "tape"}, "tape"},
		{"full tier", wire.MoveReplica{Request: 5, Key: "ds/t/000001", From: "mem", To: "hdd"}, "capacity exceeded"},
		{"same tier", wire.MoveReplica{Request: 6, Key: "ds/t/000001", From: "mem", To: "mem"}, "both"},
	} {
		c.send(wire.TypeMoveReplica, &c2.move)
		var ans wire.ReplicaMoved
		c.nextEvent(wire.TypeReplicaMoved, &ans)
		t.Logf("%s: %s", c2.name, ans.Error)
		if ans.OK || ans.Request != c2.move.Request || ans.Key != c2.move.Key || !strings.Contains(ans.Error, c2.want) {
			t.Errorf("%s: answered %+v, want a failure of request %d mentioning %q", c2.name, ans, c2.move.Request, c2.want)
		}
	}
	// the refused block is still where it was
	c.send(wire.TypeMoveReplica, &wire.MoveReplica{Request: 7, Key: "ds/t/000001", From: "mem", To: "hdd"})
	c.nextEvent(wire.TypeReplicaMoved, &moved)
	if moved.OK || !strings.Contains(moved.Error, "capacity") {
		t.Errorf("second move to the full tier: %+v", moved)
	}
	c.send(wire.TypeMoveReplica, &wire.MoveReplica{Request: 8, Key: "ds/t/000000", From: "hdd", To: "mem"})
	c.nextEvent(wire.TypeReplicaMoved, &moved)
	if !moved.OK || moved.Bytes != 4<<20 {
		t.Errorf("move back to mem: %+v", moved)
	}
}

// A Reset during a materialization returns at once: it cancels the
// blocks being written, and the worker's loop (heartbeats, kills) goes
// on. Before, it waited for a 6 MiB block at 1 MiB/s to be written out,
// 5.7 s without a heartbeat, long enough for a coordinator to think the
// worker gone.
func TestResetDuringMaterializeDoesNotBlock(t *testing.T) {
	c := startWorker(t, store.TierConfig{Kind: cluster.HDD, WriteBps: 1 << 20, Cache: store.CacheKeep})
	c.send(wire.TypeMaterialize, &wire.Materialize{Seed: 1, Blocks: []wire.Block{{Key: "ds/b0", Tier: "hdd", Size: 6 << 20}}})
	time.Sleep(300 * time.Millisecond)
	c.send(wire.TypeReset, &struct{}{})
	time.Sleep(50 * time.Millisecond)
	for len(c.beats) > 0 {
		<-c.beats
	}
	t0 := time.Now()
	select {
	case <-c.beats:
	case <-time.After(3 * time.Second):
		t.Fatal("no heartbeat within 3 s of the Reset")
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("the first heartbeat after the Reset came %v later", took)
	}
}
