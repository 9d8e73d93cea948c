// Package neat is NEAT (Munir et al., CoNEXT 2016) as pushbox.md §4.4
// restates it for the PushBox comparison: a work-conserving placement
// that predicts, for each machine with a free slot, when the task's
// coflow would finish receiving there under the network's policy, and
// puts the task where it finishes earliest.
//
// N1–N3, task arrival: when a stage's tasks are released they are
// placed one by one in index order (the sequential heuristic), each on
// the machine minimising
//
//	max(the coflow's already placed tasks' predicted ends,
//	    now + (bytes of equal or higher priority still to arrive on i + d_t)/C_i)
//
// where d_t is the task's remote input on i (0 for a node-local map or a
// reducer's share already on i; such a task's transfer ends now) and C_i
// the machine's NIC. Ties go to the task's own earlier end, then to the
// lower machine id. N4: every task is placed while a slot is free (no
// concurrency control, no yield). N5, slot change: a freed slot goes to
// the jobs in the slot policy's order (Fair, or FIFO for the §4.5
// variant); the job's task the same predictor ranks first runs there.
//
// The network policy (arg network) is the priority the flows get and
// the predictor assumes: "scf" smallest coflow first across jobs, the
// running coflows ranked by total network input onto the classes (as
// many as PushBox's; the larger ones share the last), fair within a
// class; "fair" every flow in one class; "job_fifo" the jobs' classes
// by submission (§4.5's FIFO-respecting NEAT, with order=fifo). Lower
// classes are served first (the engine's priority 0 is the highest).
package neat
