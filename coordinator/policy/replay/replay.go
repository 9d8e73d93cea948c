package replay

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config is the policy's args: a campaign or `bench sim --replay`
// writes {file: results/x/local/fifo-seed1/attempts.csv, slowstart: 0.05}.
type Config struct {
	// File is the recorded run's attempts.csv.
	File string `yaml:"file"`
	// SlowStart is the recorded run's reduce slow-start fraction (its
	// policy's default if its campaign set none); 0 leaves the engine's.
	// It matters: a reducer launched before its maps finished must be
	// released as early in the replay.
	SlowStart float64 `yaml:"slowstart"`
	// NotBefore holds each attempt back until its recorded start time as
	// well: the replay then also repeats the slots a policy left idle on
	// purpose (delay scheduling), and never runs ahead of the recorded
	// run. Off, only the order is replayed.
	NotBefore bool `yaml:"not_before"`
	// Placer names the recorded run's policy when that policy placed the
	// input datasets itself (Corral: an engine.DatasetPlacer), and
	// PlacerArgs its args, a YAML mapping such as '{placement: hdfs}'.
	// The replay then plans with that policy and places the datasets as
	// it did, so that each map's recorded source holds its block; empty,
	// the run's own placement places them (HDFS's by default). The
	// policy registry builds it (WithPlacer).
	Placer     string `yaml:"placer"`
	PlacerArgs string `yaml:"placer_args"`
}

// DefaultConfig names no file: a replay must be told what to replay.
func DefaultConfig() Config { return Config{} }

// Validate checks the args.
func (c Config) Validate() error {
	if c.File == "" {
		return fmt.Errorf("arg file: name the recorded run's attempts.csv")
	}
	if c.Placer == "" && c.PlacerArgs != "" {
		return fmt.Errorf("arg placer_args needs arg placer: name the policy they are for")
	}
	if !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return fmt.Errorf("arg slowstart must be between 0 and 1 (got %g)", c.SlowStart)
	}
	return nil
}

// Reason is the decision note of every replayed launch, and
// ReasonOverLimit that of a launch over the early-shuffle limit, the
// replay's way out of a deadlock (see the package doc).
const (
	Reason          = "replay"
	ReasonOverLimit = "replay-over-early-limit"
)

type recState uint8

const (
	waiting recState = iota // not launched yet
	running                 // launched, not ended
	ended                   // launched and ended in the replay
	skipped                 // its task or job was done before its turn
)

// Policy replays a recorded run's launches (see the package doc).
type Policy struct {
	cfg Config
	log *Log
	// err is what the policy found wrong with the records for this run
	// (in Plan, or when the replay reached it); the policy then launches
	// nothing more, says so once as a rejection, and the drivers stop the
	// run with it (Err).
	err      error
	reported bool

	jobs  map[string]engine.JobID
	state []recState
	// queues holds, per host and slot pool (host*2 + pool), the indexes
	// of its records in launch order; heads[q] is the first not yet
	// launched or skipped.
	queues [][]int
	heads  []int
	// frontier is the first record, in launch order, still waiting.
	frontier int
	// lastStart is the latest recorded start.
	lastStart float64
	// byAttempt maps the replay's attempts to their records.
	byAttempt map[engine.AttemptID]int
	attempt   []engine.AttemptID
	// toKill are the running attempts recorded as killed or failed.
	toKill []int
	// byTask lists each task's records.
	byTask map[engine.TaskRef][]int
	// kept marks the records whose output the replay holds (keptFor).
	kept []bool

	// Skipped counts records whose task was done before their turn;
	// SourceMismatches the maps whose recorded source was no replica
	// in the replay (they read the engine's choice instead).
	Skipped, SourceMismatches int
	// TierMismatches counts the maps that read their recorded source
	// host's copy on another tier than the recorded one.
	TierMismatches int
	// heldByTime says that the last pass found a record waiting for its
	// recorded start (not_before): time, not a deadlock, holds it.
	heldByTime bool
}

// New builds the policy: it reads and checks the recorded attempts.
func New(cfg Config) (*Policy, error) {
	lg, err := Load(cfg.File)
	if err != nil {
		return nil, err
	}
	return NewFromLog(cfg, lg), nil
}

