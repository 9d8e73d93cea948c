package live

import (
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/traffic"
)

func (r *run) drainReady() {
	rd := r.eng.Ready()
	// before the launches: a map launched now must read a replica that is
	// being moved from the tier it is leaving
	r.moveReplicas(rd.TierMoves)
	r.releaseLaunches()
	for _, a := range rd.Launches {
		if r.awaitsRoom(a) {
			r.heldLaunches = append(r.heldLaunches, a.ID)
			continue
		}
		r.dispatch(a)
	}
	for _, id := range rd.Kills {
		// the engine has ended the attempt already: its host is ours
		if d, ok := r.running[id]; ok {
			r.send(r.topo.Hosts[d.host].Name, wire.TypeKill, &wire.Kill{Attempt: int64(id), Reason: "engine"})
		}
		delete(r.shuffles, id)
	}
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
		if rec.Outcome == engine.AttemptSucceeded {
			r.res.ExpectedCrossBytes += rec.Bytes.Cross()
			if rec.Reported != nil {
				r.res.ReportedCrossBytes += rec.Reported.Cross()
			}
		}
		r.recordAttempt(rec)
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

func (r *run) dispatch(a *engine.Attempt) {
	r.launch(a)
	r.prom.launched.WithLabelValues(r.eng.Job(a.Task.Job).Stages[a.Task.Stage].Spec.Kind.String()).Inc()
	r.prom.running.Inc()
}

// awaitsRoom says an attempt's launch must wait: with the memory cache on
// (Config.MemoryLRU), the engine admitted its output into a bounded
// memory tier by demoting older replicas, and a worker frees their room
// only when their move is done; the output's write would find the tier
// full before. So the launch waits for the moves leaving that memory
// tier, sent or held.
func (r *run) awaitsRoom(a *engine.Attempt) bool {
	if !r.cfg.MemoryLRU {
		return false
	}
	for _, rep := range a.OutputReplicas {
		if rep.Tier == cluster.Mem && r.roomPending(rep.Host, cluster.Mem, r.heldMoves[rep.Host]) {
			return true
		}
	}
	return false
}

// releaseLaunches dispatches, in order, the held launches that need not
// wait any more, and forgets those the engine ended meanwhile (killed
// with their job, or lost with a host): their worker never knew them.
func (r *run) releaseLaunches() {
	kept := r.heldLaunches[:0]
	for _, id := range r.heldLaunches {
		a := r.eng.Attempt(id)
		switch {
		case a == nil:
		case r.awaitsRoom(a):
			kept = append(kept, id)
		default:
			r.dispatch(a)
		}
	}
	r.heldLaunches = kept
}

func (r *run) launch(a *engine.Attempt) {
	job := r.eng.Job(a.Task.Job)
	st := job.Stages[a.Task.Stage]
	class := st.InputClass
	if a.Duplicate {
		class = engine.ClassDuplicate
	}
	l := wire.Launch{Attempt: int64(a.ID), Run: r.tag, Job: job.Spec.ID, Stage: st.Spec.Name, Index: int(a.Task.Index),
		Class: class.String(), ComputeNsPerByte: st.Spec.ComputeNsPerByte, InputBytes: a.InputBytes,
		OutputKey: r.outputKey(a.ID),
		// the priority the policy launched it with, through the same
		// table as a later re-mark: its first bytes are already ranked
		DSCP: traffic.PriorityDSCP(a.Priority)}
	d := dispatched{host: a.Host, at: time.Now()}
	if st.Spec.Kind == workload.Map {
		l.Kind = wire.KindMap
		if ref, ok := r.eng.InputObject(a); ok && a.Source.Host >= 0 {
			key := r.objectKey(ref)
			tier := r.readTier(a.Source.Host, key, a.Source.Tier)
			d.tier, d.hasTier = tier, true
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
	l.Pipeline = r.eng.OutputPipeline()
	r.running[a.ID] = d
	r.sendLaunch(r.topo.Hosts[a.Host].Name, &l)
}

// dispatched is an attempt sent to a worker.
type dispatched struct {
	host cluster.HostID
	at   time.Time
	// tier is the tier a map read its input replica from (hasTier): the
	// engine's, or the one the replica's bytes were still on while a
	// worker moved them (readTier). The attempt's record says it.
	tier    cluster.TierKind
	hasTier bool
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

// recordAttempt forgets an ended attempt and records it: in the sink, the
// metrics and attempts.jsonl (with the phases its worker reported).
func (r *run) recordAttempt(rec *engine.AttemptRecord) {
	if d, ok := r.running[rec.ID]; ok && d.hasTier {
		rec.Tier = d.tier // the tier actually read
	}
	delete(r.shuffles, rec.ID)
	delete(r.running, rec.ID)
	r.prom.ended.WithLabelValues(rec.Outcome.String()).Inc()
	r.prom.running.Dec()
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
