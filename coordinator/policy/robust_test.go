package policy_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// The robustness test runs every deciding policy, with its default args
// and the variants the campaigns and each arg's documented values give,
// on random small but odd workloads and clusters (one host, split slot
// pools, hosts with one small tier, empty and one-byte inputs, more
// reducers than slots, more replicas than hosts, joins, job DAGs, all
// jobs at once) in the simulator. Each run must finish every job, or
// end with the simulator's stall or time-bound error naming why; it must
// not panic, loop, or have its actions rejected.

// robustVariants is each policy with its default args and its variants.
func robustVariants() []policy.Spec {
	type args = map[string]any
	hadoop27 := args{"node_locality_delay": 40, "off_switch_locations": "requested", "one_off_switch_per_heartbeat": true}
	byPolicy := map[string][]args{
		"fifo": {{"network_priorities": "job_fifo"}, {"network_priorities": "job_fifo", "classes": 1}},
		"fair": {{"slow_start": 1}, {"yarn_am": true}, {"network_priorities": "job_fifo"}, {"node_threshold": 0, "rack_threshold": 0}},
		"capacity": {{"one_off_switch_per_heartbeat": true}, hadoop27, {"yarn_am": true}, {"node_locality_delay": 1},
			{"off_switch_locations": "requested"}},
		"shufflewatcher": {{"node_delay": 1, "rack_delay": 2},
			{"map_racks": "all", "reduce_racks": "largest", "map_hosts": "output", "reduce_hosts": "output", "network": "host", "threshold": 0.9, "order": "fair", "pick": "job"},
			{"map_racks": "all", "reduce_racks": "largest", "map_hosts": "output", "reduce_hosts": "output", "network": "host", "threshold": 0.9, "order": "fifo", "pick": "job", "starvation_s": 0},
			{"map_racks": "single", "reduce_racks": "map_racks", "order": "fifo", "pick": "job", "network": "off", "node_delay": 0.142857, "rack_delay": 0.285714, "starvation_s": 0},
			{"network": "global"}, {"network_priorities": "job_fifo"}, {"slow_start": 0}},
		"dawn": {{"variant": "A"}, {"variant": "B"}, {"balance": 0.5}, {"balance": 1, "balance_all": true}, {"look_ahead": 1},
			{"saturation_scope": "global"}, {"saturation_scope": "aggregate"}, {"epsilon": 2}, {"starve_after": 10}, {"dependency_unaware": true}},
		"corral": {{"one_off_switch_per_heartbeat": true}, {"placement": "hdfs", "one_off_switch_per_heartbeat": true},
			{"reducer_delay": true, "one_off_switch_per_heartbeat": true}, {"shuffle_wave_multiplier": false},
			{"objective": "batch"}, {"objective": "online"}, {"output_write": "local"}, {"second_rack": "random"},
			{"second_rack_ties": "lowest"}, {"early_stop": true}, {"penalty": false}, {"node_delay": 1}, {"slow_start": 0}},
		"pushbox": {{"global_priority": true}, {"random_select": true}, {"no_not_hinder": true}, {"no_wildcard": true},
			{"rack_local": "yes"}, {"rack_local": "no"}, {"keep_idle_jobs": true}, {"coflow_size": "remaining"},
			{"min_coflow": "others"}, {"fifo_head_wildcard": true}, {"m": 1}, {"yield_on_skip_bypasses_not_hinder": true},
			{"error_factor": 2}, {"gp_concurrency": false, "global_priority": true}},
		"neat":         {{"network": "fair"}, {"network": "job_fifo"}, {"order": "fifo"}, {"classes": 1}},
		"trident":      {{"offers": "spark"}, {"one_off_switch_per_heartbeat": true}, {"pruning": "off"}, {"order": "fair"}, {"mode": "yarn"}, {"delay": "3s"}},
		"sparkdefault": {{"order": "fair"}, {"locality_wait": "0s"}},
		"hscheduler":   {{"locality_wait": "3s", "offers": "spark"}, hadoop27, {"order": "fair"}},
		"quartet":      {{"offers": "spark"}, hadoop27, {"order": "fair"}, {"delay": "0s"}},
		"hadoop":       {{"reduce_placement": "random"}, {"reduce_placement": "hadoop"}, {"slow_start": 1}, {"slow_start": 0}},
		"delay":        {{"rack_locality_delay": 0}, {"reduce_placement": "random"}, {"reduce_placement": "hadoop"}},
		"even":         {{"even": "locality_aware"}, {"reduce_placement": "random"}, {"reduce_placement": "hadoop"}},
		"kmn":          {{"selection": "exhaustive"}, {"ratio": 0}, {"ratio": 1}, {"reduce_placement": "random"}, {"reduce_placement": "hadoop"}},
		"shadow":       {{"accept_ties": true}, {"shuffle_model": "up_and_down"}, {"kill_local_original": false}, {"reduce_placement": "random"}, {"reduce_placement": "hadoop"}, {"deterministic_pick": true}, {"theta": 0}},
	}
	var out []policy.Spec
	for _, name := range policy.Deciding() {
		out = append(out, policy.Spec{Name: name})
		for i, a := range byPolicy[name] {
			out = append(out, policy.Spec{Name: name, Label: fmt.Sprintf("%s-v%d", name, i+1), Args: a})
		}
	}
	return out
}

