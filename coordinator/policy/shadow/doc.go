// Package shadow is the Shadow scheduler (Wu et al., IEEE TBD 2019):
// after a job's original maps are placed for locality, it duplicates maps
// from the racks holding the most maps into the racks holding the fewest so
// that the all-to-all shuffle loads the rack uplinks evenly, and it picks,
// per duplicated split, which copy feeds the shuffle (a duplicate that
// finishes before the last original is taken at once; the rest are judged
// at that instant T with a map-plus-shuffle time model).
//
// The package has two layers. The pure core (duplicate.go, bandwidth.go,
// selection.go, with §2.1's Skew in internal/skew) takes plain numbers and returns
// plans and decisions: it does no I/O and knows nothing of the engine, so
// the spec's hand-computed scenarios are unit tests of it. The policy
// drives the core from the engine's hooks and performs the launches, kills
// and output choices the core decides.
//
// The policy (policy.go, choose.go) reacts to the engine as §3.3 says:
//
//   - Maps are placed by delay scheduling with the rack-locality delay only
//     (mapplace, Delay). When a job has no map left pending (its last wave
//     is placed: mapplace's AllOriginalMapsAssigned), SHADOW-DUPLICATE runs
//     over every rack with its free map slots; each duplicate is launched
//     in its target rack, reading the replica there if local (and its
//     original is killed at once, A5) or else the replica in the original's
//     rack (A13). B_iu is the max-min snapshot of the remote reads then.
//   - ChooseOutput gates outputs: an original whose pair is undecided holds
//     its output; a duplicate finishing before T is used at once (the
//     engine kills or drops its original).
//   - CHECK-T runs when an original finishes (in ChooseOutput, so that the
//     finishing original's own pair is decided by its return value) and
//     when one is killed (AttemptEnded). SELECT-AT-T then accepts or
//     rejects each pending duplicate; a rejected one is killed and the
//     engine serves the held original.
//   - Reducers are placed by mapplace's placement on the planned counts
//     (SetMapCounts, A11), at slow-start 0.8 unless the run sets one.
//
// The §2.10 switches are Config args with the spec's defaults: theta
// (A3, a fraction of the job's maps, 0 for unlimited), accept_ties (A8),
// shuffle_model (Eq. 12), kill_local_original (A5), reduce_placement
// (A10), rack_locality_delay (§4.2) and deterministic_pick (A4). Fixed
// choices: empty racks are targets (A12), T's time origin is the first
// original's launch (A6), B_i is the rack's configured uplink (A7), the
// pending duplicates are tried by ascending estimated finish, then split
// id (A8), rejected duplicates are killed at T (A9). A chosen duplicate
// still running at T whose original was killed (a relocation) has its
// runtime estimated by the mean runtime of the job's finished originals.
//
// The spec is the testbed's shadow.md; section numbers in comments (§2.4,
// A5, ...) refer to it.
package shadow
