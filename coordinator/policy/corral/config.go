package corral

import (
	"fmt"
	"math"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy/internal/yarnrm"
)

// MaxAlpha bounds the alpha arg, in seconds per byte. The paper's α,
// 1/(rack uplink), is at most 1 on the slowest uplink a topology may
// have (cluster.MinRateBps); a million times that leaves room for any
// sweep, and keeps α·D^I (D^I at most workload.MaxBytes) and the
// planner's sums of such terms finite: a penalty that overflows to +Inf
// in the objective leaves Algorithm P without a best plan.
const MaxAlpha = 1e6

// Config is the policy's args (corral.md §3.2 and the switches the spec
// names); the yaml tags are a campaign's arg names.
type Config struct {
	// Objective is batch (makespan), online (average completion time) or
	// auto: online when some planned job arrives after 0 (§1.3).
	Objective string `yaml:"objective"`
	// Penalty adds the data-imbalance penalty α·D^I/r to every response
	// function (§2.5); the paper's Corral always runs with it.
	Penalty bool `yaml:"penalty"`
	// Alpha is α in seconds per byte; 0 is the paper's 1/(rack uplink).
	Alpha float64 `yaml:"alpha"`
	// ShuffleWaveMultiplier multiplies the shuffle by the reduce waves,
	// the paper's formula (§2.4.2); false is the per-wave correction.
	ShuffleWaveMultiplier bool `yaml:"shuffle_wave_multiplier"`
	// Background is the uplink share the planner assumes background
	// traffic takes: the core term uses V/(1−background) (§2.4.2's
	// option). 0 is the spec's default, raw V.
	Background float64 `yaml:"background"`
	// EarlyStop stops widening once the wide jobs hold every rack
	// (§2.3.1's optional variant, for ablation).
	EarlyStop bool `yaml:"early_stop"`
	// MapRate and ReduceRate are B_M and B_R in bytes per second of one
	// task (§2.4.3); 0 derives them from the job's compute cost per byte
	// and the rates of the disks it reads and writes, shared by a host's
	// slots (the same script's earlier runs at concurrency s, §2.4.4).
	MapRate    float64 `yaml:"map_rate"`
	ReduceRate float64 `yaml:"reduce_rate"`
	// OutputWrite is what a derived rate counts of a job's output write:
	// replicas, every copy the writer waits for (its local disk, and the
	// copies its NIC and its share of the rack uplink carry as the run
	// places and sends outputs), as an earlier run's task times include
	// them; or local, the local copy's disk time only.
	OutputWrite string `yaml:"output_write"`
	// Placement is planned (Algorithm U, §2.6: one replica in R_j) or
	// hdfs (HDFS random placement: LocalShuffle, §4.3).
	Placement string `yaml:"placement"`
	// SecondRack is where replicas 2–3 go: least_loaded (§4.5, "in
	// practice") or random (§3.1's base rule), another rack either way.
	SecondRack string `yaml:"second_rack"`
	// SecondRackTies breaks a tie between least-loaded racks: random
	// (U4: seeded, the run's draw) or lowest (the lower id, for
	// hand-computed tests).
	SecondRackTies string `yaml:"second_rack_ties"`
	// NodeDelay is D_node, the scheduling opportunities a planned job
	// skips waiting for a node-local map (§2.7 S3); it is also the ad hoc
	// jobs' capacity-scheduler delay. 0 means hosts per rack (§4.1).
	NodeDelay int `yaml:"node_delay"`
	// ReducerDelay holds a planned job's reducers as YARN's
	// CapacityScheduler holds a rack-level request (LeafQueue.canAssign,
	// RACK_LOCAL): a reducer takes a slot only once the job has been
	// passed over more than NodeDelay times since its last one. Off: the
	// spec's S3, any pending reducer at once.
	ReducerDelay bool `yaml:"reducer_delay"`
	// FailThreshold is the share of R_j's machines that must be down,
	// more than it, before job j ignores its racks (§2.7: a majority);
	// a whole rack of R_j down is enough whatever the share.
	FailThreshold float64 `yaml:"fail_threshold"`
	// AdHocQueue names a queue whose jobs are ad hoc, never planned, even
	// when the run predicts them; datagen's recurring mix puts its ad hoc
	// jobs in "adhoc". Empty: only the predictions decide.
	AdHocQueue string `yaml:"adhoc_queue"`
	// SlowStart is the reduce slow-start the policy asks of the run
	// unless the run sets one: 1, reducers after every map, the
	// planner's sequential model (§7.3 item 9).
	SlowStart float64 `yaml:"slow_start"`
	// OneOffSwitch is the ad hoc scheduler's capacity arg of the same
	// name (Hadoop 2.7's root queue: one off-switch container a node
	// heartbeat). A planned job's containers ask for its racks, never
	// "*", so only the ad hoc jobs' reducers and remote maps count.
	OneOffSwitch bool `yaml:"one_off_switch_per_heartbeat"`
	// Heartbeat is the nodes' heartbeat interval the rule waits out, as
	// capacity's (Hadoop 2.7's 1s).
	Heartbeat time.Duration `yaml:"heartbeat"`
	// SingleQueue is the ad hoc scheduler's capacity arg of the same
	// name: every unplanned job in one FIFO queue, as Yarn-CS (§4.1),
	// whatever queue the workload names for it.
	SingleQueue bool `yaml:"single_queue"`
}

