package corral

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy/capacity"
	"github.com/racklab/racklab/coordinator/workload"
)

// jobPlan is the plan's word on one job of the run (by engine.JobID).
type jobPlan struct {
	planned  bool
	racks    []bool // R_j as a mask over racks
	rackList []cluster.RackID
	priority int
	start    float64
	duration float64
	// fallback: too many of R_j's machines are down, so the job runs
	// anywhere under the ad hoc scheduler (§2.7 Failures)
	fallback bool
}

// Policy is Corral: the planner in the Planner hook, Algorithm U in the
// DatasetPlacer hook and Algorithm S in OfferHost.
type Policy struct {
	cfg   Config
	adhoc *capacity.Policy

	plan      *Plan
	planErr   error
	objective Objective
	jobs      []jobPlan
	// readerOf maps a dataset to the planned job that reads it, the one
	// of highest priority if several do.
	readerOf map[string]engine.JobID
	// rackBytes and firstBytes are the input bytes stored per rack, all
	// replicas and first replicas only (§2.8).
	rackBytes, firstBytes []int64
	skips                 []int // per job: opportunities skipped (S3)
	redSkips              []int // per job: opportunities its reducers skipped (ReducerDelay)
	buf                   []*engine.Job
}

// New returns Corral with the given args.
func New(cfg Config) *Policy {
	p := &Policy{cfg: cfg, readerOf: map[string]engine.JobID{}}
	p.adhoc = capacity.New(capacity.Config{NodeLocalityDelay: cfg.NodeDelay, OneOffSwitch: cfg.OneOffSwitch, Heartbeat: cfg.Heartbeat, SingleQueue: cfg.SingleQueue})
	p.adhoc.Only = func(j *engine.Job) bool { return !p.confined(j.ID) }
	return p
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "corral" }

// Configure asks for reducers after every map unless the run sets a
// slow-start (§7.3 item 9).
func (p *Policy) Configure(cfg *engine.Config) {
	if p.cfg.SlowStart > 0 {
		cfg.SlowStart = p.cfg.SlowStart
	}
}

// Plan implements engine.Planner: it plans the jobs that have a
// prediction (every job, on its actual sizes, when the run has no
// predictions at all); the others, and the jobs of the ad hoc queue,
// are ad hoc.
func (p *Policy) Plan(ctx *engine.Context, fk *engine.Foreknowledge) {
	topo := ctx.Topology()
	p.rackBytes = make([]int64, len(topo.Racks))
	p.firstBytes = make([]int64, len(topo.Racks))
	if fk.Datasets != nil {
		for _, d := range fk.Datasets.Datasets {
			for _, b := range d.Blocks {
				for i, r := range b.Replicas {
					if int(r.Host) < len(topo.Hosts) {
						p.count(topo.RackOf(r.Host), b.Size, i == 0)
					}
				}
			}
		}
	}
	if fk.Workload == nil {
		return
	}
	p.jobs = make([]jobPlan, len(fk.Workload.Jobs))
	c := modelCluster(topo, p.cfg.Background)
	jobs, ids := p.plannerJobs(ctx, fk, c)
	if len(jobs) == 0 {
		return
	}
	p.objective = Batch
	if p.cfg.Objective == "online" {
		p.objective = Online
	}
	for _, j := range jobs {
		if p.cfg.Objective == "auto" && j.Arrival > 0 {
			p.objective = Online
		}
	}
	m := Model{ShuffleWaveMultiplier: p.cfg.ShuffleWaveMultiplier}
	if p.cfg.Penalty {
		m.Alpha = p.cfg.Alpha
		if m.Alpha == 0 {
			m.Alpha = DefaultAlpha(c)
		}
	}
	plan, err := PlanJobs(jobs, c, m, Options{Objective: p.objective, EarlyStop: p.cfg.EarlyStop})
	if err != nil {
		// every job runs ad hoc; the run's rejections say why
		p.planErr = err
		ctx.Reject(err.Error())
		return
	}
	p.plan = plan
	for i, a := range plan.Jobs {
		jp := &p.jobs[ids[i]]
		jp.planned = true
		jp.racks = make([]bool, len(topo.Racks))
		for _, r := range a.Racks {
			jp.racks[r] = true
			jp.rackList = append(jp.rackList, cluster.RackID(r))
		}
		jp.priority, jp.start, jp.duration = a.Priority, a.Start, a.Duration
	}
	for _, id := range plan.Order() {
		for _, st := range fk.Workload.Jobs[ids[id]].Stages {
			if st.Kind != workload.Map || st.Input == "" || st.Input[:1] == workload.ParentOutputPrefix {
				continue
			}
			if _, ok := p.readerOf[st.Input]; !ok {
				p.readerOf[st.Input] = ids[id]
			}
		}
	}
}

