package campaign

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// MaxRepetitions bounds a run set's repetitions: each is a whole run with
// its own records, and a thousand runs of one policy are more than any
// confidence interval needs; a typo such as 1e9 would otherwise plan
// runs (and seeds) until memory runs out.
const MaxRepetitions = 1000

// checkNumbers holds a parsed campaign's numbers to their limits, with
// the line of each: the ones that, out of range, crashed or hung a run
// after parsing (a negative seed, a NaN-free but huge repetition count, a
// negative simulated-time limit, generator and trace parameters beyond the
// workload's limits). The other values are checked where they are read.
func checkNumbers(d *yamlfile.Decoder, top *yaml.Node) {
	m := d.Map(top, "campaign")
	nonNegInt(m, "seed", -1)
	if m.Has("slowstart") {
		if v := m.Float("slowstart"); !(v >= 0 && v <= 1) {
			m.Fail("slowstart", "slowstart must be between 0 and 1 (got %g)", v)
		}
	}
	if n := m.Node("limits"); n != nil {
		lm := d.Map(n, "limits")
		if lm.Has("max_sim_time_s") {
			if v := lm.Float("max_sim_time_s"); v < 0 {
				lm.Fail("max_sim_time_s", "max_sim_time_s must not be negative (got %g; 0: a bound derived from the workload)", v)
			}
		}
	}
	for i, n := range m.Seq("runs") {
		nonNegInt(d.Map(n, fmt.Sprintf("runs[%d]", i)), "repetitions", MaxRepetitions)
	}
	if wn := m.Node("workload"); wn != nil {
		checkWorkloadNumbers(d, wn, "workload")
	}
	if n := m.Node("workloads"); n != nil {
		wsm := d.Map(n, "workloads")
		for _, name := range wsm.Keys() {
			if wn := wsm.Node(name); wn != nil {
				checkWorkloadNumbers(d, wn, "workloads "+name)
			}
		}
	}
}

// checkWorkloadNumbers is checkNumbers for one workload; where names it.
func checkWorkloadNumbers(d *yamlfile.Decoder, wn *yaml.Node, where string) {
	wm := d.Map(wn, where)
	if n := wm.Node("generator"); n != nil {
		gm := d.Map(n, where+" generator")
		nonNegInt(gm, "seed", -1)
		nonNegInt(gm, "workloads", workload.MaxTotalTasks)
		nonNegInt(gm, "replication", workload.MaxReplicas)
		nonNegInt(gm, "rounds", workload.MaxTotalTasks)
		// a recurring job has a map and a reduce task at least
		nonNegInt(gm, "jobs", workload.MaxTotalTasks/2)
		nonNegInt(gm, "adhoc", workload.MaxTotalTasks/2)
		positive(gm, "scale")
		for _, key := range []string{"duration", "window"} {
			if gm.Has(key) {
				if v := gm.Float(key); v > workload.MaxArrivalS {
					gm.Fail(key, "%s must be at most %g s, the longest arrival time (got %g)", key, workload.MaxArrivalS, v)
				}
			}
		}
		if gm.Has("rate") {
			if v := gm.Float("rate"); v != 0 && v < 1/workload.MaxArrivalS {
				gm.Fail("rate", "rate must be at least %g submissions per second, one in the longest arrival time (got %g)", 1/workload.MaxArrivalS, v)
			}
		}
	}
	if n := wm.Node("swim"); n != nil {
		sm := d.Map(n, where+" swim")
		nonNegInt(sm, "max_jobs", -1)
		nonNegInt(sm, "sample_seed", -1) // read as a uint64: -1 would wrap
		nonNegInt(sm, "max_reducers", workload.MaxTasksPerStage)
		positive(sm, "scale")
	}
}

// checkSwimOptions makes the SWIM importer's own checks of each swim
// workload's options (replication, sample, sizes, compute) here, where the
// campaign's file and line are known, rather than against the trace when
// a run starts.
func checkSwimOptions(d *yamlfile.Decoder, c *Campaign) {
	check := func(w *WorkloadSpec, where string) {
		if w.Swim == nil {
			return
		}
		o := w.Swim.options()
		if err := o.Check(); err != nil {
			d.Fail(w.Swim.line, where+" swim", "%v", err)
		}
	}
	check(&c.Workload, "workload")
	for i := range c.Workloads {
		check(&c.Workloads[i].Spec, "workloads "+c.Workloads[i].Name)
	}
}

// nonNegInt fails an integer field below 0 or, when limit ≥ 0, above it.
func nonNegInt(m *yamlfile.Map, key string, limit int64) {
	if !m.Has(key) {
		return
	}
	v := m.Int(key)
	switch {
	case v < 0:
		m.Fail(key, "%s must not be negative (got %d)", key, v)
	case limit >= 0 && v > limit:
		m.Fail(key, "%s must be at most %d (got %d)", key, limit, v)
	}
}

// positive fails a number field that is not above zero.
func positive(m *yamlfile.Map, key string) {
	if m.Has(key) {
		if v := m.Float(key); !(v > 0) {
			m.Fail(key, "%s must be positive (got %g)", key, v)
		}
	}
}
