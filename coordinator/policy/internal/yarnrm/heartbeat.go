package yarnrm

import (
	"errors"
	"fmt"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// OneOffSwitchArg is the policies' arg that turns on Hadoop 2.7's root
// queue rule of one off-switch container a node heartbeat (Heartbeats).
const OneOffSwitchArg = "one_off_switch_per_heartbeat"

// DefaultHeartbeat is Hadoop 2.7's node heartbeat interval
// (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms, 1000).
const DefaultHeartbeat = time.Second

// CheckHeartbeat refuses a heartbeat interval that is not positive.
func CheckHeartbeat(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("heartbeat %v: want a positive interval (Hadoop 2.7's is 1s)", d)
	}
	return nil
}

// CheckRule checks the rule's args of a policy that may take Spark's
// offers: a positive heartbeat, and no rule with Spark's offers (its
// tasks run in executors, not in containers of their own).
func CheckRule(oneOffSwitch bool, heartbeat time.Duration, sparkOffers bool) error {
	var errs []error
	if err := CheckHeartbeat(heartbeat); err != nil {
		errs = append(errs, err)
	}
	if oneOffSwitch && sparkOffers {
		errs = append(errs, fmt.Errorf("%s with offers spark: Spark's tasks take no containers of their own", OneOffSwitchArg))
	}
	return errors.Join(errs...)
}

// Heartbeats is Hadoop 2.7's root queue rule over node heartbeats: the
// root queue ends a node's heartbeat after its first off-switch container
// (ParentQueue.assignContainers: "do not assign more than one container
// ... if we've already assigned an off-switch container"), and the node
// takes nothing more until its next heartbeat, Interval later. The MR AM
// asks for its reducers at "*" only, so a node takes at most one reducer
// (or one map the RM served at "*") a heartbeat.
//
// The engine offers a host whenever it has a free slot, not on a clock
// of its own; the rule keeps, per host, when its next heartbeat is after
// one the rule ended, and the host is closed to every offer until then.
// So the rule costs a host the time Hadoop's does, and the simulator and
// the live coordinator, which offer hosts at different moments (at every
// event; at every message), see the same closed hosts. Off (the zero
// value), it fills every heartbeat's free slots.
type Heartbeats struct {
	// OneOffSwitch turns the rule on.
	OneOffSwitch bool
	// Interval is the nodes' heartbeat interval.
	Interval time.Duration

	next []engine.Time // per host: its next heartbeat after an ended one
}

// Open reports whether host h may take a container now: always without
// the rule; with it, unless its last heartbeat ended at an off-switch
// container less than Interval ago.
func (hb *Heartbeats) Open(ctx *engine.Context, h cluster.HostID) bool {
	return !hb.OneOffSwitch || int(h) >= len(hb.next) || ctx.Now() >= hb.next[h]
}

// Ended records that host h's heartbeat ended now at an off-switch
// container: h is closed until its next heartbeat.
func (hb *Heartbeats) Ended(ctx *engine.Context, h cluster.HostID) {
	if !hb.OneOffSwitch {
		return
	}
	if n := len(ctx.Topology().Hosts); len(hb.next) < n {
		hb.next = append(hb.next, make([]engine.Time, n-len(hb.next))...)
	}
	hb.next[h] = ctx.Now() + hb.Interval.Seconds()
}

// Fill gives host h, at its heartbeat, its free slots one at a time, each
// by assign, until one is not taken; assign reports whether it launched
// a task and whether the RM typed its container off-switch (a reducer's,
// or a map's it served at "*": Grant.Served). With the rule the heartbeat
// ends after the first off-switch container, and a closed host takes
// nothing (Open).
func (hb *Heartbeats) Fill(ctx *engine.Context, h cluster.HostID, assign func(cluster.HostID) (launched, offSwitch bool)) {
	if !hb.Open(ctx, h) {
		return
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		launched, offSwitch := assign(h)
		if !launched {
			return
		}
		if offSwitch && hb.OneOffSwitch {
			hb.Ended(ctx, h)
			return
		}
	}
}
