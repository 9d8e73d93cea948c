package live

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

type shuffle struct {
	complete bool
	sent     map[string]string // task → key sent
}

// newSources lists the upstream outputs not yet sent to a shuffling
// attempt, or sent from an output since lost and recomputed.
func (r *run) newSources(a *engine.Attempt, sh *shuffle) []wire.Range {
	r.srcBuf = r.eng.ShuffleSources(a, r.srcBuf[:0])
	var out []wire.Range
	for _, s := range r.srcBuf {
		task := fmt.Sprintf("s%d.t%d", s.Task.Stage, s.Task.Index)
		key := r.outputKey(s.Attempt)
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
