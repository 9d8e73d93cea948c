package corral

import (
	"fmt"
	"math"
)

// Job is what the planner knows of one job ahead of time (corral.md
// §3.1): its predicted arrival and sizes, and the per-task processing
// rates measured on earlier runs of the same job. Bytes and seconds may
// be in any consistent units (the spec's scenarios use GB).
type Job struct {
	ID      string
	Arrival float64 // A_j; 0 in the batch scenario
	// InputBytes, ShuffleBytes and OutputBytes are D^I, D^S and D^O.
	InputBytes, ShuffleBytes, OutputBytes float64
	// MapTasks and ReduceTasks are N^M and N^R.
	MapTasks, ReduceTasks int
	// MapRate and ReduceRate are B_M and B_R, bytes per second of one
	// task; B_R is output bytes per second (§2.4.2's ambiguity).
	MapRate, ReduceRate float64
	// Stages, when set, is the job's DAG (§2.4.5): the response function
	// is then the critical path of the stage model, and the MapReduce
	// fields other than InputBytes (for the penalty) are not used.
	Stages []Stage
}

// Stage is one vertex of a DAG job in §2.4.5's stage model.
type Stage struct {
	Tasks int
	// TaskSeconds is τ_s, one task's processing time (measured).
	TaskSeconds float64
	// InBytes is what the stage shuffles in from the stages it follows;
	// a source stage (no After) reads DFS input and has no shuffle.
	InBytes float64
	// After lists the stages this one follows, by index; each must be
	// lower than the stage's own (topological order).
	After []int
}

// Cluster is the planner's model of the cluster (§1.1, §2.1).
type Cluster struct {
	Racks           int     // R
	MachinesPerRack int     // k
	SlotsPerMachine int     // s (§2.4.4); 0 means 1
	NICBps          float64 // B, per machine
	// Oversubscription is V: a rack's uplink is k·B/V. The paper has
	// V > 1; V = 1 (full bisection) is allowed, see Latency.
	Oversubscription float64
	// BackgroundShare is the share of the uplink taken by background
	// traffic; the core term then uses V/(1−share) (§2.4.2's option).
	// 0 is the spec's default: raw V.
	BackgroundShare float64
}

// UplinkBps is a rack's uplink, k·B/V.
func (c Cluster) UplinkBps() float64 {
	return float64(c.MachinesPerRack) * c.NICBps / c.Oversubscription
}

// Check reports a cluster the model cannot use.
func (c Cluster) Check() error {
	switch {
	case c.Racks < 1:
		return fmt.Errorf("corral: cluster has %d racks, want at least 1", c.Racks)
	case c.MachinesPerRack < 1:
		return fmt.Errorf("corral: cluster has %d machines per rack, want at least 1", c.MachinesPerRack)
	case c.SlotsPerMachine < 0:
		return fmt.Errorf("corral: cluster has %d slots per machine, want at least 1", c.SlotsPerMachine)
	case !(c.NICBps > 0) || math.IsInf(c.NICBps, 0):
		return fmt.Errorf("corral: NIC bandwidth %g must be positive", c.NICBps)
	case !(c.Oversubscription >= 1) || math.IsInf(c.Oversubscription, 0):
		return fmt.Errorf("corral: oversubscription %g must be at least 1", c.Oversubscription)
	case !(c.BackgroundShare >= 0 && c.BackgroundShare < 1):
		return fmt.Errorf("corral: background share %g is outside [0,1)", c.BackgroundShare)
	}
	return nil
}

// Model holds the response-function switches of §2.4–§2.5.
type Model struct {
	// ShuffleWaveMultiplier multiplies the shuffle time by the reduce
	// waves, as the paper's formula does (§2.4.2's second ambiguity);
	// false is the per-wave-corrected variant.
	ShuffleWaveMultiplier bool
	// Alpha is α of the data-imbalance penalty α·D^I/r (§2.5), seconds
	// per byte; 0 turns the penalty off. DefaultAlpha is the paper's.
	Alpha float64
}

// DefaultAlpha is the paper's α: 1 / (a rack's uplink bandwidth), V/(k·B).
func DefaultAlpha(c Cluster) float64 { return 1 / c.UplinkBps() }

