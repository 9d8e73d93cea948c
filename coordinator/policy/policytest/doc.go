// Package policytest has helpers for testing policies against hand-built
// scenarios: small topologies, placed datasets, and a driver that finishes
// attempts on command. It also runs scenarios written as data.
//
// # Writing a scenario
//
// A scenario is a file in a policy package's testdata/ directory, run by
// that package's test through RunScenarios with a Factory that builds the
// package's policy. It is a datadriven script (github.com/cockroachdb/datadriven):
// a command line, optional input lines, "----", and the output the command
// must print. Lines starting with # are comments; start each file with the
// spec rule it checks. `go test ./the/pkg -rewrite` fills in the outputs:
// read them before committing. A new scenario is a new file; no Go.
//
// Declare the cluster and the work, then build the engine:
//
//	topology racks=2 hosts=2 [slots=1] [reduce_slots=0] [nic_gbps=1] [oversub=1] [tiers=mem,ssd,hdd]
//	    a uniform cluster; prints each rack's hosts as id=name (h3=r1h1).
//	    Hosts are named in commands either way: h3 or r1h1.
//	dataset name=a size=64MiB hosts=(h0,h0,h1) [tier=hdd]
//	    one single-replica block per host listed, each of size bytes; or,
//	    without hosts=, one input line per block, numbered from 0:
//	        0: h0/hdd r1h0/ssd
//	        1: h1 size=32MiB        (tier hdd unless given; size overrides)
//	job id=j [arrival=0] [queue=q] [parents=p,q]
//	    one input line per stage: a kind (map, reduce, generic) and
//	    name= (default the kind) input= (maps: a dataset or @parent)
//	    tasks= after= (default the stage before) selectivity= (default 1)
//	    output= (bytes) compute= (ns per byte) skew= replicas=
//	    shares=(3,1,2) (the partition weights, one per task; instead of skew)
//	engine [seed=0] [slow_start=0.05] [early_shuffle_limit=0.5] [max_task_failures=4]
//	       [queues=(prod:0.75,dev:0.25:0.5)] [weights=(dev:2)]
//	       [intermediate_tiers=ssd,hdd] [output_tiers=hdd]
//	    the engine.Config; queues are name:capacity[:max_capacity].
//	policy NAME [k=v ...]
//	    builds the policy with the Factory and the engine with everything
//	    declared, at time 0, with the jobs arriving at 0 submitted.
//
// Drive it; each prints what the engine put in Ready, one event a line
// (submit, launch a<id> job/stage/task on host locality= prio=, priority,
// kill, end a<id> ... outcome, job J succeeded|failed, and once "policy
// stopped: ERR" when the policy is an engine.Failer that failed, where a
// driver ends the run), or "(none)":
//
//	advance t=5                   engine.Advance
//	offer host=h3 [times=4]       engine.Offer (a heartbeat); host=(h0,h1) offers
//	                              each in turn; several offers number their lines
//	round                         engine.Schedule
//	succeed attempt=a0            engine.AttemptSucceeded; or job=j stage=0 task=1
//	                              for the task's only running attempt
//	fail attempt=a0 [reason=disk] engine.AttemptFailed; same ways to name it
//	lose-host host=h2             engine.HostLost
//	network [up=(0.95,0)] [down=(0,0.5)] [rx=...] [xrx=...] [threshold=0.9]
//	                              engine.SetNetwork: loads per rack; rx per host,
//	                              xrx its part from other racks
//
// Inspect, without changing anything:
//
//	jobs [job=j]     state, queue, running, pending, done/tasks, attempts
//	tasks [job=j]    every task's state, running attempts and output host
//	attempts [source=1]  the running attempts; with the policy's decision note
//	                 (network=saturated reason=zero-traffic) when it gave one;
//	                 source=1 also names the replica a map attempt reads
//	queues           each queue's running slots and configuration
//	stats            the engine's counters and rejections by reason
//	inspect          the policy's own state, if it implements Inspector
//
// A mistake in the script (unknown command or argument, bad value,
// unknown host, job or attempt, a declaration after `policy`) fails the
// test at the command's file:line. What the engine refuses of a
// well-formed script (succeeding an attempt that has ended) prints as
// "refused: ...", for the scenario to expect.
package policytest
