package live

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
)

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
			r.flushRejected()
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

func (r *run) register(m *nats.Msg) bool {
	var reg wire.Register
	// the answer goes only to the sender's own inboxes: a reply subject
	// of another's would have the coordinator, who may publish anywhere,
	// send there for the sender
	sender := r.subj.Sender(m.Subject)
	if m.Reply != "" && !strings.HasPrefix(m.Reply, r.subj.Inbox(sender)+".") {
		r.malformed(m.Subject, fmt.Errorf("a registration from host %q wants its answer on %s, not its own inbox", sender, m.Reply))
		return false
	}
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
	if !r.fromSender(m, &reg) {
		reply(wire.Registered{Error: fmt.Sprintf("host %q may not register as %q", sender, reg.Host)})
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
	// a host with split pools runs its map and reduce slots at once
	if all := r.topo.Hosts[h].AllSlots(); reg.Slots != all {
		r.event("slots-differ", reg.Host, "the worker has %d slots, the topology %d: the topology's count is used", reg.Slots, all)
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
		// the worker starts the run clean: an earlier coordinator that
		// died without resetting it (killed, out of memory) may have left
		// attempts running, whose IDs this run's launches reuse, and
		// objects on its tiers
		r.send(reg.Host, wire.TypeReset, &wire.Reset{Reason: "a new run starts"})
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
