// Package members forms racks with hashicorp/memberlist: every worker
// (and the coordinator, as an observer) gossips its role, rack and data
// address in its node metadata, learns every peer's, and hears within
// seconds when a peer dies. Workers use the peer list to classify their
// traffic by rack (and, when they shape their own NIC, to fill the u32
// filters); the coordinator uses it as a second witness of host loss,
// beside missed heartbeats.
package members