func specText(s policy.Spec) string {
	if len(s.Args) == 0 {
		return s.Name
	}
	keys := make([]string, 0, len(s.Args))
	for k := range s.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %v", k, s.Args[k]))
	}
	return fmt.Sprintf("%s {%s}", s.Name, strings.Join(parts, ", "))
}

// robustCase is one cluster, workload and run configuration.
type robustCase struct {
	topo      *cluster.Topology
	w         *workload.Workload
	ds        *workload.Datasets
	slowStart float64
	memLRU    bool
	queues    []engine.Queue
}

func robustTiers(rng *rand.Rand, mode int) []cluster.Tier {
	def := cluster.DefaultTiers()
	if mode == 0 {
		return def
	}
	caps := []int64{0, 1 << 20, 64 << 20, 1 << 30}
	var out []cluster.Tier
	for len(out) == 0 {
		for _, tr := range def {
			if mode == 2 || rng.IntN(2) == 0 {
				tr.CapacityBytes = caps[rng.IntN(len(caps))]
				out = append(out, tr)
			}
		}
		if mode == 2 { // a single tier of a random kind
			out = []cluster.Tier{out[rng.IntN(len(out))]}
		}
	}
	return out
}

func robustTopology(rng *rand.Rand) *cluster.Topology {
	t := &cluster.Topology{}
	tierMode, split := rng.IntN(3), rng.IntN(3)
	for r := range 1 + rng.IntN(3) {
		rack := cluster.Rack{ID: cluster.RackID(r), Name: fmt.Sprintf("r%d", r)}
		nh := 1 + rng.IntN(3)
		for k := range nh {
			h := cluster.Host{ID: cluster.HostID(len(t.Hosts)), Name: fmt.Sprintf("r%dh%d", r, k), Rack: rack.ID,
				Slots: 1 + rng.IntN(4), NICBps: 125e6, Tiers: robustTiers(rng, tierMode)}
			if split == 1 || (split == 2 && rng.IntN(2) == 0) {
				h.ReduceSlots = 1 + rng.IntN(2)
			}
			rack.Hosts = append(rack.Hosts, h.ID)
			t.Hosts = append(t.Hosts, h)
		}
		rack.UplinkBps = 125e6 * float64(nh) / (1 + rng.Float64()*4)
		rack.DownlinkBps = rack.UplinkBps
		if rng.IntN(4) == 0 {
			rack.DownlinkBps = 125e6 * float64(nh) / (1 + rng.Float64()*4)
		}
		t.Racks = append(t.Racks, rack)
	}
	if rng.IntN(5) == 0 {
		t.CoreBps = 125e6 * (0.5 + rng.Float64()*2)
	}
	return t
}