// PlanBound is the plan's objective and its §2.9 lower bound, for a
// run's records of the heuristic's gap (Bound.Gap). The bound is
// computed on the first call, after planning, so that the engine's plan
// time (Stats.PlanNanos) stays the planner's own.
func (p *Policy) PlanBound() (objective float64, b Bound, err error) {
	if p.plan == nil {
		return 0, Bound{}, fmt.Errorf("corral: no plan to bound")
	}
	b, err = p.plan.ComputeBound()
	return p.plan.Objective, b, err
}

// Figures implements engine.FigureReporter: the plan's objective (the
// makespan of a batch plan, the average completion time of an online
// one, in seconds of the planner's response functions), its §2.9 lower
// bound, and the gap between them (objective/bound − 1). Nothing when
// nothing was planned; no bound and no gap when the bound failed.
func (p *Policy) Figures() map[string]float64 {
	if p.plan == nil {
		return nil
	}
	out := map[string]float64{"plan_objective_s": p.plan.Objective}
	if obj, b, err := p.PlanBound(); err == nil {
		out["plan_lower_bound_s"] = b.Value
		out["plan_gap"] = b.Gap(obj)
	}
	return out
}

// modelCluster reads the planner's cluster model off the topology: rack
// 0's hosts stand for every rack (the model is homogeneous, §1.1).
func modelCluster(topo *cluster.Topology, background float64) Cluster {
	r0 := topo.Racks[0]
	h0 := topo.Hosts[r0.Hosts[0]]
	k := len(r0.Hosts)
	v := float64(k) * h0.NICBps / r0.UplinkBps
	return Cluster{
		Racks: len(topo.Racks), MachinesPerRack: k, SlotsPerMachine: h0.Slots, NICBps: h0.NICBps,
		Oversubscription: math.Max(v, 1), BackgroundShare: background,
	}
}

// plannerJobs lists the jobs to plan with their engine ids.
func (p *Policy) plannerJobs(ctx *engine.Context, fk *engine.Foreknowledge, c Cluster) ([]Job, []engine.JobID) {
	var predicted map[string]*workload.Prediction
	if fk.Predicted != nil {
		predicted = make(map[string]*workload.Prediction, len(fk.Predicted.Jobs))
		for i := range fk.Predicted.Jobs {
			predicted[fk.Predicted.Jobs[i].ID] = &fk.Predicted.Jobs[i]
		}
	}
	disk := storageOf(ctx)
	copies := map[int]storage{} // by output replicas
	var jobs []Job
	var ids []engine.JobID
	for i := range fk.Workload.Jobs {
		wj := &fk.Workload.Jobs[i]
		if p.cfg.AdHocQueue != "" && wj.Queue == p.cfg.AdHocQueue {
			continue
		}
		stages := sizes(wj, fk.Datasets)
		actual := actualJob(wj, stages)
		j, scale := actual, 1.0
		if predicted != nil {
			pr, ok := predicted[wj.ID]
			if !ok {
				continue // ad hoc
			}
			j = Job{ID: wj.ID, Arrival: pr.Arrival, InputBytes: float64(pr.InputBytes), ShuffleBytes: float64(pr.ShuffleBytes),
				OutputBytes: float64(pr.OutputBytes), MapTasks: pr.MapTasks, ReduceTasks: pr.ReduceTasks}
			if actual.InputBytes > 0 {
				scale = j.InputBytes / actual.InputBytes
			}
		}
		jd := disk
		if p.cfg.OutputWrite == "replicas" {
			n := outputReplicas(wj)
			if _, ok := copies[n]; !ok {
				copies[n] = disk.withCopies(ctx, c, n)
			}
			jd = copies[n]
		}
		j.MapRate, j.ReduceRate = p.rates(wj, j, jd)
		if !isMapReduce(stages) {
			j.Stages = p.dagStages(stages, scale, jd)
		}
		jobs = append(jobs, j)
		ids = append(ids, engine.JobID(i))
	}
	return jobs, ids
}