// DefaultConfig is the paper's Corral as the spec states it.
func DefaultConfig() Config {
	return Config{
		Objective: "auto", Penalty: true, ShuffleWaveMultiplier: true,
		OutputWrite: "replicas", Placement: "planned", SecondRack: "least_loaded", SecondRackTies: "random", FailThreshold: 0.5, AdHocQueue: "adhoc", SlowStart: 1,
		Heartbeat: yarnrm.DefaultHeartbeat,
	}
}

// Validate checks the args' values.
func (c Config) Validate() error {
	oneOf := func(arg, v string, ok ...string) error {
		for _, o := range ok {
			if v == o {
				return nil
			}
		}
		return fmt.Errorf("corral: %s %q is not one of %v", arg, v, ok)
	}
	if err := oneOf("objective", c.Objective, "auto", "batch", "online"); err != nil {
		return err
	}
	if err := oneOf("output_write", c.OutputWrite, "replicas", "local"); err != nil {
		return err
	}
	if err := oneOf("placement", c.Placement, "planned", "hdfs"); err != nil {
		return err
	}
	if err := oneOf("second_rack", c.SecondRack, "least_loaded", "random"); err != nil {
		return err
	}
	if err := oneOf("second_rack_ties", c.SecondRackTies, "random", "lowest"); err != nil {
		return err
	}
	nonNeg := func(arg string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("corral: %s %g must be a finite value ≥ 0", arg, v)
		}
		return nil
	}
	for _, a := range []struct {
		arg string
		v   float64
	}{{"alpha", c.Alpha}, {"map_rate", c.MapRate}, {"reduce_rate", c.ReduceRate}} {
		if err := nonNeg(a.arg, a.v); err != nil {
			return err
		}
	}
	if c.Alpha > MaxAlpha {
		return fmt.Errorf("corral: alpha %g s/byte is above the limit of %g", c.Alpha, float64(MaxAlpha))
	}
	// a set rate is bounded as the topology's rates are: a task reading
	// at a near-zero rate makes every response time overflow to +Inf
	for _, a := range []struct {
		arg string
		v   float64
	}{{"map_rate", c.MapRate}, {"reduce_rate", c.ReduceRate}} {
		if a.v != 0 && !(a.v >= cluster.MinRateBps && a.v <= cluster.MaxRateBps) {
			return fmt.Errorf("corral: %s %g bytes/s: want 0 (derived from the run) or a rate in [%g, %g]", a.arg, a.v, cluster.MinRateBps, cluster.MaxRateBps)
		}
	}
	switch {
	case !(c.Background >= 0 && c.Background < 1):
		return fmt.Errorf("corral: background %g is outside [0,1)", c.Background)
	case c.NodeDelay < 0:
		return fmt.Errorf("corral: node_delay %d: want 0 (hosts per rack) or more", c.NodeDelay)
	case !(c.FailThreshold >= 0 && c.FailThreshold <= 1):
		return fmt.Errorf("corral: fail_threshold %g is outside [0,1]", c.FailThreshold)
	case !(c.SlowStart >= 0 && c.SlowStart <= 1):
		return fmt.Errorf("corral: slow_start %g is outside [0,1]", c.SlowStart)
	}
	if err := yarnrm.CheckHeartbeat(c.Heartbeat); err != nil {
		return fmt.Errorf("corral: %w", err)
	}
	return nil
}
