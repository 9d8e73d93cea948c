package engine

import "github.com/racklab/racklab/coordinator/cluster"

// NetworkWindow is the default period, in seconds, over which drivers
// average the network status they hand the engine: the live driver
// samples its counters this often, and the simulator averages its flows
// over the same window, so that a policy sees the same signal in both.
const NetworkWindow = 0.5

// NetworkStatus is the network as the driver last measured it. It means
// the same in every driver: loads are each rack link's bytes over the
// last Window seconds as a fraction of the link's nominal capacity,
// background traffic included (kernel counters on the emulated cluster,
// the workers' counts on a lab cluster, the flow model in simulation).
type NetworkStatus struct {
	UplinkLoad   []float64 // per rack
	DownlinkLoad []float64 // per rack
	HostRxBps    []float64 // per host: bytes per second received
	// HostCrossRxBps is, per host, the part of HostRxBps that came from
	// other racks: what an oversubscribed fabric's policy measures
	// (pushbox.md §1.6, §3.2: cross-rack bytes only).
	HostCrossRxBps []float64
	// Window is the period the loads average over, in seconds.
	Window float64
	// SaturationThreshold is the load above which a link counts as
	// saturated.
	SaturationThreshold float64
	// Measurements counts the measurements the driver has handed in
	// (Engine.SetNetwork): a policy that smooths the rates (PushBox's
	// EMA of each host's receive rate) takes each measurement once, and
	// none before the first.
	Measurements int64
}

// UplinkSaturated reports whether a rack's uplink is above the threshold.
func (n *NetworkStatus) UplinkSaturated(r cluster.RackID) bool {
	return int(r) < len(n.UplinkLoad) && n.UplinkLoad[r] >= n.SaturationThreshold
}

// DownlinkSaturated reports whether a rack's downlink is above the threshold.
func (n *NetworkStatus) DownlinkSaturated(r cluster.RackID) bool {
	return int(r) < len(n.DownlinkLoad) && n.DownlinkLoad[r] >= n.SaturationThreshold
}