// NewFromLog builds the policy on records already read.
func NewFromLog(cfg Config, lg *Log) *Policy {
	return &Policy{cfg: cfg, log: lg}
}

// Name is the policy's name.
func (*Policy) Name() string { return "replay" }

// Err is what the policy found wrong with the records, if anything:
// when the run started (Log.Check), or when the replay reached a record
// naming a task this run does not have. The drivers stop the run with it
// (engine.Failer).
func (p *Policy) Err() error { return p.err }

var _ engine.Failer = (*Policy)(nil)

// Configure sets the recorded run's slow-start.
func (p *Policy) Configure(cfg *engine.Config) {
	if p.cfg.SlowStart > 0 {
		cfg.SlowStart = p.cfg.SlowStart
	}
}

// Plan checks the records against the run's workload and cluster and
// builds the per-host queues.
func (p *Policy) Plan(ctx *engine.Context, fk *engine.Foreknowledge) {
	topo := ctx.Topology()
	if err := p.log.Check(topo, fk.Workload); err != nil {
		p.err = err
		return
	}
	// engine job ids index the workload's jobs
	p.jobs = make(map[string]engine.JobID, len(fk.Workload.Jobs))
	for i := range fk.Workload.Jobs {
		p.jobs[fk.Workload.Jobs[i].ID] = engine.JobID(i)
	}
	n := len(p.log.Records)
	p.state = make([]recState, n)
	p.attempt = make([]engine.AttemptID, n)
	p.kept = make([]bool, n)
	p.byAttempt = make(map[engine.AttemptID]int, n)
	p.byTask = map[engine.TaskRef][]int{}
	p.queues = make([][]int, 2*len(topo.Hosts))
	p.heads = make([]int, len(p.queues))
	for i := range p.log.Records {
		r := &p.log.Records[i]
		q := p.queueOf(topo, r)
		p.queues[q] = append(p.queues[q], i)
		ref := p.ref(r)
		p.byTask[ref] = append(p.byTask[ref], i)
		p.lastStart = max(p.lastStart, r.Start)
	}
}

// queueOf is a record's queue: its host's one pool, or its map or
// reduce pool when the host has both.
func (p *Policy) queueOf(topo *cluster.Topology, r *Record) int {
	pool := 0
	if topo.Hosts[r.Host].SplitSlots() && r.Kind != workload.Map {
		pool = 1
	}
	return 2*int(r.Host) + pool
}

func (p *Policy) ref(r *Record) engine.TaskRef {
	return engine.TaskRef{Job: p.jobs[r.Job], Stage: int16(r.Stage), Index: int32(r.Task)}
}

// ScheduleRound launches what the records allow now, in launch order,
// and kills the attempts whose recorded end has come.
func (p *Policy) ScheduleRound(ctx *engine.Context, _ []cluster.HostID) {
	for p.err == nil {
		// a launch, a kill or a launch over the limit may let more go
		moved := p.launchReady(ctx, false)
		if p.err == nil && !moved {
			moved = p.killDue(ctx) || p.overEarlyLimit(ctx)
		}
		if !moved {
			break
		}
	}
	if p.err != nil && !p.reported {
		// the drivers stop the run with Err; the rejection keeps the
		// reason in the run's decision counters too
		ctx.Reject("replay: " + p.err.Error())
		p.reported = true
	}
}

// overEarlyLimit ends a deadlock the replay's own timing made: every
// attempt still running started before its upstream finished and waits
// for an upstream task that is not launched, because the head of that
// task's host queue is held back by the early-shuffle limit (which these
// very attempts fill) or by the slots they hold. The recorded run never
// met it, having kept to the limit on its own timeline. The first record
// in launch order that heads its queue and is held only by the limit is
// launched over it (ReasonOverLimit); it reports whether one was.
func (p *Policy) overEarlyLimit(ctx *engine.Context) bool {
	early, all := ctx.EarlyShuffles()
	if all == 0 || early < all || p.heldByTime {
		return false
	}
	return p.launchReady(ctx, true)
}