// storage is what a task's disk time depends on (rack 0's first host
// stands for every host, as in modelCluster): the read rate of the tier
// inputs are placed on (HDD, or the slowest), the write rates of the
// tiers the run puts map outputs and job outputs on, and the slots that
// share them.
type storage struct {
	inputRead, interWrite, outputWrite float64
	slots                              float64
	// outputNet is the network's seconds per byte of a job output
	// written by one task while the machine's slots all write: its
	// copies through the writer's NIC and through the machine's share of
	// the rack uplink (withCopies); 0 counts the local copy only.
	outputNet float64
}

// copyDraws is how many placements withCopies averages over: HDFS's
// rule draws its remote rack and hosts at random.
const copyDraws = 64

// withCopies is st for a job whose outputs have n replicas, placed and
// sent as the run writes outputs (engine.Context.OutputCopies, from rack
// 0's first host, which stands for every host): [INTERPRETATION] B_M
// and B_R are measured on earlier runs (§2.4.3), whose task times
// include the output's replicas, since the writer waits for every copy
// (HDFS's close); under HDFS's rule one copy crosses racks through the
// pipeline, two without it. A machine's s tasks share its NIC, B, and
// its share of the uplink, B/V, with the background the planner assumes
// (the core term's V, §2.4.2).
func (st storage) withCopies(ctx *engine.Context, c Cluster, n int) storage {
	// a fixed seed: the planner's inputs must not depend on the run's
	// draws, nor take any of them
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	out, cross := ctx.OutputCopies(rng, ctx.Topology().Racks[0].Hosts[0], n, copyDraws)
	v := c.Oversubscription / (1 - c.BackgroundShare)
	st.outputNet = math.Max(out/c.NICBps, cross/(c.NICBps/v))
	return st
}

// outputReplicas is the replication of a job's output, its final
// stages' (the most of them).
func outputReplicas(wj *workload.Job) int {
	n := 1
	for _, st := range wj.Stages {
		n = max(n, st.OutputReplicas)
	}
	return n
}

func storageOf(ctx *engine.Context) storage {
	topo := ctx.Topology()
	id := topo.Racks[0].Hosts[0]
	h := &topo.Hosts[id]
	rate := func(k cluster.TierKind, read bool) float64 {
		t, _ := h.Tier(k)
		if read {
			return t.ReadBps
		}
		return t.WriteBps
	}
	return storage{
		inputRead:   rate(inputTier(h), true),
		interWrite:  rate(ctx.IntermediateTier(id), false),
		outputWrite: rate(ctx.OutputTier(id), false),
		slots:       float64(max(h.Slots, 1)),
	}
}

// seconds is the disk time of one task that reads in bytes from the
// input tier and writes out bytes, to the output tier if it is a final
// stage's, else to the intermediate tier: [INTERPRETATION] §2.4.4 wants
// B_M and B_R "measured at the typical concurrency s", so the s tasks of
// a machine share each tier's rate. A final output's copies go on
// together (HDFS's pipeline), so its write takes the longer of the local
// disk's time and the network's.
func (st storage) seconds(in, out float64, final bool) float64 {
	write := out / st.interWrite
	if final {
		write = math.Max(out/st.outputWrite, out*st.outputNet)
	}
	return st.slots * (in/st.inputRead + write)
}

// rates are B_M and B_R (§2.4.3), from the args or, as "earlier runs of
// the same job" would measure them, from the job's own stages:
// [INTERPRETATION] a map task reads its block from disk, computes on it
// and writes its output (to intermediate storage, or as the job's output
// in a map-only job); a reduce task computes on its shuffle input then
// writes its output, and B_R is output bytes per second of that
// (§2.4.2). Disk rates are shared by the machine's s slots (§2.4.4).
func (p *Policy) rates(wj *workload.Job, j Job, disk storage) (bm, br float64) {
	var mapNs, redNs float64
	for _, st := range wj.Stages {
		if st.Kind == workload.Map && mapNs == 0 {
			mapNs = st.ComputeNsPerByte
		} else if st.Kind != workload.Map && redNs == 0 {
			redNs = st.ComputeNsPerByte
		}
	}
	bm = p.cfg.MapRate
	if bm == 0 {
		mapOut, final := j.ShuffleBytes, false
		if j.ReduceTasks == 0 {
			mapOut, final = j.OutputBytes, true
		}
		perByte := mapNs*1e-9 + disk.seconds(1, 0, false)
		if j.InputBytes > 0 {
			perByte += disk.seconds(0, mapOut/j.InputBytes, final)
		}
		bm = 1 / perByte
	}
	br = p.cfg.ReduceRate
	if br == 0 {
		br = 1 / disk.seconds(0, 1, true)
		if j.OutputBytes > 0 {
			br = j.OutputBytes / (j.ShuffleBytes*redNs*1e-9 + disk.seconds(0, j.OutputBytes, true))
		}
	}
	return bm, br
}

