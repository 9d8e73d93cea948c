package policytest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/units"
)

// declareTopology: topology racks=2 hosts=2 slots=1 [nic_gbps=1]
// [oversub=1] [tiers=mem,ssd,hdd]. It prints every host as id=name.
func (s *scenario) declareTopology(a *args) (string, error) {
	if err := s.built("topology", false); err != nil {
		return "", err
	}
	if s.topo != nil {
		return "", fmt.Errorf("topology: declared twice")
	}
	spec := cluster.UniformSpec{
		Racks:            a.int("racks", 0),
		HostsPerRack:     a.int("hosts", 0),
		Slots:            a.int("slots", 1),
		ReduceSlots:      a.int("reduce_slots", 0),
		NICBps:           a.float("nic_gbps", 1) * 1e9 / 8,
		Oversubscription: a.float("oversub", 1),
	}
	if kinds := a.list("tiers"); kinds != nil {
		defaults := cluster.DefaultTiers()
		for _, k := range kinds {
			kind, err := cluster.ParseTierKind(k)
			if err != nil {
				return "", fmt.Errorf("topology: tiers: %v", err)
			}
			spec.Tiers = append(spec.Tiers, defaults[kind])
		}
	}
	if err := a.done(); err != nil {
		return "", err
	}
	topo, err := cluster.Uniform(spec)
	if err != nil {
		return "", fmt.Errorf("topology: %v", err)
	}
	s.topo = topo
	var b strings.Builder
	for _, r := range topo.Racks {
		fmt.Fprintf(&b, "rack %s:", r.Name)
		for _, h := range r.Hosts {
			fmt.Fprintf(&b, " h%d=%s", h, topo.Hosts[h].Name)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// declareDataset: dataset name=a size=10 [hosts=h0,h1 [tier=hdd]], or
// with one input line per block: "0: h0/hdd r1h0/ssd [size=20]".
func (s *scenario) declareDataset(a *args, d *datadriven.TestData) (string, error) {
	if err := s.built("dataset", false); err != nil {
		return "", err
	}
	if s.topo == nil {
		return "", fmt.Errorf("dataset: declare the topology first")
	}
	ds := workload.Dataset{Name: a.required("name")}
	a.what = "dataset " + ds.Name
	size := a.bytes("size", 0)
	if !a.has("size") {
		a.fail("missing size= (bytes per block)")
	}
	hosts := a.list("hosts")
	tierName := a.str("tier", "hdd")
	if err := a.done(); err != nil {
		return "", err
	}
	for _, other := range s.datasets {
		if other.Name == ds.Name {
			return "", fmt.Errorf("dataset %s: declared twice", ds.Name)
		}
	}
	switch {
	case hosts != nil && d.Input != "":
		return "", fmt.Errorf("dataset %s: give hosts= or block lines, not both", ds.Name)
	case hosts != nil:
		tier, err := cluster.ParseTierKind(tierName)
		if err != nil {
			return "", fmt.Errorf("dataset %s: tier: %v", ds.Name, err)
		}
		for i, ref := range hosts {
			h, err := s.host(ref)
			if err != nil {
				return "", fmt.Errorf("dataset %s block %d: %v", ds.Name, i, err)
			}
			ds.Blocks = append(ds.Blocks, workload.Block{Size: size, Replicas: []workload.Replica{{Host: h, Tier: tier}}})
		}
	case d.Input != "":
		for i, line := range strings.Split(d.Input, "\n") {
			b, err := s.parseBlock(line, len(ds.Blocks), size)
			if err != nil {
				return "", fmt.Errorf("%s (input line %d): dataset %s: %v", bodyPos(d, i), i+1, ds.Name, err)
			}
			ds.Blocks = append(ds.Blocks, b)
		}
	default:
		return "", fmt.Errorf("dataset %s: no blocks (give hosts=h0,h1,... or one input line per block)", ds.Name)
	}
	set := workload.Datasets{Datasets: []workload.Dataset{ds}}
	if err := set.Validate(s.topo); err != nil {
		return "", err
	}
	s.datasets = append(s.datasets, ds)
	var b strings.Builder
	for i, blk := range ds.Blocks {
		fmt.Fprintf(&b, "%d: %s", i, units.FormatBytes(blk.Size))
		for _, r := range blk.Replicas {
			fmt.Fprintf(&b, " %s/%s", s.hostLabel(r.Host), r.Tier)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// bodyPos is the file:line of input line i of a command, for errors in
// block and stage lines.
func bodyPos(d *datadriven.TestData, i int) string {
	if k := strings.LastIndexByte(d.Pos, ':'); k >= 0 {
		if n, err := strconv.Atoi(d.Pos[k+1:]); err == nil {
			return fmt.Sprintf("%s:%d", d.Pos[:k], n+1+i)
		}
	}
	return d.Pos
}

// parseBlock reads "I: host[/tier] host[/tier] ... [size=N]".
func (s *scenario) parseBlock(line string, want int, size int64) (workload.Block, error) {
	idx, rest, ok := strings.Cut(line, ":")
	if !ok {
		return workload.Block{}, fmt.Errorf("block line %q: want \"%d: h0/hdd h1/ssd\"", line, want)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(idx)); err != nil || n != want {
		return workload.Block{}, fmt.Errorf("block line %q: blocks are numbered in order from 0, want %d", line, want)
	}
	b := workload.Block{Size: size}
	for _, f := range strings.Fields(rest) {
		if v, ok := strings.CutPrefix(f, "size="); ok {
			n, err := units.ParseBytes(v)
			if err != nil {
				return b, err
			}
			b.Size = n
			continue
		}
		ref, tierName, _ := strings.Cut(f, "/")
		if tierName == "" {
			tierName = "hdd"
		}
		h, err := s.host(ref)
		if err != nil {
			return b, err
		}
		tier, err := cluster.ParseTierKind(tierName)
		if err != nil {
			return b, fmt.Errorf("replica %q: %v", f, err)
		}
		b.Replicas = append(b.Replicas, workload.Replica{Host: h, Tier: tier})
	}
	if len(b.Replicas) == 0 {
		return b, fmt.Errorf("block %d has no replica", want)
	}
	return b, nil
}

// declareJob: job id=j [arrival=0] [queue=q] [parents=p1,p2], with one
// input line per stage: "map input=a", "reduce tasks=2 [after=map]".
func (s *scenario) declareJob(a *args, d *datadriven.TestData) (string, error) {
	if err := s.built("job", false); err != nil {
		return "", err
	}
	j := workload.Job{ID: a.required("id")}
	a.what = "job " + j.ID
	j.Arrival = a.float("arrival", 0)
	j.Queue = a.str("queue", "")
	j.Parents = a.list("parents")
	if err := a.done(); err != nil {
		return "", err
	}
	if d.Input == "" {
		return "", fmt.Errorf("job %s: no stages (one input line per stage, e.g. \"map input=a\")", j.ID)
	}
	for i, line := range strings.Split(d.Input, "\n") {
		st, err := parseStage(line, j.Stages)
		if err != nil {
			return "", fmt.Errorf("%s (input line %d): job %s: %v", bodyPos(d, i), i+1, j.ID, err)
		}
		j.Stages = append(j.Stages, st)
	}
	// validate now, against what is declared so far, so that the error
	// points at this job
	w := workload.Workload{Jobs: append(append([]workload.Job(nil), s.jobs...), j)}
	if err := w.Validate(&workload.Datasets{Datasets: s.datasets}); err != nil {
		return "", err
	}
	s.jobs = append(s.jobs, j)
	var b strings.Builder
	queue := j.Queue
	if queue == "" {
		queue = "default"
	}
	fmt.Fprintf(&b, "job %s arrival=%g queue=%s", j.ID, j.Arrival, queue)
	if len(j.Parents) > 0 {
		fmt.Fprintf(&b, " parents=%s", strings.Join(j.Parents, ","))
	}
	b.WriteByte('\n')
	for i, st := range j.Stages {
		fmt.Fprintf(&b, "  %d %s %s", i, st.Name, st.Kind)
		if st.Input != "" {
			fmt.Fprintf(&b, " input=%s", st.Input)
		}
		if st.Tasks > 0 {
			fmt.Fprintf(&b, " tasks=%d", st.Tasks)
		}
		if len(st.After) > 0 {
			fmt.Fprintf(&b, " after=%s", strings.Join(st.After, ","))
		}
		if len(st.Shares) > 0 {
			b.WriteString(" shares=")
			for k, v := range st.Shares {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// parseStage reads one stage line: a kind (map, reduce, generic) and its
// arguments.
func parseStage(line string, earlier []workload.Stage) (workload.Stage, error) {
	cmd, cmdArgs, err := datadriven.ParseLine(line)
	if err != nil {
		return workload.Stage{}, err
	}
	kind, err := workload.ParseStageKind(cmd)
	if err != nil {
		return workload.Stage{}, err
	}
	a := newArgs("stage "+cmd, cmdArgs)
	st := workload.Stage{
		Kind:             kind,
		Name:             a.str("name", cmd),
		Input:            a.str("input", ""),
		Tasks:            a.int("tasks", 0),
		After:            a.list("after"),
		Selectivity:      a.float("selectivity", 1),
		OutputBytes:      a.bytes("output", 0),
		ComputeNsPerByte: a.float("compute", 0),
		Skew:             a.float("skew", 0),
		OutputReplicas:   a.int("replicas", 0),
	}
	for i, v := range a.list("shares") {
		w, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return st, fmt.Errorf("stage %s: shares: weight #%d %q is not a number", cmd, i+1, v)
		}
		st.Shares = append(st.Shares, w)
	}
	if err := a.done(); err != nil {
		return st, err
	}
	// a shuffling stage reads the stage before it unless it says otherwise
	if kind != workload.Map && st.After == nil && len(earlier) > 0 {
		st.After = []string{earlier[len(earlier)-1].Name}
	}
	return st, nil
}

// declareEngine: engine [seed=0] [slow_start=0.05] [early_shuffle_limit=0.5]
// [max_task_failures=4] [queues=prod:0.75,dev:0.25:0.5] [weights=prod:2]
// [orderings=prod:fifo,dev:fair]
// [intermediate_tiers=ssd,hdd] [output_tiers=hdd].
func (s *scenario) declareEngine(a *args) (string, error) {
	if err := s.built("engine", false); err != nil {
		return "", err
	}
	if s.cfgSet {
		return "", fmt.Errorf("engine: declared twice")
	}
	cfg := engine.Config{
		Seed:              uint64(a.int("seed", 0)),
		SlowStart:         a.float("slow_start", 0),
		EarlyShuffleLimit: a.float("early_shuffle_limit", 0),
		MaxTaskFailures:   uint16(a.int("max_task_failures", 0)),
	}
	for _, q := range a.list("queues") {
		parts := strings.Split(q, ":")
		queue := engine.Queue{Name: parts[0], Weight: 1}
		var err error
		if len(parts) > 3 || parts[0] == "" {
			err = fmt.Errorf("want name:capacity[:max_capacity]")
		}
		if err == nil && len(parts) > 1 {
			queue.Capacity, err = strconv.ParseFloat(parts[1], 64)
		}
		if err == nil && len(parts) > 2 {
			queue.MaxCapacity, err = strconv.ParseFloat(parts[2], 64)
		}
		if err != nil {
			return "", fmt.Errorf("engine: queue %q: %v", q, err)
		}
		cfg.Queues = append(cfg.Queues, queue)
	}
	for _, w := range a.list("weights") {
		name, val, _ := strings.Cut(w, ":")
		weight, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return "", fmt.Errorf("engine: weight %q: want queue:weight", w)
		}
		i := slices.IndexFunc(cfg.Queues, func(q engine.Queue) bool { return q.Name == name })
		if i < 0 {
			cfg.Queues = append(cfg.Queues, engine.Queue{Name: name})
			i = len(cfg.Queues) - 1
		}
		cfg.Queues[i].Weight = weight
	}
	for _, o := range a.list("orderings") {
		name, val, _ := strings.Cut(o, ":")
		ordering, err := engine.ParseOrdering(val)
		if err != nil {
			return "", fmt.Errorf("engine: ordering %q: %v", o, err)
		}
		i := slices.IndexFunc(cfg.Queues, func(q engine.Queue) bool { return q.Name == name })
		if i < 0 {
			cfg.Queues = append(cfg.Queues, engine.Queue{Name: name, Weight: 1})
			i = len(cfg.Queues) - 1
		}
		cfg.Queues[i].Ordering = ordering
	}
	tierLists := []struct {
		key string
		dst *[]cluster.TierKind
	}{{"intermediate_tiers", &cfg.IntermediateTiers}, {"output_tiers", &cfg.OutputTiers}}
	for _, tl := range tierLists {
		for _, k := range a.list(tl.key) {
			kind, err := cluster.ParseTierKind(k)
			if err != nil {
				return "", fmt.Errorf("engine: %s: %v", tl.key, err)
			}
			*tl.dst = append(*tl.dst, kind)
		}
	}
	if err := a.done(); err != nil {
		return "", err
	}
	s.cfg, s.cfgSet = cfg, true
	return "ok", nil
}

// buildPolicy: policy NAME [k=v ...]. It builds the engine with the
// policy the factory makes, at time 0, with the jobs that arrive at 0
// submitted.
func (s *scenario) buildPolicy(d *datadriven.TestData) (string, error) {
	if err := s.built("policy", false); err != nil {
		return "", err
	}
	if s.topo == nil {
		return "", fmt.Errorf("policy: declare the topology first")
	}
	if len(d.CmdArgs) == 0 || len(d.CmdArgs[0].Vals) > 0 {
		return "", fmt.Errorf("policy: want `policy NAME [k=v ...]`")
	}
	name := d.CmdArgs[0].Key
	polArgs := map[string]string{}
	for _, c := range d.CmdArgs[1:] {
		if len(c.Vals) == 0 {
			return "", fmt.Errorf("policy %s: argument %q has no value (want key=value)", name, c.Key)
		}
		polArgs[c.Key] = strings.Join(c.Vals, ",")
	}
	p, err := s.factory(name, polArgs)
	if err != nil {
		return "", fmt.Errorf("policy %s: %v", name, err)
	}
	// the engine may keep and change what it is given: hand it copies
	w := &workload.Workload{Jobs: append([]workload.Job(nil), s.jobs...)}
	ds := &workload.Datasets{Datasets: append([]workload.Dataset(nil), s.datasets...)}
	e, err := engine.New(s.cfg, s.topo, w, ds, p)
	if err != nil {
		return "", fmt.Errorf("policy %s: building the engine: %v", name, err)
	}
	s.eng, s.policy = e, p
	s.states = make([]engine.JobState, len(e.Jobs()))
	if err := e.Advance(0); err != nil {
		return "", err
	}
	return s.events(""), nil
}