const robustMiB = 1 << 20

// robustSize is an input's size and block size: empty, a byte, one
// block, many small blocks, or a huge one (within what a short run can
// still move).
func robustSize(rng *rand.Rand) (size, block int64) {
	switch rng.IntN(8) {
	case 0:
		return 0, 64 * robustMiB
	case 1:
		return 1, 64 * robustMiB
	case 2:
		return int64(1 + rng.IntN(64*robustMiB)), 64 * robustMiB
	case 3:
		return int64(1+rng.IntN(40)) * robustMiB, robustMiB // many blocks
	case 4:
		return int64(1+rng.IntN(8)) << 30, 1 << 30
	case 5:
		return int64(1+rng.IntN(4)) * 100e9, 100e9 // huge blocks
	}
	return int64(rng.IntN(600)) * robustMiB, 64 * robustMiB
}

func robustDataset(rng *rand.Rand, t *cluster.Topology, name string) workload.Dataset {
	size, block := robustSize(rng)
	if rng.IntN(3) > 0 {
		return workload.Dataset{Name: name, Size: size, BlockSize: block, Replication: rng.IntN(5)}
	}
	// placed: blocks of random sizes (0 included) on random hosts' tiers
	d := workload.Dataset{Name: name}
	nb := 1 + rng.IntN(6)
	for range nb {
		b := workload.Block{Size: size / int64(nb)}
		if rng.IntN(6) == 0 {
			b.Size = 0
		}
		hosts := rng.Perm(len(t.Hosts))[:1+rng.IntN(min(3, len(t.Hosts)))]
		for _, h := range hosts {
			tiers := t.Hosts[h].Tiers
			b.Replicas = append(b.Replicas, workload.Replica{Host: cluster.HostID(h), Tier: tiers[rng.IntN(len(tiers))].Kind})
		}
		d.Blocks = append(d.Blocks, b)
	}
	return d
}

func robustMapStage(rng *rand.Rand, name, input string) workload.Stage {
	s := workload.Stage{Name: name, Kind: workload.Map, Input: input}
	s.Selectivity = []float64{0, 1e-6, rng.Float64() * 2, 3}[rng.IntN(4)]
	if rng.IntN(6) == 0 {
		s.OutputBytes = int64(1 + rng.IntN(100*robustMiB))
	}
	s.ComputeNsPerByte = []float64{0, rng.Float64() * 5, 20}[rng.IntN(3)]
	if rng.IntN(3) == 0 {
		s.Tasks = rng.IntN(4) // used only when the input has no block
	}
	return s
}

func robustShuffleStage(rng *rand.Rand, name string, kind workload.StageKind, after ...string) workload.Stage {
	s := workload.Stage{Name: name, Kind: kind, After: after}
	s.Tasks = []int{1, 1 + rng.IntN(4), 4 + rng.IntN(12)}[rng.IntN(3)]
	switch rng.IntN(4) {
	case 0:
		s.Skew = rng.Float64() * 3
	case 1:
		for range s.Tasks {
			s.Shares = append(s.Shares, []float64{1e-9, 1, 1000}[rng.IntN(3)])
		}
	}
	s.Selectivity = []float64{0, 0.5, 1, 2}[rng.IntN(4)]
	if rng.IntN(5) == 0 {
		s.OutputBytes = int64(1 + rng.IntN(100*robustMiB))
	}
	s.ComputeNsPerByte = []float64{0, rng.Float64() * 3}[rng.IntN(2)]
	s.OutputReplicas = rng.IntN(5)
	return s
}

