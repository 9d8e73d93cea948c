package live

import (
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// ownAttempt returns an attempt the engine runs on the named host, so that
// a worker's report about it is believed only from that host.
func (r *run) ownAttempt(host string, id int64) (engine.AttemptID, bool) {
	h, ok := r.byName[host]
	if !ok {
		return 0, false
	}
	d, ok := r.running[engine.AttemptID(id)]
	if !ok || d.host != h || r.eng.Attempt(engine.AttemptID(id)) == nil {
		return 0, false
	}
	return engine.AttemptID(id), true
}

// progress hands the engine the input bytes each of a host's attempts has
// received, from its heartbeat. A worker takes back the partial bytes of
// a failed fetch; the engine keeps the highest count.
func (r *run) progress(host string, ps []wire.AttemptProgress) {
	for _, p := range ps {
		if id, ok := r.ownAttempt(host, p.Attempt); ok {
			_ = r.eng.Progress(id, p.Received)
		}
	}
}

// inputDone tells the engine an attempt has its whole input.
func (r *run) inputDone(ev *wire.InputDone) {
	if !r.ofThisRun(ev.Host, ev.Attempt, ev.Run) {
		return
	}
	id, ok := r.ownAttempt(ev.Host, ev.Attempt)
	if !ok {
		return // ended already, or not this host's
	}
	_ = r.eng.Progress(id, ev.Bytes)
	if err := r.eng.InputDone(id); err != nil {
		r.event("worker-problem", ev.Host, "input-done of attempt %d: %v", ev.Attempt, err)
	}
}

// moveReplicas asks the workers to move the replicas the engine moved
// between tiers. Until a worker says a move is done, reads of the
// replica go to the tier it is leaving (the engine already counts it on
// the new one).
//
// A worker runs the moves it is sent at once, each taking its room in
// the destination tier before it copies, and frees the source only when
// done. So a move into a tier with a capacity is held here until the
// moves leaving that tier on its host, sent or held before it, are
// done: the memory cache's demotions (engine.Config.MemoryLRU) make the
// room its promotions then take, and sending both at once would
// overfill the tier. A move of a replica also waits for that replica's
// earlier move.
func (r *run) moveReplicas(moves []engine.TierMove) {
	var hosts []cluster.HostID
	for _, m := range moves {
		if !slices.Contains(hosts, m.Host) {
			hosts = append(hosts, m.Host)
		}
		r.heldMoves[m.Host] = append(r.heldMoves[m.Host], m)
	}
	for _, h := range hosts {
		r.sendMoves(h)
	}
}

// hostTier names a tier of a host.
type hostTier struct {
	host cluster.HostID
	tier cluster.TierKind
}

// sendMoves sends, in order, the held moves of a host that need not
// wait any more (moveReplicas).
func (r *run) sendMoves(h cluster.HostID) {
	q := r.heldMoves[h]
	kept := q[:0]
	for _, m := range q {
		loc := replicaAt{host: h, key: r.objectKey(m.Object())}
		if _, ok := r.onDisk[loc]; !ok {
			// reads go where the bytes are until the move is done; a
			// move after one not yet done keeps the first one's tier
			r.onDisk[loc] = m.From
		}
		if r.mustWait(m, kept) {
			kept = append(kept, m)
			continue
		}
		r.moveSeq++
		r.moving[loc] = m.From
		r.leaving[hostTier{h, m.From}]++
		r.send(r.topo.Hosts[h].Name, wire.TypeMoveReplica, &wire.MoveReplica{Request: r.moveSeq, Key: loc.key, From: m.From.String(), To: m.To.String()})
	}
	if len(kept) == 0 {
		delete(r.heldMoves, h)
		return
	}
	r.heldMoves[h] = kept
}

// mustWait says a held move must stay held: its replica is being moved,
// or an earlier held move is of it; or its destination tier has a
// capacity and a move leaving that tier is under way or held before it.
func (r *run) mustWait(m engine.TierMove, earlier []engine.TierMove) bool {
	if _, busy := r.moving[replicaAt{host: m.Host, key: r.objectKey(m.Object())}]; busy {
		return true
	}
	if r.roomPending(m.Host, m.To, earlier) {
		return true
	}
	for _, e := range earlier {
		if e.Object() == m.Object() {
			return true
		}
	}
	return false
}

// roomPending says a write into tier k of host h (a move's copy, an
// attempt's output) must wait for room: the tier has a capacity, and a
// move leaving it is under way or among held, to be sent before.
func (r *run) roomPending(h cluster.HostID, k cluster.TierKind, held []engine.TierMove) bool {
	if t, _ := r.topo.Hosts[h].Tier(k); t.CapacityBytes == 0 {
		return false
	}
	if r.leaving[hostTier{h, k}] > 0 {
		return true
	}
	for _, m := range held {
		if m.From == k {
			return true
		}
	}
	return false
}

// replicaMoved records a worker's answer to a move. A failed move leaves
// the bytes where they were, and reads keep going there. Either way the
// moves the host held behind it may go.
func (r *run) replicaMoved(ev *wire.ReplicaMoved) {
	h, ok := r.byName[ev.Host]
	if !ok {
		return
	}
	loc := replicaAt{host: h, key: ev.Key}
	from, ok := r.moving[loc]
	if !ok {
		return
	}
	delete(r.moving, loc)
	if r.leaving[hostTier{h, from}]--; r.leaving[hostTier{h, from}] == 0 {
		delete(r.leaving, hostTier{h, from})
	}
	if ev.OK {
		delete(r.onDisk, loc)
		r.event("replica-moved", ev.Host, "%s from %s to %s, %d B in %.2f s", ev.Key, ev.From, ev.To, ev.Bytes, ev.Seconds)
	} else {
		r.event("replica-move-failed", ev.Host, "%s from %s to %s: %s; reads stay on %s", ev.Key, ev.From, ev.To, ev.Error, ev.From)
	}
	r.sendMoves(h)
	r.releaseLaunches()
}

// replicaAt names a stored object on a host.
type replicaAt struct {
	host cluster.HostID
	key  string
}

// sortedReplicas lists a set's replicas in a fixed order, for records.
func sortedReplicas[V any](set map[replicaAt]V) []replicaAt {
	out := make([]replicaAt, 0, len(set))
	for loc := range set {
		out = append(out, loc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].host != out[j].host {
			return out[i].host < out[j].host
		}
		return out[i].key < out[j].key
	})
	return out
}

// readTier is the tier a replica's bytes are on now: the engine's, unless
// a move to it has not completed.
func (r *run) readTier(h cluster.HostID, key string, engineTier cluster.TierKind) cluster.TierKind {
	if t, ok := r.onDisk[replicaAt{host: h, key: key}]; ok {
		return t
	}
	return engineTier
}