// launchReady makes one pass over the waiting records in launch order,
// trying each that heads its queue (a launch makes the next record of
// its queue the head, tried later in the same pass), and reports
// whether any record was launched or skipped.
//
// With overLimit the pass launches the first record it can over the
// early-shuffle limit, and stops there: the recorded order resumes.
func (p *Policy) launchReady(ctx *engine.Context, overLimit bool) bool {
	topo := ctx.Topology()
	moved := false
	p.heldByTime = false
	for i := p.frontier; i < len(p.state); i++ {
		if p.state[i] != waiting {
			continue
		}
		q := p.queueOf(topo, &p.log.Records[i])
		if p.queues[q][p.heads[q]] != i {
			continue // an earlier record of its host waits
		}
		done := p.try(ctx, i, overLimit)
		if p.err != nil {
			return false
		}
		if done {
			p.heads[q]++
			moved = true
			if overLimit && p.state[i] == running {
				break // its note, ReasonOverLimit, is its count
			}
		}
	}
	for p.frontier < len(p.state) && p.state[p.frontier] != waiting {
		p.frontier++
	}
	return moved
}

// try launches record i if it can run now, or skips it if it never
// will; it reports whether the record is done with (launched or
// skipped). overLimit launches it over the early-shuffle limit too.
func (p *Policy) try(ctx *engine.Context, i int, overLimit bool) bool {
	r := &p.log.Records[i]
	ref := p.ref(r)
	j := ctx.Job(ref.Job)
	switch j.State {
	case engine.JobWaiting:
		return false
	case engine.JobRunning:
	default: // the job ended before this attempt's turn
		if st := j.Stages[r.Stage]; st.Released && p.noSuchTask(r, st) {
			return false // a record of another workload, not a race lost
		}
		p.skip(i)
		return true
	}
	// the records keep microseconds
	if p.cfg.NotBefore && ctx.Now() < r.Start-1e-6 {
		p.heldByTime = true
		return false
	}
	if !ctx.Alive(r.Host) {
		p.skip(i)
		return true
	}
	st := j.Stages[r.Stage]
	if !st.Released {
		return false
	}
	if p.noSuchTask(r, st) {
		return false
	}
	dup := false
	switch ctx.Task(ref).State {
	case engine.TaskBlocked:
		return false
	case engine.TaskDone:
		p.skip(i)
		return true
	case engine.TaskRunning:
		dup = true
	case engine.TaskPending:
		if !ctx.CanRun(ref) && !(overLimit && ctx.HeldByEarlyLimit(ref)) {
			return false
		}
	}
	free := ctx.FreeMapSlots(r.Host)
	if r.Kind != workload.Map {
		free = ctx.FreeReduceSlots(r.Host)
	}
	if free == 0 {
		return false
	}
	opt := engine.LaunchOptions{Note: engine.DecisionNote{Reason: Reason}}
	if overLimit {
		opt.OverEarlyLimit, opt.Note.Reason = true, ReasonOverLimit
	}
	if r.Source.Host >= 0 {
		src := r.Source
		for _, rep := range ctx.Replicas(ref) {
			if rep == src {
				opt.Source = &src
				break
			}
		}
		if opt.Source == nil {
			// the replica's tier moved (a memory cache's promotions and
			// evictions follow the timing): read the host's copy
			for _, rep := range ctx.Replicas(ref) {
				if rep.Host == src.Host {
					rep := rep
					opt.Source = &rep
					p.TierMismatches++
					ctx.Reject("replay: recorded source on another tier")
					break
				}
			}
		}
		if opt.Source == nil {
			// the run placed its data elsewhere (a parent job's output,
			// which the records do not place): say so, and read the
			// engine's choice rather than stall
			p.SourceMismatches++
			ctx.Reject("replay: recorded source is no replica")
		}
	}
	var id engine.AttemptID
	var err error
	if dup {
		id, err = ctx.LaunchDuplicate(ref, r.Host, opt)
	} else {
		id, err = ctx.Launch(ref, r.Host, opt)
	}
	if err != nil {
		// the engine said why in its counters (a duplicate of a reducer
		// over the early-shuffle limit): try again at the next round
		return false
	}
	p.state[i] = running
	p.attempt[i] = id
	p.byAttempt[id] = i
	if !r.Succeeded() {
		p.toKill = append(p.toKill, i)
	}
	return true
}