// robustRandomCase builds a valid case from a seed.
func robustRandomCase(seed uint64) *robustCase {
	rng := rand.New(rand.NewPCG(seed, 30))
	c := &robustCase{topo: robustTopology(rng), w: &workload.Workload{}, ds: &workload.Datasets{}}
	arrivals := rng.IntN(3)
	nj := 1 + rng.IntN(6)
	for i := range nj {
		id := fmt.Sprintf("j%d", i)
		j := workload.Job{ID: id, Queue: []string{"", "a", "b", "adhoc"}[rng.IntN(4)]}
		switch arrivals {
		case 1:
			j.Arrival = float64(rng.IntN(60))
		case 2:
			j.Arrival = 5
		}
		input := func(suffix string) string {
			if i > 0 && rng.IntN(3) == 0 {
				p := fmt.Sprintf("j%d", rng.IntN(i))
				if !strings.Contains(strings.Join(j.Parents, ","), p) {
					j.Parents = append(j.Parents, p)
				}
				return workload.ParentOutputPrefix + p
			}
			name := "in-" + id + suffix
			c.ds.Datasets = append(c.ds.Datasets, robustDataset(rng, c.topo, name))
			return name
		}
		j.Stages = append(j.Stages, robustMapStage(rng, "map", input("")))
		switch rng.IntN(6) {
		case 1:
			j.Stages = append(j.Stages, robustShuffleStage(rng, "reduce", workload.Reduce, "map"))
		case 2:
			j.Stages = append(j.Stages, robustShuffleStage(rng, "join", workload.Generic, "map"),
				robustShuffleStage(rng, "agg", workload.Reduce, "join", "map"))
		case 3: // a join of two inputs
			j.Stages = append(j.Stages, robustMapStage(rng, "map2", input("-b")),
				robustShuffleStage(rng, "reduce", workload.Reduce, "map", "map2"))
		case 4:
			j.Stages = append(j.Stages, robustShuffleStage(rng, "r1", workload.Reduce, "map"),
				robustShuffleStage(rng, "r2", workload.Reduce, "r1"))
		case 5: // two final stages
			j.Stages = append(j.Stages, robustShuffleStage(rng, "r1", workload.Reduce, "map"),
				robustShuffleStage(rng, "g1", workload.Generic, "map"))
		}
		if n := len(j.Stages); j.Stages[n-1].Kind == workload.Map && rng.IntN(2) == 0 {
			j.Stages[n-1].OutputReplicas = rng.IntN(5)
		}
		if i > 0 && rng.IntN(5) == 0 { // a parent whose output the job does not read
			p := fmt.Sprintf("j%d", rng.IntN(i))
			if !strings.Contains(strings.Join(j.Parents, ","), p) {
				j.Parents = append(j.Parents, p)
			}
		}
		c.w.Jobs = append(c.w.Jobs, j)
	}
	c.slowStart = []float64{0, 0, 1, 0.01}[rng.IntN(4)]
	c.memLRU = rng.IntN(4) == 0
	if rng.IntN(4) == 0 {
		c.queues = []engine.Queue{{Name: "a", Weight: 2, Capacity: 0.6}, {Name: "b", Weight: 1, Capacity: 0.4, MaxCapacity: 0.5}}
	}
	return c
}

func (c *robustCase) validate() error {
	if err := c.topo.Validate(); err != nil {
		return err
	}
	if err := c.ds.Validate(c.topo); err != nil {
		return err
	}
	if err := c.w.CheckRunnable(); err != nil {
		return err
	}
	return c.w.Validate(c.ds)
}

// yaml is the case as the files a campaign reads.
func (c *robustCase) yaml() string {
	var b bytes.Buffer
	b.WriteString("# topology\n")
	if err := cluster.WriteTopology(&b, c.topo); err != nil {
		fmt.Fprintf(&b, "(%v)\n", err)
	}
	b.WriteString("# workload\n")
	if err := workload.WriteWorkload(&b, c.w); err != nil {
		fmt.Fprintf(&b, "(%v)\n", err)
	}
	b.WriteString("# datasets\n")
	if err := workload.WriteDatasets(&b, c.ds, c.topo); err != nil {
		fmt.Fprintf(&b, "(%v)\n", err)
	}
	fmt.Fprintf(&b, "# slow_start %g, memory_lru %v, queues %v\n", c.slowStart, c.memLRU, c.queues)
	return b.String()
}

