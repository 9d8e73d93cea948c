// Package shadow is the Shadow scheduler (Wu et al., IEEE TBD 2019):
// after a job's original maps are placed for locality, it duplicates maps
// from the racks holding the most maps into the racks holding the fewest so
// that the all-to-all shuffle loads the rack uplinks evenly, and it picks,
// per duplicated split, which copy feeds the shuffle (a duplicate that
// finishes before the last original is taken at once; the rest are judged
// at that instant T with a map-plus-shuffle time model).
//
// The package has two layers. The pure core (skew.go, duplicate.go,
// bandwidth.go, selection.go) takes plain numbers and returns
// plans and decisions: it does no I/O and knows nothing of the engine, so
// the spec's hand-computed scenarios are unit tests of it. The policy
// drives the core from the engine's hooks and performs the launches, kills
// and output choices the core decides.
//
// The spec is the testbed's shadow.md; section numbers in comments (§2.4,
// A5, ...) refer to it.
package shadow