// stageSizes is one stage of a workload job as it will run: tasks, bytes
// in (read or shuffled) and out, and the stages it follows by index.
type stageSizes struct {
	kind    workload.StageKind
	tasks   int
	in, out float64
	ns      float64
	after   []int
	final   bool
}

// sizes walks a job's stages in order (the workload lists them
// upstream first).
func sizes(wj *workload.Job, ds *workload.Datasets) []stageSizes {
	index := map[string]int{}
	out := make([]stageSizes, len(wj.Stages))
	for i, st := range wj.Stages {
		index[st.Name] = i
		s := stageSizes{kind: st.Kind, tasks: st.Tasks, ns: st.ComputeNsPerByte, final: true}
		if st.Kind == workload.Map {
			if d := findDataset(ds, st.Input); d != nil {
				s.in = float64(d.TotalBytes())
				if s.tasks == 0 {
					s.tasks = len(d.BlockSizes())
				}
			}
		}
		for _, a := range st.After {
			if u, ok := index[a]; ok {
				s.after = append(s.after, u)
				s.in += out[u].out
				out[u].final = false
			}
		}
		s.out = s.in * st.Selectivity
		if st.OutputBytes > 0 {
			s.out = float64(st.OutputBytes)
		}
		out[i] = s
	}
	return out
}

// actualJob is a job's sizes as the workload will run it: the planner's
// input when the run has no predictions (perfect foreknowledge). Map
// stages make D^I and D^S; the other stages' input is the shuffle, and
// the stages nothing follows make D^O.
func actualJob(wj *workload.Job, stages []stageSizes) Job {
	j := Job{ID: wj.ID, Arrival: wj.Arrival}
	for _, s := range stages {
		if s.kind == workload.Map {
			j.InputBytes += s.in
			j.MapTasks += s.tasks
			if s.final {
				j.OutputBytes += s.out // a map-only job's output
			}
			continue
		}
		j.ShuffleBytes += s.in
		j.ReduceTasks += s.tasks
		if s.final {
			j.OutputBytes += s.out
		}
	}
	if j.ReduceTasks == 0 {
		j.ShuffleBytes = 0 // a map-only job writes its output directly
	}
	return j
}

// isMapReduce reports whether a job is one map stage, optionally followed
// by one stage that shuffles its output: §2.4.2's model fits it.
func isMapReduce(stages []stageSizes) bool {
	switch len(stages) {
	case 1:
		return stages[0].kind == workload.Map
	case 2:
		return stages[0].kind == workload.Map && stages[1].kind != workload.Map && slices.Equal(stages[1].after, []int{0})
	}
	return false
}

// dagStages is §2.4.5's stage model of a job, its bytes scaled by scale
// (the predicted over the actual input): [INTERPRETATION] a map task
// reads and computes its block, another task computes on what it
// fetches, and every task writes its output (a final stage's as the
// job's output), with the disk shared as in rates.
func (p *Policy) dagStages(stages []stageSizes, scale float64, disk storage) []Stage {
	out := make([]Stage, len(stages))
	for i, s := range stages {
		st := Stage{Tasks: s.tasks, After: s.after}
		if s.tasks > 0 {
			in, o := s.in*scale/float64(s.tasks), s.out*scale/float64(s.tasks)
			switch {
			case s.kind == workload.Map && p.cfg.MapRate > 0:
				st.TaskSeconds = in / p.cfg.MapRate
			case s.kind == workload.Map:
				st.TaskSeconds = in*s.ns*1e-9 + disk.seconds(in, o, s.final)
			case p.cfg.ReduceRate > 0:
				st.TaskSeconds = o / p.cfg.ReduceRate
			default:
				st.TaskSeconds = in*s.ns*1e-9 + disk.seconds(0, o, s.final)
			}
		}
		if s.kind != workload.Map {
			st.InBytes = s.in * scale
		}
		out[i] = st
	}
	return out
}

func findDataset(ds *workload.Datasets, name string) *workload.Dataset {
	if ds == nil {
		return nil
	}
	for i := range ds.Datasets {
		if ds.Datasets[i].Name == name {
			return &ds.Datasets[i]
		}
	}
	return nil
}

