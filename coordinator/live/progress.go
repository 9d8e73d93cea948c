package live

import (
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
	id, ok := r.ownAttempt(ev.Host, ev.Attempt)
	if !ok {
		return // ended already, or not this host's
	}
	_ = r.eng.Progress(id, ev.Bytes)
	if err := r.eng.InputDone(id); err != nil {
		r.event("worker-problem", ev.Host, "input-done of attempt %d: %v", ev.Attempt, err)
	}
}

// moveReplicas asks the workers to move the replicas the policy moved
// between tiers. Until a worker says the move is done, reads of the
// replica go to the tier it is leaving (the engine already counts it on
// the new one).
func (r *run) moveReplicas(moves []engine.TierMove) {
	for _, m := range moves {
		key := DatasetBlockKey(m.Dataset, m.Block)
		r.moveSeq++
		loc := replicaAt{host: m.Host, key: key}
		if _, ok := r.onDisk[loc]; !ok {
			r.onDisk[loc] = m.From // a second move before the first is done: still there
		}
		r.moving[loc] = true
		host := r.topo.Hosts[m.Host].Name
		r.send(host, wire.TypeMoveReplica, &wire.MoveReplica{Request: r.moveSeq, Key: key, From: m.From.String(), To: m.To.String()})
	}
}

// replicaMoved records a worker's answer to a move. A failed move leaves
// the bytes where they were, and reads keep going there.
func (r *run) replicaMoved(ev *wire.ReplicaMoved) {
	h, ok := r.byName[ev.Host]
	if !ok {
		return
	}
	loc := replicaAt{host: h, key: ev.Key}
	if !r.moving[loc] {
		return
	}
	delete(r.moving, loc)
	if ev.OK {
		delete(r.onDisk, loc)
		r.event("replica-moved", ev.Host, "%s from %s to %s, %d B in %.2f s", ev.Key, ev.From, ev.To, ev.Bytes, ev.Seconds)
		return
	}
	r.event("replica-move-failed", ev.Host, "%s from %s to %s: %s; reads stay on %s", ev.Key, ev.From, ev.To, ev.Error, ev.From)
}

// replicaAt names a stored object on a host.
type replicaAt struct {
	host cluster.HostID
	key  string
}

// sortedReplicas lists a set's replicas in a fixed order, for records.
func sortedReplicas(set map[replicaAt]bool) []replicaAt {
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
