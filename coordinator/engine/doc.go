// Package engine is racklab's deterministic scheduling core: the state
// machine of jobs, stages, tasks and attempts, the locations of their data,
// and the API through which a scheduling policy acts on them.
//
// The engine does no I/O and reads no clock. A driver — the live
// coordinator, the simulator, or a test — hands it time (Advance), events
// (AttemptSucceeded, AttemptFailed, HostLost), network status (SetNetwork)
// and asks it to schedule (Schedule, Offer); after each call it collects
// what to do from Ready: attempts to launch or kill, priorities to re-mark,
// and records of finished attempts and jobs. Randomness comes from the
// seeded source in Config, so the same inputs give the same run.
//
// A policy implements HostScheduler (heartbeat offers, one host at a time)
// or RoundScheduler (a batch over every free slot) and any of the optional
// hooks: Planner (offline plan with foreknowledge), DatasetPlacer,
// OutputPlacer, OutputChooser (duplicates), and the event hooks. It acts
// only through Context, whose actions are checked: an invalid one is
// rejected, counted in Stats, and changes nothing.
package engine
