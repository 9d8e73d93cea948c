// Package fair is YARN's Fair Scheduler with delay scheduling, as the Dawn
// spec (§4.1) describes it: for each free container, queues and then jobs
// in fair-share order (fewest running containers per weight first, then
// earlier submission); a job's releasable reduce is served first; a map
// runs node-local, or rack-local once the job has skipped T_node
// opportunities, or anywhere after T_node + T_rack; a job that declines
// counts a skip; a container nobody takes stays free.
package fair