// robustOutcome is how a run ended: Kind "" is a good end (every job
// finished, or the simulator's time bound or stall watchdog stopped it
// with its reason).
type robustOutcome struct {
	Kind     string // "", "panic", "hang", "error", "stall", "failed-job", "rejected"
	Detail   string
	Rejected int64
	Bounded  bool // stopped at the time bound: a slow run, not a fault
}

func runRobust(c *robustCase, spec policy.Spec, seed uint64, timeout time.Duration) robustOutcome {
	done := make(chan robustOutcome, 1)
	cancel := make(chan struct{})
	go func() {
		var out robustOutcome
		defer func() {
			if r := recover(); r != nil {
				out = robustOutcome{Kind: "panic", Detail: fmt.Sprintf("%v\n%s", r, debug.Stack())}
			}
			done <- out
		}()
		p, err := policy.Build(spec)
		if err != nil {
			out = robustOutcome{Kind: "error", Detail: "build: " + err.Error()}
			return
		}
		eng, err := engine.New(engine.Config{Seed: seed, SlowStart: c.slowStart, MemoryLRU: c.memLRU, Queues: c.queues}, c.topo, c.w, c.ds, p)
		if err != nil {
			out = robustOutcome{Kind: "error", Detail: "engine: " + err.Error()}
			return
		}
		s := sim.New(eng, sim.Options{Cancel: cancel})
		res, err := s.Run()
		out.Rejected = eng.Stats.Rejected
		switch {
		case err != nil:
			out.Kind, out.Detail = "error", err.Error()
		case res.Stalled && strings.Contains(res.StallReason, "bound derived"):
			out.Bounded, out.Detail = true, res.StallReason
		case res.Stalled:
			out.Kind, out.Detail = "stall", res.StallReason
		default:
			for _, j := range eng.Jobs() {
				if j.State != engine.JobSucceeded {
					out.Kind = "failed-job"
					out.Detail += fmt.Sprintf("job %s %s (%d/%d tasks); ", j.Spec.ID, j.State, j.TasksDone, j.Tasks)
				}
			}
		}
		if out.Kind == "" && out.Rejected > 0 {
			out.Kind, out.Detail = "rejected", fmt.Sprintf("%d actions rejected: %v", out.Rejected, eng.Stats.RejectedByReason)
		}
	}()
	select {
	case out := <-done:
		return out
	case <-time.After(timeout):
	}
	close(cancel)
	select {
	case out := <-done:
		if out.Kind == "" || out.Kind == "error" {
			out.Kind, out.Detail = "hang", fmt.Sprintf("over %v of wall time (stopped by Cancel): %s", timeout, out.Detail)
		}
		return out
	case <-time.After(5 * time.Second):
		return robustOutcome{Kind: "hang", Detail: fmt.Sprintf("over %v of wall time, and Cancel did not stop it: a hook loops", timeout)}
	}
}