// Check reports a job the model cannot use: negative sizes or counts,
// or a stage with bytes and no rate to process them.
func (j Job) Check() error {
	switch {
	case !(j.Arrival >= 0) || math.IsInf(j.Arrival, 0):
		return fmt.Errorf("corral: job %q: arrival %g must be ≥ 0", j.ID, j.Arrival)
	case !(j.InputBytes >= 0 && j.ShuffleBytes >= 0 && j.OutputBytes >= 0):
		return fmt.Errorf("corral: job %q: sizes (%g, %g, %g) must be ≥ 0", j.ID, j.InputBytes, j.ShuffleBytes, j.OutputBytes)
	case j.MapTasks < 0 || j.ReduceTasks < 0:
		return fmt.Errorf("corral: job %q: task counts (%d, %d) must be ≥ 0", j.ID, j.MapTasks, j.ReduceTasks)
	case j.MapTasks > 0 && j.InputBytes > 0 && !(j.MapRate > 0):
		return fmt.Errorf("corral: job %q: map rate %g must be positive", j.ID, j.MapRate)
	case j.ReduceTasks > 0 && j.OutputBytes > 0 && !(j.ReduceRate > 0):
		return fmt.Errorf("corral: job %q: reduce rate %g must be positive", j.ID, j.ReduceRate)
	}
	for i, st := range j.Stages {
		if st.Tasks < 0 || !(st.TaskSeconds >= 0) || !(st.InBytes >= 0) || math.IsInf(st.TaskSeconds+st.InBytes, 0) {
			return fmt.Errorf("corral: job %q stage %d: tasks %d, task time %g and input %g must be finite values ≥ 0", j.ID, i, st.Tasks, st.TaskSeconds, st.InBytes)
		}
		for _, a := range st.After {
			if a < 0 || a >= i {
				return fmt.Errorf("corral: job %q stage %d follows stage %d: want an earlier stage", j.ID, i, a)
			}
		}
	}
	return nil
}

// Latency is L_j(r) of §2.4.2, the MapReduce model: map, shuffle and
// reduce in sequence, each wave of tasks spread evenly over the r·k
// machines (§2.4.5's critical path for a job given as a DAG). It is
// deliberately crude: only relative values matter.
func (m Model) Latency(j Job, c Cluster, r int) float64 {
	if len(j.Stages) > 0 {
		return m.dagLatency(j.Stages, c, r)
	}
	s := max(c.SlotsPerMachine, 1)
	machines := r * c.MachinesPerRack

	var lMap, lReduce, lShuffle float64
	if j.MapTasks > 0 && j.InputBytes > 0 {
		wMap := float64(ceilDiv(j.MapTasks, machines*s))
		lMap = wMap * (j.InputBytes / float64(j.MapTasks)) / j.MapRate
	}
	wRed := 0.0
	if j.ReduceTasks > 0 {
		wRed = float64(ceilDiv(j.ReduceTasks, machines*s))
		if j.OutputBytes > 0 {
			// [AMBIGUITY §2.4.2] the reduce stage is costed on output
			// bytes, with B_R measured the same way
			lReduce = wRed * (j.OutputBytes / float64(j.ReduceTasks)) / j.ReduceRate
		}
	}
	if j.ReduceTasks > 0 && j.ShuffleBytes > 0 {
		lShuffle = m.shuffle(j.ShuffleBytes, wRed, c, r)
	}
	return lMap + lShuffle + lReduce
}

// shuffle is l_shuffle(r) of §2.4.2 for bytes shuffled into a stage
// running in waves waves: the slower of each machine's core share and
// its in-rack share.
func (m Model) shuffle(bytes, waves float64, c Cluster, r int) float64 {
	k := float64(c.MachinesPerRack)
	rf := float64(r)
	perMachine := bytes / (rf * k)
	coreBps := c.NICBps / c.Oversubscription
	v := c.Oversubscription / (1 - c.BackgroundShare)
	var lCore float64
	if r > 1 {
		lCore = perMachine * (rf - 1) / rf / (c.NICBps / v)
	}
	// [AMBIGUITY §2.4.2] even at r = 1 the in-rack transfer gets only
	// what the core share leaves of the NIC, B − B/V; 1/k of it stays
	// on the machine
	inRackBps := c.NICBps - coreBps
	if c.Oversubscription == 1 {
		// [TESTBED] full bisection: B − B/V would be 0; the NIC is then
		// the only limit in the rack
		inRackBps = c.NICBps
	}
	lLocal := perMachine / rf / inRackBps * (k - 1) / k
	l := math.Max(lCore, lLocal)
	if m.ShuffleWaveMultiplier {
		// [AMBIGUITY §2.4.2] the paper multiplies by the reduce waves,
		// which double-counts when N^R > r·k
		l *= waves
	}
	return l
}

// dagLatency is §2.4.5's [INTERPRETATION]: each stage costs its shuffle
// (none for a source) plus its waves of τ_s, and the job the longest
// source-to-sink path, found per r since it may change with r.
func (m Model) dagLatency(stages []Stage, c Cluster, r int) float64 {
	slots := r * c.MachinesPerRack * max(c.SlotsPerMachine, 1)
	path := make([]float64, len(stages))
	var longest float64
	for i, st := range stages {
		waves := float64(ceilDiv(st.Tasks, slots))
		l := waves * st.TaskSeconds
		if len(st.After) > 0 && st.InBytes > 0 {
			l += m.shuffle(st.InBytes, waves, c, r)
		}
		var before float64
		for _, a := range st.After {
			before = math.Max(before, path[a])
		}
		path[i] = before + l
		longest = math.Max(longest, path[i])
	}
	return longest
}

// Penalised is L'_j(r) = L_j(r) + α·D^I/r (§2.5).
func (m Model) Penalised(j Job, c Cluster, r int) float64 {
	return m.Latency(j, c, r) + m.Alpha*j.InputBytes/float64(r)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
