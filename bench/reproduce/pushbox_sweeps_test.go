package reproduce

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/report"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
)

// campaigns/pushbox.yaml's sweeps of Fig. 10-13 (pushbox.md §5.2): each
// point differs from the sweep's other points only in what the sweep
// varies, set to the point's x (the oversubscription of §7.3's 64
// machines, the machines of one rack, the slots, the trace's scale); every
// point runs Hadoop, ShuffleWatcher (as the main run set does), NEAT and
// PushBox; and rows check PushBox against each baseline at both ends of
// each sweep, average and p99 JCT.
func TestPushBoxSweeps(t *testing.T) {
	c, err := campaign.Load("../../campaigns/pushbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runSet := func(name string) *campaign.RunSet {
		for i := range c.Runs {
			if c.Runs[i].Mode == campaign.ModeSim && c.Runs[i].Name == name {
				return &c.Runs[i]
			}
		}
		return nil
	}
	main := runSet("")
	swArgs := func(rs *campaign.RunSet) string {
		i := slices.IndexFunc(rs.Policies, func(s policy.Spec) bool { return s.String() == "shufflewatcher" })
		if i < 0 {
			return ""
		}
		return fmt.Sprint(rs.Policies[i].Args)
	}
	// the parameter a sweep varies, of a point's cluster and workload,
	// and the rest of them with it zeroed
	type setting struct {
		cluster cluster.UniformSpec
		scale   float64
	}
	varied := map[string]func(s *setting) *float64{
		"oversub": func(s *setting) *float64 { return &s.cluster.Oversubscription },
		"hosts":   func(s *setting) *float64 { v := float64(s.cluster.HostsPerRack); s.cluster.HostsPerRack = 0; return &v },
		"slots":   func(s *setting) *float64 { v := float64(s.cluster.Slots); s.cluster.Slots = 0; return &v },
		"load":    func(s *setting) *float64 { return &s.scale },
	}
	ends := map[string][2]string{} // sweep → its ends, as policy@run set in workload
	for name, field := range varied {
		for _, metric := range []string{"avg", "p99"} {
			i := slices.IndexFunc(c.Sweeps, func(s report.Sweep) bool { return s.Name == name+"-"+metric })
			if i < 0 {
				t.Errorf("no sweep %s-%s", name, metric)
				continue
			}
			sw := c.Sweeps[i]
			if !sw.OverRunSets || len(sw.Points) < 4 || sw.Baseline != "fair" || !slices.Equal(sw.Policies, []string{"shufflewatcher", "neat", "pushbox"}) {
				t.Errorf("sweep %s: %+v", sw.Name, sw)
			}
			var first *setting
			lo, hi := sw.Points[0], sw.Points[0]
			for _, pt := range sw.Points {
				rs := runSet(pt.RunSet)
				if rs == nil {
					t.Fatalf("sweep %s: no sim run set %q", sw.Name, pt.RunSet)
				}
				if got := rs.Policies; len(got) < 4 || swArgs(rs) != swArgs(main) {
					t.Errorf("sweep %s: run set %q runs %v, ShuffleWatcher's args %s, want the main run set's %s", sw.Name, pt.RunSet, got, swArgs(rs), swArgs(main))
				}
				s := setting{cluster: *c.Uniform}
				if rs.Uniform != nil {
					s.cluster = *rs.Uniform
				}
				spec := c.Workloads[slices.IndexFunc(c.Workloads, func(w campaign.NamedWorkload) bool { return w.Name == pt.Workload })].Spec
				if spec.Coflow == nil || spec.Coflow.Queue != "" || spec.Coflow.SmallQueue != "" {
					t.Fatalf("sweep %s: workload %s is not the Fair-queue coflow trace", sw.Name, pt.Workload)
				}
				s.scale = spec.Coflow.Scale
				if x := *field(&s); x != pt.X {
					t.Errorf("sweep %s: point %s has %g, its x says %g", sw.Name, pt.Name(), x, pt.X)
				}
				*field(&s) = 0
				switch {
				case first == nil:
					first = &s
				case !reflect.DeepEqual(s, *first):
					t.Errorf("sweep %s: point %s differs from %s in more than x: %+v vs %+v", sw.Name, pt.Name(), sw.Points[0].Name(), s, *first)
				}
				if pt.X < lo.X {
					lo = pt
				}
				if pt.X > hi.X {
					hi = pt
				}
			}
			ends[name] = [2]string{"@" + lo.RunSet + " in " + lo.Workload, "@" + hi.RunSet + " in " + hi.Workload}
		}
	}
	if o := c.Sweeps[slices.IndexFunc(c.Sweeps, func(s report.Sweep) bool { return s.Name == "oversub-avg" })]; o.Points[0].X != 1 || o.Points[len(o.Points)-1].X != 6 {
		t.Errorf("Fig. 10's fan-in spans 1:1-6:1: points %+v", o.Points)
	}
	tb, err := Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for name, e := range ends {
		for _, end := range e {
			for _, metric := range []string{"jct_mean_s", "jct_p99_s"} {
				for _, base := range []string{"fair", "shufflewatcher", "neat"} {
					want[strings.Join([]string{name, end, metric, base}, " ")] = true
				}
			}
		}
	}
	sweepOf := map[string]string{"Oversub": "oversub", "Cluster": "hosts", "Slots per machine": "slots", "Workload scale": "load"}
	for _, r := range tb.Rows {
		for row, name := range sweepOf {
			if !strings.HasPrefix(r.Spec, "pushbox.md §6.2, "+row+" row") {
				continue
			}
			key := strings.Join([]string{name, "@" + r.PolicySet + " in " + r.In, r.Metric, r.Baseline}, " ")
			if !want[key] || r.Policy != "pushbox" || r.BaselineSet != r.PolicySet || r.Direction != -1 {
				t.Errorf("row %d (%s): %s@%s vs %s@%s in %s, direction %d", r.Line, key, r.Policy, r.PolicySet, r.Baseline, r.BaselineSet, r.In, r.Direction)
			}
			delete(want, key)
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
}