// noSuchTask says whether record r names a task its released stage st
// does not have, and makes that the policy's error: the recorded run had
// more tasks than this one, so the records are not of its workload or
// layout, and a replay that went on without the record would not repeat
// the recorded decisions.
func (p *Policy) noSuchTask(r *Record, st *engine.Stage) bool {
	if r.Task < len(st.Tasks) {
		return false
	}
	p.err = fmt.Errorf("%s:%d: job %s stage %d has no task %d in this run (it has %d): the records are of another workload or data layout",
		p.log.File, r.Line, r.Job, r.Stage, r.Task, len(st.Tasks))
	return true
}

func (p *Policy) skip(i int) {
	p.state[i] = skipped
	p.Skipped++
}

// killDue kills the running attempts recorded as killed or failed whose
// recorded end comes no later than the next recorded launch still to
// come (every launch recorded before the kill has been made) and, with
// not_before, whose recorded end has come. A kill recorded after the
// last launch is left to the engine: the loser of a duplicate race ends
// with the race. It reports whether it killed any.
func (p *Policy) killDue(ctx *engine.Context) bool {
	next := p.lastStart
	if p.frontier < len(p.state) {
		next = p.log.Records[p.frontier].Start
	}
	killed := false
	keep := p.toKill[:0]
	for _, i := range p.toKill {
		if p.state[i] != running {
			continue
		}
		if p.log.Records[i].End > next {
			keep = append(keep, i)
			continue
		}
		// with not_before a kill waits for its recorded end as launches
		// wait for their start: the launches before it may all be made
		// early, and a kill then would leave the attempts recorded at its
		// time (a relocation's duplicate) no attempt to duplicate
		if p.cfg.NotBefore && ctx.Now() < p.log.Records[i].End-1e-6 {
			p.heldByTime = true
			keep = append(keep, i)
			continue
		}
		if ctx.Attempt(p.attempt[i]) != nil {
			if err := ctx.Kill(p.attempt[i]); err == nil {
				killed = true
			}
		}
	}
	p.toKill = keep
	return killed
}

// AttemptEnded notes that an attempt ended; it takes no action (the
// engine is in the middle of ending it).
func (p *Policy) AttemptEnded(_ *engine.Context, a *engine.Attempt) {
	if i, ok := p.byAttempt[a.ID]; ok {
		p.state[i] = ended
		delete(p.byAttempt, a.ID)
	}
}

// ChooseOutput uses the output of an attempt recorded as succeeding,
// unless the recorded run kept it back while another attempt of its task
// ran (keptFor): it is held then, as Shadow holds an original's while
// its duplicate runs, and the engine uses it unless an attempt recorded
// as succeeding succeeds here first. An attempt recorded as killed or
// failed that succeeds here gives way to an attempt of its task recorded
// as succeeding that has yet to end or whose output is held.
func (p *Policy) ChooseOutput(_ *engine.Context, a *engine.Attempt) engine.OutputDecision {
	i, ok := p.byAttempt[a.ID]
	if !ok {
		return engine.UseOutput
	}
	r := &p.log.Records[i]
	for _, k := range p.byTask[a.Task] {
		if k == i {
			continue
		}
		if !r.Succeeded() && p.log.Records[k].Succeeded() && (p.state[k] == waiting || p.state[k] == running || p.kept[k]) {
			return engine.DiscardOutput
		}
		if r.Succeeded() && (p.state[k] == waiting || p.state[k] == running) && keptFor(r, &p.log.Records[k]) {
			p.kept[i] = true
			return engine.HoldOutput
		}
	}
	return engine.UseOutput
}

// keptFor says whether the recorded run kept back the output of r,
// recorded as succeeding, while k ran: k was running when r ended and
// ended later. A used output ends its task, and the engine kills the
// task's other attempts then, so r's was not used when it ended (Shadow
// held it until it chose between r and k). A k that started after r
// ended is a rerun (a host lost r's output), which is not replayed.
func keptFor(r, k *Record) bool {
	return k.Start < r.End && k.End > r.End
}

// Progress is how far the replay got: records launched, skipped, and
// still waiting.
func (p *Policy) Progress() (launched, skippedN, waitingN int) {
	for _, s := range p.state {
		switch s {
		case running, ended:
			launched++
		case skipped:
			skippedN++
		default:
			waitingN++
		}
	}
	return
}
