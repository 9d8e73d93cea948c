// Package sim is racklab's discrete-event, flow-level simulator. It drives
// the same engine and policies as the live coordinator, with modelled
// time: every transfer is a flow through host NICs, rack uplinks and
// downlinks, the core and storage-tier bandwidths, sharing them max-min
// fairly within strict priority classes (or, with Options.Network
// "varys", coflow-aware: see varys.go); compute takes the stage's cost per
// byte. A reducer's shuffle is a few aggregated flows per fetch round (one
// per source rack), so a 2,000 × 500 job costs thousands of flows, not a
// million; such a flow passes the receiving host's NIC and the rack links,
// not the sending hosts' NICs or tiers (docs/fidelity.md). It writes the
// same records a live run writes.
package sim
