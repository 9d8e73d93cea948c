package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// A launch's decision note is stored with the attempt and reaches its
// record; a launch without one records the zero note. Each record names
// the class of data its stage reads: a dataset, a parent's output, or
// upstream partitions.
func TestDecisionNoteReachesTheRecords(t *testing.T) {
	topo := topo2x2(t, 4)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{
		mapReduce("p", "in", 1),
		{ID: "c", Parents: []string{"p"}, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "@p", Selectivity: 1}}},
	}}
	noted := DecisionNote{Saturation: Saturated, Reason: "zero-traffic"}
	launches := 0
	offer := func(ctx *Context, h cluster.HostID) {
		for _, j := range ctx.Running() {
			for _, t := range ctx.Pending(j.ID, nil) {
				opt := LaunchOptions{}
				if launches%2 == 0 {
					opt.Note = noted
				}
				if _, err := ctx.Launch(t, h, opt); err == nil {
					launches++
				}
			}
		}
	}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{offer: offer})
	var recs []AttemptRecord
	for !e.Done() {
		e.Offer(0)
		rd := e.Ready()
		if len(rd.Launches) == 0 {
			t.Fatal("no launch")
		}
		if got := rd.Launches[0].Note; got != noted && !got.IsZero() {
			t.Fatalf("launched attempt's note %+v", got)
		}
		finishAll(t, e, rd)
		recs = append(recs, e.Ready().Attempts...)
	}
	wantClass := map[string]Class{"p/0": ClassInput, "p/1": ClassShuffle, "c/0": ClassDependent}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for i, r := range recs {
		key := fmt.Sprintf("%s/%d", r.JobName, r.Task.Stage)
		if r.InputClass != wantClass[key] {
			t.Errorf("%s: input class %v, want %v", key, r.InputClass, wantClass[key])
		}
		want := DecisionNote{}
		if i%2 == 0 {
			want = noted
		}
		if r.Note != want {
			t.Errorf("attempt %d (%s): note %+v, want %+v", r.ID, key, r.Note, want)
		}
	}
}

// A note the records could not hold as it is is refused, like any bad
// action, and changes nothing.
func TestBadDecisionNoteRejected(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	for _, n := range []DecisionNote{
		{Saturation: numSaturations},
		{Reason: "Upper"},
		{Reason: "a,b"},
		{Reason: "a\nb"},
		{Reason: "a-reason-longer-than-thirty-two-b"},
	} {
		if _, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{Note: n}); !errors.Is(err, errRejected) {
			t.Errorf("note %+v: err %v, want a rejection", n, err)
		}
	}
	if e.Stats.RejectedByReason["bad decision note"] != 5 || e.Pending() != 1 {
		t.Fatalf("rejections %v, pending %d", e.Stats.RejectedByReason, e.Pending())
	}
	if _, err := ctx.Launch(TaskRef{0, 0, 0}, 0, LaunchOptions{Note: DecisionNote{Saturation: Unsaturated, Reason: "a-reason-of-thirty-two-bytes-000"}}); err != nil {
		t.Fatal(err)
	}
}

func TestSaturationNames(t *testing.T) {
	for s, want := range map[Saturation]string{SaturationUnknown: "unknown", Unsaturated: "unsaturated", Saturated: "saturated", numSaturations: "invalid"} {
		if s.String() != want {
			t.Errorf("%d: %q, want %q", s, s.String(), want)
		}
	}
}