// planOf returns the plan of job j (zero for a job the plan has not seen).
func (p *Policy) planOf(j engine.JobID) *jobPlan {
	if int(j) < len(p.jobs) {
		return &p.jobs[j]
	}
	return &jobPlan{}
}

// confined reports whether job j runs only on its planned racks.
func (p *Policy) confined(j engine.JobID) bool {
	jp := p.planOf(j)
	return jp.planned && !jp.fallback
}

// OfferHost implements engine.HostScheduler: Algorithm S (§2.7). A free
// slot goes to the planned jobs of the host's rack by priority, then to
// ad hoc and fallback jobs under the capacity scheduler; else it idles.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if n := len(ctx.Jobs()); len(p.skips) < n {
		p.skips = append(p.skips, make([]int, n-len(p.skips))...)
		p.redSkips = append(p.redSkips, make([]int, n-len(p.redSkips))...)
	}
	rack := ctx.Topology().RackOf(h)
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.assignPlanned(ctx, h, rack) {
			break
		}
	}
	if ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		p.adhoc.OfferHost(ctx, h) // S5
	}
}

// assignPlanned is S1–S4 for one slot of host h.
func (p *Policy) assignPlanned(ctx *engine.Context, h cluster.HostID, rack cluster.RackID) bool {
	p.buf = p.buf[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 && p.confined(j.ID) && p.jobs[j.ID].racks[rack] {
			p.buf = append(p.buf, j)
		}
	}
	sort.SliceStable(p.buf, func(a, b int) bool { return p.jobs[p.buf[a].ID].priority < p.jobs[p.buf[b].ID].priority })
	delay := p.cfg.NodeDelay
	if delay == 0 {
		delay = len(ctx.Topology().Racks[rack].Hosts)
	}
	for _, j := range p.buf {
		if ctx.PendingMaps(j.ID) > 0 {
			// delay scheduling: a node-local map, or skip the job until
			// it has waited D_node opportunities
			if t, _, ok := ctx.PickMap(j.ID, h, engine.NodeLocal); ok {
				p.skips[j.ID] = 0
				return p.launch(ctx, t, h)
			}
			if p.skips[j.ID] < delay {
				p.skips[j.ID]++
				continue // S3: skip j, try the next job (its reducers too wait)
			}
			if t, _, ok := ctx.PickMap(j.ID, h, engine.Remote); ok {
				return p.launch(ctx, t, h)
			}
		}
		if t, ok := ctx.NextPendingShuffle(j.ID); ok && ctx.CanRun(t) {
			if p.cfg.ReducerDelay {
				if p.redSkips[j.ID] < delay {
					p.redSkips[j.ID]++
					continue
				}
				p.redSkips[j.ID] = 0
			}
			return p.launch(ctx, t, h)
		}
	}
	return false
}

func (p *Policy) launch(ctx *engine.Context, t engine.TaskRef, h cluster.HostID) bool {
	_, err := ctx.Launch(t, h, engine.LaunchOptions{})
	return err == nil
}

// HostLost re-checks every planned job's racks: a job with more than
// FailThreshold of R_j's machines down, or with a whole rack of R_j down,
// falls back (§2.7 Failures).
func (p *Policy) HostLost(ctx *engine.Context, _ cluster.HostID) {
	topo := ctx.Topology()
	for i := range p.jobs {
		jp := &p.jobs[i]
		if !jp.planned || jp.fallback {
			continue
		}
		var down, all int
		wholeRack := false
		for _, r := range jp.rackList {
			rackDown := 0
			for _, h := range topo.Racks[r].Hosts {
				all++
				if !ctx.Alive(h) {
					down++
					rackDown++
				}
			}
			wholeRack = wholeRack || rackDown == len(topo.Racks[r].Hosts)
		}
		jp.fallback = float64(down) > p.cfg.FailThreshold*float64(all) || wholeRack
	}
}