// shrinks lists smaller variants of a case, each valid or not (the
// caller validates).
func (c *robustCase) shrinks() []*robustCase {
	var out []*robustCase
	clone := func() *robustCase { return c.clone() }
	// drop a job no other job names as a parent
	for i := range c.w.Jobs {
		id := c.w.Jobs[i].ID
		named := false
		for _, j := range c.w.Jobs {
			for _, p := range j.Parents {
				named = named || p == id
			}
		}
		if !named && len(c.w.Jobs) > 1 {
			d := clone()
			d.w.Jobs = append(d.w.Jobs[:i:i], d.w.Jobs[i+1:]...)
			d.dropUnusedDatasets()
			out = append(out, d)
		}
	}
	for i := range c.w.Jobs {
		j := &c.w.Jobs[i]
		if n := len(j.Stages); n > 1 {
			d := clone()
			d.w.Jobs[i].Stages = d.w.Jobs[i].Stages[:n-1]
			d.dropUnusedDatasets()
			out = append(out, d)
		}
		for p := range j.Parents {
			d := clone()
			d.w.Jobs[i].Parents = append(d.w.Jobs[i].Parents[:p:p], d.w.Jobs[i].Parents[p+1:]...)
			out = append(out, d)
		}
		if j.Arrival != 0 {
			d := clone()
			d.w.Jobs[i].Arrival = 0
			out = append(out, d)
		}
		if j.Queue != "" {
			d := clone()
			d.w.Jobs[i].Queue = ""
			out = append(out, d)
		}
		for k := range j.Stages {
			s := &j.Stages[k]
			edits := []func(s *workload.Stage){}
			if s.Kind != workload.Map && s.Tasks > 1 {
				edits = append(edits, func(s *workload.Stage) { s.Tasks, s.Shares = 1, nil },
					func(s *workload.Stage) { s.Tasks /= 2; s.Shares = nil })
			}
			if s.Kind == workload.Map && s.Tasks > 0 {
				edits = append(edits, func(s *workload.Stage) { s.Tasks = 0 })
			}
			if s.Skew != 0 || s.Shares != nil {
				edits = append(edits, func(s *workload.Stage) { s.Skew, s.Shares = 0, nil })
			}
			if s.Selectivity != 1 {
				edits = append(edits, func(s *workload.Stage) { s.Selectivity = 1 })
			}
			if s.OutputBytes != 0 {
				edits = append(edits, func(s *workload.Stage) { s.OutputBytes = 0 })
			}
			if s.ComputeNsPerByte != 0 {
				edits = append(edits, func(s *workload.Stage) { s.ComputeNsPerByte = 0 })
			}
			if s.OutputReplicas != 0 {
				edits = append(edits, func(s *workload.Stage) { s.OutputReplicas = 0 })
			}
			for _, e := range edits {
				d := clone()
				e(&d.w.Jobs[i].Stages[k])
				out = append(out, d)
			}
		}
	}
	for i := range c.ds.Datasets {
		ds := &c.ds.Datasets[i]
		if ds.Placed() {
			if len(ds.Blocks) > 1 {
				d := clone()
				d.ds.Datasets[i].Blocks = d.ds.Datasets[i].Blocks[:len(ds.Blocks)-1]
				out = append(out, d)
			}
			for b := range ds.Blocks {
				if len(ds.Blocks[b].Replicas) > 1 {
					d := clone()
					d.ds.Datasets[i].Blocks[b].Replicas = d.ds.Datasets[i].Blocks[b].Replicas[:1]
					out = append(out, d)
				}
			}
			continue
		}
		if ds.Size > 0 {
			d := clone()
			d.ds.Datasets[i].Size = ds.Size / 2
			out = append(out, d)
			if ds.Size > ds.BlockSize {
				d := clone()
				d.ds.Datasets[i].Size = ds.BlockSize
				out = append(out, d)
			}
		}
		if ds.Replication != 1 {
			d := clone()
			d.ds.Datasets[i].Replication = 1
			out = append(out, d)
		}
	}
	// the cluster: a host or a rack fewer, one pool, one slot, the
	// default tiers, no core limit
	for h := range c.topo.Hosts {
		if d := c.withoutHosts(func(x cluster.HostID) bool { return x == cluster.HostID(h) }); d != nil {
			out = append(out, d)
		}
	}
	for r := range c.topo.Racks {
		if d := c.withoutHosts(func(x cluster.HostID) bool { return c.topo.Hosts[x].Rack == cluster.RackID(r) }); d != nil {
			out = append(out, d)
		}
	}
	for h := range c.topo.Hosts {
		host := c.topo.Hosts[h]
		if host.ReduceSlots > 0 {
			d := clone()
			d.topo.Hosts[h].ReduceSlots = 0
			out = append(out, d)
		}
		if host.Slots > 1 {
			d := clone()
			d.topo.Hosts[h].Slots = 1
			out = append(out, d)
		}
	}
	if c.topo.CoreBps != 0 {
		d := clone()
		d.topo.CoreBps = 0
		out = append(out, d)
	}
	if c.slowStart != 0 {
		d := clone()
		d.slowStart = 0
		out = append(out, d)
	}
	if c.memLRU {
		d := clone()
		d.memLRU = false
		out = append(out, d)
	}
	if c.queues != nil {
		d := clone()
		d.queues = nil
		out = append(out, d)
	}
	return out
}

