package campaign

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/fbtiers"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/datagen/mix"
	"github.com/racklab/racklab/datagen/ml"
	"github.com/racklab/racklab/datagen/recurring"
	"github.com/racklab/racklab/datagen/tpch"
)

// generate runs one of datagen's generators with a campaign's parameters;
// the rest take the generator's defaults. The recurring generator also
// says what a planner predicts (the others: nil).
func generate(g *GeneratorSpec) (*workload.Workload, *workload.Datasets, *workload.Predicted, error) {
	common := gen.DefaultOptions()
	common.Seed, common.Scale, common.Rate, common.BlockSize, common.Replication = g.Seed, g.Scale, g.Rate, g.BlockSize, g.Replication
	proc, err := gen.ParseProcess(g.Arrivals)
	if err != nil {
		return nil, nil, nil, err
	}
	common.Arrivals = proc
	switch g.Name {
	case "tpch":
		o := tpch.DefaultOptions()
		o.Options = common
		if g.ScaleFactor > 0 {
			o.ScaleFactor = g.ScaleFactor
		}
		o.MultiStage = g.MultiStage
		if g.Rounds > 0 {
			o.Rounds = g.Rounds
		}
		if g.Window > 0 {
			o.Window = g.Window
		}
		o.Queries = g.Queries
		return noPredictions(tpch.Generate(o))
	case "ml":
		o := ml.DefaultOptions()
		o.Options = common
		if g.Workloads > 0 {
			o.Workloads = g.Workloads
		}
		if g.Duration > 0 {
			o.Duration = g.Duration
		}
		o.Labels = g.Labels
		return noPredictions(ml.Generate(o))
	case "recurring":
		o := recurring.DefaultOptions()
		o.Options = common
		if g.Set != "" {
			o.Workload = g.Set
		}
		for _, f := range []struct{ dst, v *float64 }{
			{&o.SizeError, g.SizeError}, {&o.ArrivalError, g.ArrivalError}, {&o.ArrivalShift, g.ArrivalShift},
		} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		if g.Jobs > 0 {
			o.Jobs = g.Jobs
		}
		if g.Window > 0 {
			o.Window = g.Window
		}
		if g.TaskScale > 0 {
			o.TaskScale = g.TaskScale
		}
		o.AdHoc = g.AdHoc
		o.OutputReplicas = g.OutputReplicas
		return recurring.Generate(o)
	case "mix":
		preset := g.Preset
		if preset == "" {
			preset = "puma"
		}
		var m *mix.Mix
		var err error
		if len(g.Apps) > 0 {
			m, err = mix.ParseMix(strings.NewReader(strings.Join(g.Apps, "\n")+"\n"), "apps")
		} else {
			m, err = mix.Preset(preset)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		o := mix.DefaultOptions()
		o.MaxReducers = g.MaxReducers
		if g.ReduceBytes > 0 {
			o.ReduceBytes = g.ReduceBytes
		}
		o.Options = common
		if g.ComputeScale != 0 {
			o.ComputeScale = g.ComputeScale
		}
		o.OutputReplicas = g.OutputReplicas
		return noPredictions(mix.Generate(m, o))
	case "fbtiers":
		o := fbtiers.DefaultOptions()
		o.Options = common
		if g.Jobs > 0 {
			o.Jobs = g.Jobs
		}
		if g.Duration > 0 {
			o.Duration = g.Duration
		}
		if g.TotalInput > 0 {
			o.TotalInput = g.TotalInput
		}
		if g.Zipf != nil {
			o.Zipf = *g.Zipf
		}
		if g.Trace != "" {
			o.Trace = g.Trace
		}
		return noPredictions(fbtiers.Generate(o))
	}
	return nil, nil, nil, fmt.Errorf("unknown generator %q", g.Name)
}

func noPredictions(w *workload.Workload, ds *workload.Datasets, err error) (*workload.Workload, *workload.Datasets, *workload.Predicted, error) {
	return w, ds, nil, err
}
