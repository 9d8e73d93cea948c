package pushbox

import (
	"fmt"
	"math"
)

// Config is PushBox's parameters (pushbox.md §3.1), its ablations (§4.6),
// the estimation error (§5.2, §6.4) and the ambiguity register's choices
// (§9); the yaml tags name them as a campaign's policy args. The defaults
// are the spec's resolutions.
type Config struct {
	// M is the controlled-concurrency threshold m: input-phase tasks per
	// machine before a remote task needs the wildcard (§1.6; 3).
	M int `yaml:"m"`
	// EMAAlpha is the weight α of a new receive-rate measurement in each
	// machine's effective bandwidth B̂ (§1.6; 0.3). The driver's network
	// window is the sampling interval.
	EMAAlpha float64 `yaml:"ema_alpha"`
	// NodeDelay and RackDelay are delay scheduling's skip budgets in
	// multiples of the machine count M: a job may run a map rack-local
	// after NodeDelay·M skips and anywhere after RackDelay·M (§2.3; 1
	// and 2).
	NodeDelay float64 `yaml:"node_delay"`
	RackDelay float64 `yaml:"rack_delay"`
	// RackLocal says whether a rack-local input counts as local (the
	// oversubscribed mode of §1.6 and §2.10: such tasks take the reserved
	// lowest priority and are left out of the concurrency and backlog
	// accounting): "auto" (when a rack's uplink is below its hosts' NIC
	// total), "yes" or "no".
	RackLocal string `yaml:"rack_local"`
	// Classes is the number of network priority classes the ranks of a
	// machine's NORMAL tasks map to, highest first; surplus ranks share
	// the last, and the reserved lowest class comes after them (§2.7; 4).
	Classes int `yaml:"classes"`

	// GlobalPriority is the GP ablation: one cluster-wide
	// smallest-coflow-first priority by coflow size bin (GPBinBytes ×
	// 10^k, at most 7 classes) instead of the per-machine ranking (§4.6).
	GlobalPriority bool `yaml:"global_priority"`
	// GPBinBytes is the upper edge of GP's first bin (10 MB).
	GPBinBytes float64 `yaml:"gp_bin_bytes"`
	// GPConcurrency keeps controlled concurrency under GP (§9 item 13;
	// true).
	GPConcurrency bool `yaml:"gp_concurrency"`
	// RandomSelect is the RS ablation: a stage's waiting task is drawn
	// uniformly instead of largest input first (§4.6).
	RandomSelect bool `yaml:"random_select"`
	// NoNotHinder is the H ablation: a beneficiary's local task always
	// passes the not-hinder test (§4.6).
	NoNotHinder bool `yaml:"no_not_hinder"`
	// NoWildcard is the W ablation: a machine with m input-phase tasks
	// takes no remote task, whatever its coflow (§4.6).
	NoWildcard bool `yaml:"no_wildcard"`
	// ErrorFactor is f of the estimation-error study: each task's input
	// estimate is multiplied by E = f^(2U−1), U uniform, one seeded draw
	// per task (§5.2; 1, exact).
	ErrorFactor float64 `yaml:"error_factor"`

	// KeepIdleJobs keeps jobs with nothing waiting in Jobs[], the literal
	// Algorithm 2 (§9 item 6; false: they are left out, as YARN offers
	// containers only to applications that ask).
	KeepIdleJobs bool `yaml:"keep_idle_jobs"`
	// YieldOnSkipBypassesNotHinder lets a later job's local task take a
	// slot that earlier jobs declined only by delay-scheduling skips,
	// without the not-hinder test (§9 item 8; false, literal).
	YieldOnSkipBypassesNotHinder bool `yaml:"yield_on_skip_bypasses_not_hinder"`
	// CoflowSize is what a coflow's size is, for the wildcard and the
	// ranking: "total" bytes of the stage's network input, or what
	// "remaining" of it (§9 item 9; total).
	CoflowSize string `yaml:"coflow_size"`
	// MinCoflow is which input-phase tasks of a machine its minCoflow,
	// the size the wildcard must beat, is taken over (A1.13): "all" of
	// them, the candidate's own coflow's included (§2.2's definition and
	// the paper's "smaller even than the smallest coflow in a machine":
	// a coflow gets past m on a machine with one task at most, so m
	// stays the bound it is meant to be), or the "others" only
	// (Scenario 4b's arithmetic, which lets a coflow's tasks past m
	// without a bound; on the FB2010 trace, up to 20 receiving tasks a
	// machine). Default all.
	MinCoflow string `yaml:"min_coflow"`
	// FIFOHeadWildcard gives the wildcard to the head job of a FIFO
	// queue. The spec and the paper give none under FIFO (A1.14–A1.15:
	// "if policy(task) = Fair: return true, else: return false"; §2.5
	// "Under FIFO there is no wildcard"; §9 item 10: the candidate's own
	// queue's policy), the head included: default false. True is an
	// extension beyond the spec: the head has no job ahead of it to
	// protect (§2.5, Fig. 4c), and in the multi-queue setting the literal
	// rule lets a Fair queue's large coflows keep every machine at m
	// input-phase tasks while the FIFO queue's head, and all of its queue
	// behind it, wait until one drains (on the FB2010 trace a 7 MB head
	// waited 476 s, its 60 followers with it).
	FIFOHeadWildcard bool `yaml:"fifo_head_wildcard"`
}

