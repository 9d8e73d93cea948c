package policytest

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// demoting is greedy that, once a map has read its input, moves the
// replica it read to HDD: it exercises input-done and tier moves.
type demoting struct{ Greedy }

func (*demoting) InputDone(ctx *engine.Context, a *engine.Attempt) {
	if a.Source.Host < 0 {
		return
	}
	j := ctx.Job(a.Task.Job)
	st := j.Stages[a.Task.Stage]
	t := ctx.Task(a.Task)
	_ = ctx.SetReplicaTier(st.Spec.Input, int(t.Block), a.Source.Host, cluster.HDD)
}

func greedyFactory(name string, args map[string]string) (engine.Policy, error) {
	for k := range args {
		return nil, fmt.Errorf("unknown argument %q", k)
	}
	switch name {
	case "greedy":
		return &Greedy{Farthest: engine.Remote}, nil
	case "demoting":
		return &demoting{Greedy{Farthest: engine.Remote}}, nil
	}
	return nil, fmt.Errorf("unknown policy %q", name)
}

func TestScenarios(t *testing.T) {
	RunScenarios(t, "testdata/scenarios", greedyFactory)
}

// TestScriptErrors runs scripts that are wrong: each error, which
// RunScenarios reports with the command's file:line, is printed here as
// the command's output instead, so that the messages are checked too.
func TestScriptErrors(t *testing.T) {
	datadriven.Walk(t, "testdata/errors", func(t *testing.T, path string) {
		s := &scenario{factory: greedyFactory}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := s.exec(d)
			if err != nil {
				return "error: " + err.Error()
			}
			return out
		})
	})
}