func (c *robustCase) clone() *robustCase {
	d := *c
	t := *c.topo
	t.Racks = append([]cluster.Rack(nil), c.topo.Racks...)
	for i := range t.Racks {
		t.Racks[i].Hosts = append([]cluster.HostID(nil), t.Racks[i].Hosts...)
	}
	t.Hosts = append([]cluster.Host(nil), c.topo.Hosts...)
	for i := range t.Hosts {
		t.Hosts[i].Tiers = append([]cluster.Tier(nil), t.Hosts[i].Tiers...)
	}
	d.topo = &t
	d.w = &workload.Workload{Jobs: append([]workload.Job(nil), c.w.Jobs...)}
	for i := range d.w.Jobs {
		j := &d.w.Jobs[i]
		j.Parents = append([]string(nil), j.Parents...)
		j.Stages = append([]workload.Stage(nil), j.Stages...)
		for k := range j.Stages {
			j.Stages[k].After = append([]string(nil), j.Stages[k].After...)
			j.Stages[k].Shares = append([]float64(nil), j.Stages[k].Shares...)
			if len(j.Stages[k].Shares) == 0 {
				j.Stages[k].Shares = nil
			}
		}
	}
	d.ds = &workload.Datasets{Datasets: append([]workload.Dataset(nil), c.ds.Datasets...)}
	for i := range d.ds.Datasets {
		x := &d.ds.Datasets[i]
		x.Blocks = append([]workload.Block(nil), x.Blocks...)
		for b := range x.Blocks {
			x.Blocks[b].Replicas = append([]workload.Replica(nil), x.Blocks[b].Replicas...)
		}
		if len(x.Blocks) == 0 {
			x.Blocks = nil
		}
	}
	d.queues = append([]engine.Queue(nil), c.queues...)
	if len(d.queues) == 0 {
		d.queues = nil
	}
	return &d
}

func (c *robustCase) dropUnusedDatasets() {
	used := map[string]bool{}
	for _, j := range c.w.Jobs {
		for _, s := range j.Stages {
			used[s.Input] = true
		}
	}
	var keep []workload.Dataset
	for _, d := range c.ds.Datasets {
		if used[d.Name] {
			keep = append(keep, d)
		}
	}
	c.ds.Datasets = keep
}

// withoutHosts is the case on the cluster less the hosts drop says, its
// replicas there moved to the first host left; nil when no host or
// a rack would be left empty in a way that cannot be dropped.
func (c *robustCase) withoutHosts(drop func(cluster.HostID) bool) *robustCase {
	d := c.clone()
	t := &cluster.Topology{CoreBps: c.topo.CoreBps}
	newID := make([]cluster.HostID, len(c.topo.Hosts))
	for _, r := range c.topo.Racks {
		rack := r
		rack.ID = cluster.RackID(len(t.Racks))
		rack.Hosts = nil
		for _, h := range r.Hosts {
			newID[h] = -1
			if drop(h) {
				continue
			}
			host := d.topo.Hosts[h]
			host.ID, host.Rack = cluster.HostID(len(t.Hosts)), rack.ID
			newID[h] = host.ID
			rack.Hosts = append(rack.Hosts, host.ID)
			t.Hosts = append(t.Hosts, host)
		}
		if len(rack.Hosts) > 0 {
			t.Racks = append(t.Racks, rack)
		}
	}
	if len(t.Hosts) == 0 || len(t.Hosts) == len(c.topo.Hosts) {
		return nil
	}
	for i := range d.ds.Datasets {
		x := &d.ds.Datasets[i]
		for b := range x.Blocks {
			var reps []workload.Replica
			for _, r := range x.Blocks[b].Replicas {
				if id := newID[r.Host]; id >= 0 {
					reps = append(reps, workload.Replica{Host: id, Tier: r.Tier})
				}
			}
			if len(reps) == 0 {
				reps = []workload.Replica{{Host: 0, Tier: t.Hosts[0].Tiers[0].Kind}}
			}
			x.Blocks[b].Replicas = reps
		}
	}
	d.topo = t
	return d
}

