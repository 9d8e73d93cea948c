package live

import (
	"fmt"
	"time"

	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/members"
)

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
	// Heartbeats missed while the coordinator's own connection was down
	// say nothing about the hosts: a blip of the NATS server would
	// otherwise lose every host at once, and reset them all.
	now := time.Now()
	if r.nc != nil {
		if !r.nc.IsConnected() {
			r.cutOff = true
			return
		}
		if n := r.nc.Stats().Reconnects; r.cutOff || n != r.reconnects {
			// back from an outage: every host gets its full timeout
			// from now to be heard again
			r.cutOff, r.reconnects = false, n
			for i := range r.hosts {
				r.hosts[i].lastSeen = now
			}
			r.event("coordinator-reconnected", "", "the coordinator's NATS connection came back: the hosts' silence until now is not counted")
		}
	}
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
	delete(r.heldMoves, hi.id) // its moves wait for answers that may never come
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