// The values of Config.MinCoflow.
const (
	MinCoflowAll    = "all"
	MinCoflowOthers = "others"
)

// DefaultConfig is the spec's configuration.
func DefaultConfig() Config {
	return Config{M: 3, EMAAlpha: 0.3, NodeDelay: 1, RackDelay: 2, RackLocal: "auto", Classes: 4,
		GPBinBytes: 10e6, GPConcurrency: true, ErrorFactor: 1, CoflowSize: "total", MinCoflow: MinCoflowAll}
}

// Validate checks the args after decoding.
func (c Config) Validate() error {
	switch {
	case c.M < 1:
		return fmt.Errorf("pushbox: m %d: want at least 1", c.M)
	case !(c.EMAAlpha > 0 && c.EMAAlpha <= 1):
		return fmt.Errorf("pushbox: ema_alpha %g is outside (0,1]", c.EMAAlpha)
	case !(c.NodeDelay >= 0) || math.IsInf(c.NodeDelay, 0):
		return fmt.Errorf("pushbox: node_delay %g: want a finite value ≥ 0", c.NodeDelay)
	case !(c.RackDelay >= c.NodeDelay) || math.IsInf(c.RackDelay, 0):
		return fmt.Errorf("pushbox: rack_delay %g: want a finite value ≥ node_delay %g", c.RackDelay, c.NodeDelay)
	case c.RackLocal != "auto" && c.RackLocal != "yes" && c.RackLocal != "no":
		return fmt.Errorf("pushbox: rack_local %q: want auto, yes or no", c.RackLocal)
	case c.Classes < 1 || c.Classes > 32:
		return fmt.Errorf("pushbox: classes %d: want 1 to 32", c.Classes)
	case !(c.GPBinBytes >= 1) || math.IsInf(c.GPBinBytes, 0):
		// at least a byte: a coflow over an edge near 0 overflows to
		// +Inf and took class 1 instead of the last (gpBin)
		return fmt.Errorf("pushbox: gp_bin_bytes %g: want a finite size ≥ 1 byte", c.GPBinBytes)
	case !(c.ErrorFactor >= 1) || math.IsInf(c.ErrorFactor, 0):
		return fmt.Errorf("pushbox: error_factor %g: want a finite value ≥ 1", c.ErrorFactor)
	case c.CoflowSize != "total" && c.CoflowSize != "remaining":
		return fmt.Errorf("pushbox: coflow_size %q: want total or remaining", c.CoflowSize)
	case c.MinCoflow != MinCoflowAll && c.MinCoflow != MinCoflowOthers:
		return fmt.Errorf("pushbox: min_coflow %q: want %s or %s", c.MinCoflow, MinCoflowAll, MinCoflowOthers)
	}
	return nil
}
