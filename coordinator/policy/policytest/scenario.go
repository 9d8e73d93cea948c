package policytest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Factory builds the policy a scenario names in its `policy NAME k=v ...`
// command. The test of a policy package passes one in, so that this
// package need not import any policy. Unknown names and arguments should
// be errors.
type Factory func(name string, args map[string]string) (engine.Policy, error)

// Inspector is implemented by a policy that shows its internal state (its
// counters, its plan) to the `inspect` command of a scenario. jobs are the
// engine's jobs in workload order, for naming them.
type Inspector interface {
	Inspect(jobs []*engine.Job) string
}

// RunScenarios runs every file under dir as a scenario script (see the
// package documentation for the commands), each on a fresh cluster. With
// `go test -rewrite` the expected outputs in the files are regenerated.
func RunScenarios(t *testing.T, dir string, factory Factory) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("scenarios: %v", err)
	}
	if len(entries) == 0 {
		t.Fatalf("scenarios: %s holds no scenario file", dir)
	}
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		s := &scenario{factory: factory}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := s.exec(d)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			return out
		})
	})
}

// scenario is the state of one script: what it has declared, and the
// engine once `policy` has built it.
type scenario struct {
	factory  Factory
	topo     *cluster.Topology
	datasets []workload.Dataset
	jobs     []workload.Job
	cfg      engine.Config
	cfgSet   bool

	eng      *engine.Engine
	policy   engine.Policy
	launched []engine.AttemptID // every attempt launched, in order
	states   []engine.JobState  // job states as last printed
	// stopped says the policy's error (engine.Failer) has been printed
	stopped bool
}

// exec runs one command and returns its output. An error means the script
// is wrong (unknown command, bad argument, unknown host or attempt); what
// the engine itself refuses is output, for the script to expect.
func (s *scenario) exec(d *datadriven.TestData) (string, error) {
	a := newArgs(d.Cmd, d.CmdArgs)
	var out string
	var err error
	switch d.Cmd {
	case "topology":
		out, err = s.declareTopology(a)
	case "dataset":
		out, err = s.declareDataset(a, d)
	case "job":
		out, err = s.declareJob(a, d)
	case "engine":
		out, err = s.declareEngine(a)
	case "policy":
		out, err = s.buildPolicy(d)
		a = newArgs(d.Cmd, nil) // the factory judges the policy's arguments
	case "advance", "offer", "round", "succeed", "fail", "lose-host", "network", "progress", "input-done":
		out, err = s.step(d.Cmd, a)
	case "jobs", "tasks", "attempts", "queues", "stats", "inspect":
		out, err = s.show(d.Cmd, a)
	default:
		return "", fmt.Errorf("unknown command %q (want one of: %s)", d.Cmd, strings.Join(commands, ", "))
	}
	if err != nil {
		return "", err
	}
	if err := a.done(); err != nil {
		return "", err
	}
	if d.Input != "" && d.Cmd != "dataset" && d.Cmd != "job" {
		return "", fmt.Errorf("%s takes no input lines (got %q)", d.Cmd, firstLine(d.Input))
	}
	return out, nil
}

var commands = []string{
	"topology", "dataset", "job", "engine", "policy",
	"advance", "offer", "round", "succeed", "fail", "lose-host", "network", "progress", "input-done",
	"jobs", "tasks", "attempts", "queues", "stats", "inspect",
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// built fails a declaration that comes after `policy`, and a step or
// inspection that comes before it.
func (s *scenario) built(cmd string, want bool) error {
	switch {
	case want && s.eng == nil:
		return fmt.Errorf("%s: no engine yet (declare the cluster and jobs, then `policy NAME`)", cmd)
	case !want && s.eng != nil:
		return fmt.Errorf("%s: the engine is already built; declare everything before `policy`", cmd)
	}
	return nil
}

// host resolves a host reference: its name in the topology (r0h1), or its
// id written h<id> (h1). A name takes precedence.
func (s *scenario) host(ref string) (cluster.HostID, error) {
	if s.topo == nil {
		return 0, fmt.Errorf("host %q: no topology yet", ref)
	}
	if id, ok := s.topo.HostByName(ref); ok {
		return id, nil
	}
	var n int
	if _, err := fmt.Sscanf(ref, "h%d", &n); err == nil && fmt.Sprintf("h%d", n) == ref && n >= 0 && n < len(s.topo.Hosts) {
		return cluster.HostID(n), nil
	}
	last := len(s.topo.Hosts) - 1
	return 0, fmt.Errorf("unknown host %q (hosts are h0..h%d, or by name %s..%s)", ref, last, s.topo.Hosts[0].Name, s.topo.Hosts[last].Name)
}

// hostLabel prints a host as its id and its name: h3(r1h1).
func (s *scenario) hostLabel(h cluster.HostID) string {
	if h < 0 || int(h) >= len(s.topo.Hosts) {
		return fmt.Sprintf("h%d(?)", h)
	}
	return fmt.Sprintf("h%d(%s)", h, s.topo.Hosts[h].Name)
}

// jobByName finds an engine job by its workload id.
func (s *scenario) jobByName(name string) (*engine.Job, error) {
	for _, j := range s.eng.Jobs() {
		if j.Spec.ID == name {
			return j, nil
		}
	}
	var names []string
	for _, j := range s.eng.Jobs() {
		names = append(names, j.Spec.ID)
	}
	return nil, fmt.Errorf("unknown job %q (jobs: %s)", name, strings.Join(names, ", "))
}

// taskLabel prints a task as job/stage/index.
func (s *scenario) taskLabel(t engine.TaskRef) string {
	return fmt.Sprintf("%s/%d/%d", s.eng.Job(t.Job).Spec.ID, t.Stage, t.Index)
}
