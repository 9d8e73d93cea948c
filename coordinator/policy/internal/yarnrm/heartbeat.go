package yarnrm

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// OneOffSwitchArg is the policies' arg that turns on Hadoop 2.7's root
// queue rule of one off-switch container a node heartbeat (FillHeartbeat).
const OneOffSwitchArg = "one_off_switch_per_heartbeat"

// FillHeartbeat gives host h, at its heartbeat, its free slots one at a
// time, each by assign, until one is not taken. assign reports whether
// it launched a task and whether the RM typed its container off-switch
// (a reducer's, or a map's it served at "*": Grant.Served). With oneOffSwitch the heartbeat also ends after the
// first off-switch container, as Hadoop 2.7's root queue ends it
// (ParentQueue.assignContainers: "do not assign more than one container
// ... if we've already assigned an off-switch container"): the MR AM
// asks for its reducers at "*" only, so a heartbeat takes at most one
// reducer, or one remote map.
func FillHeartbeat(ctx *engine.Context, h cluster.HostID, oneOffSwitch bool, assign func(cluster.HostID) (launched, offSwitch bool)) {
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		launched, offSwitch := assign(h)
		if !launched || offSwitch && oneOffSwitch {
			return
		}
	}
}