// PlaceDataset implements engine.DatasetPlacer: Algorithm U (§2.6) for
// the input of a planned job, HDFS's default for the rest.
func (p *Policy) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	if len(p.rackBytes) != len(t.Racks) {
		p.rackBytes = make([]int64, len(t.Racks))
		p.firstBytes = make([]int64, len(t.Racks))
	}
	j, ok := p.readerOf[d.Name]
	if !ok || p.cfg.Placement == "hdfs" || !p.confined(j) {
		return p.placeHDFS(t, rng, d, sizes)
	}
	n := d.Replication
	if n == 0 {
		n = 3
	}
	if n < 0 {
		return nil, fmt.Errorf("replication %d is negative", n)
	}
	n = min(n, len(t.Hosts))
	racks := p.jobs[j].rackList
	out := make([][]workload.Replica, len(sizes))
	for b, size := range sizes {
		rack1 := racks[rng.IntN(len(racks))] // U2
		hosts := []cluster.HostID{pick(t.Racks[rack1].Hosts, rng, nil)}
		if n >= 2 && len(t.Racks) > 1 {
			rack2 := p.secondRack(t, rng, rack1) // U4
			for len(hosts) < 3 && len(hosts) < n {
				h := pick(t.Racks[rack2].Hosts, rng, hosts)
				if h < 0 {
					break // a one-host rack: the third goes anywhere below
				}
				hosts = append(hosts, h)
			}
		}
		all := make([]cluster.HostID, len(t.Hosts))
		for i := range all {
			all[i] = cluster.HostID(i)
		}
		for len(hosts) < n {
			hosts = append(hosts, pick(all, rng, hosts))
		}
		reps := make([]workload.Replica, len(hosts))
		for i, h := range hosts {
			reps[i] = workload.Replica{Host: h, Tier: inputTier(&t.Hosts[h])}
			p.count(t.RackOf(h), size, i == 0)
		}
		out[b] = reps
	}
	return out, nil
}

// placeHDFS is U6–U7: HDFS's default placement, counted per rack.
func (p *Policy) placeHDFS(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	out, err := (&hdfs.Placer{}).PlaceDataset(t, rng, d, sizes)
	if err != nil {
		return nil, err
	}
	for b, reps := range out {
		for i, r := range reps {
			p.count(t.RackOf(r.Host), sizes[b], i == 0)
		}
	}
	return out, nil
}

// secondRack is U4: the least-loaded rack other than rack1 (stored
// bytes; ties seeded random, or to the lower id), or §3.1's uniform
// random other rack.
func (p *Policy) secondRack(t *cluster.Topology, rng *rand.Rand, rack1 cluster.RackID) cluster.RackID {
	if p.cfg.SecondRack == "random" {
		r := cluster.RackID(rng.IntN(len(t.Racks) - 1))
		if r >= rack1 {
			r++
		}
		return r
	}
	best, ties := cluster.RackID(-1), 0
	for r := range t.Racks {
		id := cluster.RackID(r)
		switch {
		case id == rack1:
		case best < 0 || p.rackBytes[r] < p.rackBytes[best]:
			best, ties = id, 1
		case p.rackBytes[r] == p.rackBytes[best]:
			// one draw per tie, so each tied rack is kept with
			// probability 1/ties (reservoir sampling)
			ties++
			if p.cfg.SecondRackTies == "random" && rng.IntN(ties) == 0 {
				best = id
			}
		}
	}
	return best
}

// pick draws a host of list not in used, or −1 if there is none.
func pick(list []cluster.HostID, rng *rand.Rand, used []cluster.HostID) cluster.HostID {
	free := 0
	for _, h := range list {
		if !slices.Contains(used, h) {
			free++
		}
	}
	if free == 0 {
		return -1
	}
	k := rng.IntN(free)
	for _, h := range list {
		if !slices.Contains(used, h) {
			if k == 0 {
				return h
			}
			k--
		}
	}
	return -1
}

// inputTier is where an input replica is stored: HDD, as HDFS's default
// placer does, or the host's slowest tier.
func inputTier(h *cluster.Host) cluster.TierKind {
	if _, ok := h.Tier(cluster.HDD); ok {
		return cluster.HDD
	}
	slowest := h.Tiers[0].Kind
	for _, t := range h.Tiers {
		slowest = max(slowest, t.Kind)
	}
	return slowest
}

func (p *Policy) count(r cluster.RackID, bytes int64, first bool) {
	p.rackBytes[r] += bytes
	if first {
		p.firstBytes[r] += bytes
	}
}

// RackInputBytes is the input bytes stored per rack, every replica and
// first replicas only (§2.8).
func (p *Policy) RackInputBytes() (all, first []int64) {
	return slices.Clone(p.rackBytes), slices.Clone(p.firstBytes)
}

// Result is the plan that the run uses, nil before Plan or when planning
// failed (PlanError says why).
func (p *Policy) Result() *Plan { return p.plan }

// PlanError is why planning failed, if it did.
func (p *Policy) PlanError() error { return p.planErr }
