package shadow

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Figures are the run's Shadow counters (§7.5) for summary.csv:
//
//   - shadow_originals: original map tasks of the jobs Shadow scheduled;
//   - shadow_duplicates: duplicates launched;
//   - shadow_chosen: duplicates whose output the split used, relocated
//     ones included;
//   - shadow_early_chosen: those chosen because they finished before T;
//   - shadow_relocated_local: rack-local duplicates whose original was
//     killed at launch (A5);
//   - shadow_pred_error_mean: the mean over jobs of |T_t,pred −
//     T_t,actual| / T_t,actual (A15), where T_t,pred is SELECT-AT-T's
//     estimated map-plus-shuffle span and T_t,actual the job's shuffle
//     end, both from t0 (the launch of its first original map). The
//     shuffle end is the latest moment one of its reducers had its whole
//     input (the attempt's InputDoneAt; its end if the driver never said),
//     so it covers the map phase (the last chosen map) and the shuffle.
//     Jobs without reducers, or that never reached T, are left out; with
//     none the figure is absent;
//   - shadow_dup_frac: duplicates over originals (Fig. 16, 17), absent
//     without originals;
//   - shadow_chosen_frac: chosen over duplicates, absent without
//     duplicates.
func (p *Policy) Figures() map[string]float64 {
	f := map[string]float64{
		"shadow_originals":       float64(p.originals),
		"shadow_duplicates":      float64(p.duplicates),
		"shadow_chosen":          float64(p.chosen),
		"shadow_early_chosen":    float64(p.early),
		"shadow_relocated_local": float64(p.relocated),
	}
	if p.originals > 0 {
		f["shadow_dup_frac"] = float64(p.duplicates) / float64(p.originals)
	}
	if p.duplicates > 0 {
		f["shadow_chosen_frac"] = float64(p.chosen) / float64(p.duplicates)
	}
	sum, n := 0.0, 0
	for _, id := range p.sortedJobs() {
		js := p.jobs[id]
		if !js.tReached || js.reduceStage < 0 || js.reducersLeft > 0 || js.actual <= 0 {
			continue
		}
		sum += math.Abs(js.predicted-js.actual) / js.actual
		n++
	}
	if n > 0 {
		f["shadow_pred_error_mean"] = sum / float64(n)
	}
	return f
}

func (p *Policy) sortedJobs() []engine.JobID {
	ids := make([]engine.JobID, 0, len(p.jobs))
	for id := range p.jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids
}

// Inspect shows, per job, the planned counts, the duplicate plan, the
// pairs' states, T and the prediction; then the run's counters.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, id := range p.sortedJobs() {
		js := p.jobs[id]
		if !js.duplicated {
			continue
		}
		fmt.Fprintf(&b, "job %s: planned=%v", jobs[id].Spec.ID, js.planned)
		if js.reduceStage >= 0 {
			if q, ok := p.reducers.PlannedQuota(id, js.reduceStage); ok {
				fmt.Fprintf(&b, " reducers=%v", q)
			}
		}
		for _, d := range js.plan {
			pr := js.pairs[int32(d.Split)]
			kind := "remote"
			if d.Local {
				kind = "local"
			}
			fmt.Fprintf(&b, "\n  split %d r%d->r%d %s %s", d.Split, d.From, d.To, kind, pairStateNames[pr.state])
			if pr.early {
				b.WriteString(" early")
			}
			if !d.Local {
				fmt.Fprintf(&b, " B=%.6g", pr.bandwidth)
			}
		}
		if js.tReached {
			fmt.Fprintf(&b, "\n  T=%.6g originals_only=%.6g predicted=%.6g", js.T, js.baseline, js.predicted)
			if js.reduceStage >= 0 && js.reducersLeft == 0 && js.actual > 0 {
				fmt.Fprintf(&b, " actual=%.6g", js.actual)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "originals=%d duplicates=%d chosen=%d early=%d relocated=%d", p.originals, p.duplicates, p.chosen, p.early, p.relocated)
	if e, ok := p.Figures()["shadow_pred_error_mean"]; ok {
		fmt.Fprintf(&b, " pred_error_mean=%.6g", e)
	}
	return b.String()
}