// minimise shrinks a failing case while the same policy fails the same
// way (same Kind), up to a budget of runs.
func minimise(c *robustCase, spec policy.Spec, seed uint64, kind string, timeout time.Duration) (*robustCase, robustOutcome) {
	best := c
	last := runRobust(c, spec, seed, timeout)
	for budget := 400; budget > 0; {
		improved := false
		for _, d := range best.shrinks() {
			if d.validate() != nil {
				continue
			}
			budget--
			if out := runRobust(d, spec, seed, timeout); out.Kind == kind {
				best, last, improved = d, out, true
				break
			}
			if budget <= 0 {
				break
			}
		}
		if !improved {
			break
		}
	}
	return best, last
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// TestPoliciesOnOddInputs runs every policy variant on random odd
// cases, and shrinks each new failure to a small case it prints as the
// files a campaign reads. ROBUST_CASES sets the number of cases (default
// 20, 3 with -short; a few hundred to explore), ROBUST_FIRST the first
// case's seed, ROBUST_POLICY keeps the specs whose text contains it.
func TestPoliciesOnOddInputs(t *testing.T) {
	cases := envInt("ROBUST_CASES", 20)
	if testing.Short() {
		cases = min(cases, 3)
	}
	first := uint64(envInt("ROBUST_FIRST", 1))
	filter := os.Getenv("ROBUST_POLICY")
	timeout := 20 * time.Second
	type key struct{ spec, kind string }
	seen := map[key]bool{}
	bounded := 0
	known := map[string]int{}
	for seed := first; seed < first+uint64(cases); seed++ {
		c := robustRandomCase(seed)
		if err := c.validate(); err != nil {
			t.Fatalf("case %d is not valid: %v\n%s", seed, err, c.yaml())
		}
		for _, spec := range robustVariants() {
			if filter != "" && !strings.Contains(specText(spec), filter) {
				continue
			}
			out := runRobust(c, spec, seed, timeout)
			if out.Bounded {
				bounded++
			}
			if out.Kind == "rejected" && robustKnownRejections[spec.Name] != "" {
				known[spec.Name]++
				continue
			}
			if out.Kind == "" {
				continue
			}
			k := key{specText(spec), out.Kind}
			if seen[k] {
				t.Errorf("%s: case %d: %s (again)", k.spec, seed, out.Kind)
				continue
			}
			seen[k] = true
			small, sout := minimise(c, spec, seed, out.Kind, timeout)
			t.Errorf("%s: case %d: %s: %s\nminimised (%s: %s):\n%s", k.spec, seed, out.Kind, out.Detail, sout.Kind, sout.Detail, small.yaml())
		}
	}
	t.Logf("%d runs stopped at the derived time bound", bounded)
	for name, n := range known {
		t.Logf("%s: %d runs with rejected actions, known: %s", name, n, robustKnownRejections[name])
	}
}

// robustKnownRejections are the policies whose runs may have actions
// rejected, and why: found by this test, not fixed because the fix moves
// the rejected_actions column of published runs or is not small.
var robustKnownRejections = map[string]string{}
