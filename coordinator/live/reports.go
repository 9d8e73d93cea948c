package live

import (
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/internal/heldcount"
	"github.com/racklab/racklab/internal/traffic"
)

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
	if rep, ok := any(&v).(wire.Report); ok && !r.fromSender(m, rep) {
		return nil, false
	}
	return &v, true
}

// fromSender says whether a report names the host whose subject it came
// on, and records it as rejected if not. The server lets each worker's
// user publish only on its own subjects, so the subject is who sent it,
// and a body that names another host is a lie.
func (r *run) fromSender(m *nats.Msg, rep wire.Report) bool {
	sender := r.subj.Sender(m.Subject)
	if claimed := rep.SentBy(); claimed != sender {
		r.malformed(m.Subject, fmt.Errorf("a message for host %q came on host %q's subject", claimed, sender))
		return false
	}
	return true
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
// shapes. The counts are held (package heldcount): a worker whose
// dead-man guardian removed its shaping reports none, or counts from 0
// once it shapes again, and its racks' sums must not fall.
func (r *run) workerCounters() (up, down []float64, ok bool) {
	nr := len(r.topo.Racks)
	up, down = make([]float64, nr), make([]float64, nr)
	for i := range r.hosts {
		h := &r.hosts[i]
		if h.reg == nil {
			continue
		}
		raw := make(map[string]heldcount.Count, len(h.shaped))
		for rack, c := range h.shaped {
			raw[rack] = heldcount.Count{Bytes: c.Bytes, Packets: c.Packets}
		}
		src := r.topo.Hosts[i].Rack
		for rack, c := range r.shapedHeld.Read(i, raw) {
			dst, known := r.rackName[rack]
			if !known || dst == src {
				continue
			}
			ok = true
			p := wire.Counter{Bytes: c.Bytes, Packets: c.Packets}.Payload()
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

// ofThisRun says whether a report about an attempt is of this run: its
// run tag is the one the run's launches carry. Attempt IDs start at 0
// every run, so the end of an attempt an earlier coordinator launched
// (one that died without resetting its workers) would be taken for this
// run's attempt of the same ID; and a report arriving before the run
// has its engine (while hosts register) has nothing to be of.
func (r *run) ofThisRun(host string, attempt int64, tag string) bool {
	if r.eng == nil || tag != r.tag {
		r.event("late-report", host, "attempt %d of another run (%q), not of this one (%q)", attempt, tag, r.tag)
		return false
	}
	return true
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
	if !r.ofThisRun(ev.Host, ev.Attempt, ev.Run) {
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
		c, _ := traffic.ParseClass(name) // a class Validate knows
		for l := range row {
			bc[c][l] += row[l]
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
