package corral

import (
	"math"
	"math/rand/v2"
	"testing"
)

// plannerScale is §5.3's planner-scaling setup: 100 racks × 40 machines
// (10 Gbps NICs, 5:1), the paper's 55 s for 500 jobs (§2.3.4, Fig. 5).
var plannerScale = Cluster{Racks: 100, MachinesPerRack: 40, SlotsPerMachine: 1, NICBps: 1.25e9, Oversubscription: 5}

// w3Like draws n jobs shaped like W3 (Table 1): log-normal task counts
// (median 180), inputs (median 7.1 GB) and shuffles (median 6 GB).
func w3Like(rng *rand.Rand, n int) []Job {
	logn := func(median, p95 float64) float64 {
		sigma := math.Log(p95/median) / 1.645
		return median * math.Exp(sigma*rng.NormFloat64())
	}
	jobs := make([]Job, n)
	for i := range jobs {
		tasks := max(2, int(logn(180, 2060)))
		in := logn(7.1e9, 162.3e9)
		jobs[i] = Job{
			Arrival: rng.Float64() * 3600, InputBytes: in, ShuffleBytes: logn(6e9, 71.5e9),
			OutputBytes: in * (0.25 + 0.75*rng.Float64()),
			MapTasks:    max(1, tasks*2/3), ReduceTasks: max(1, tasks/3),
			MapRate: 100e6, ReduceRate: 50e6,
		}
	}
	return jobs
}

// BenchmarkPlan500x100 plans 500 jobs on 100 racks (the paper: ≈55 s;
// target under 5 s), in the online objective, the penalty on.
func BenchmarkPlan500x100(b *testing.B) {
	jobs := w3Like(rand.New(rand.NewPCG(500, 100)), 500)
	m := Model{ShuffleWaveMultiplier: true, Alpha: DefaultAlpha(plannerScale)}
	for _, obj := range []Objective{Batch, Online} {
		b.Run(obj.String(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := PlanJobs(jobs, plannerScale, m, Options{Objective: obj})
				if err != nil {
					b.Fatal(err)
				}
				if p.Candidates != 1+500*99 {
					b.Fatalf("%d candidates", p.Candidates)
				}
			}
		})
	}
}

// plannerTable is the penalised response functions of n W3-like jobs on
// R racks of plannerScale's machines, as PlanJobs computes them.
func plannerTable(n, R int) [][]float64 {
	c := plannerScale
	c.Racks = R
	m := Model{ShuffleWaveMultiplier: true, Alpha: DefaultAlpha(c)}
	resp := make([][]float64, n)
	for j, job := range w3Like(rand.New(rand.NewPCG(uint64(n), uint64(R))), n) {
		resp[j] = make([]float64, R)
		for r := 1; r <= R; r++ {
			resp[j][r-1] = m.Penalised(job, c, r)
		}
	}
	return resp
}

// BenchmarkLP times LP-Batch: 50 jobs × 10 racks by gonum's simplex and
// by the bisection, 500 × 100 by the bisection (beyond the simplex's
// limit).
func BenchmarkLP(b *testing.B) {
	for _, c := range []struct {
		name  string
		jobs  int
		racks int
		solve func([][]float64, int) (float64, error)
	}{
		{"50x10/simplex", 50, 10, LPBatchSimplex},
		{"50x10/bisect", 50, 10, lpBatchBisect},
		{"500x100/bisect", 500, 100, lpBatchBisect},
	} {
		resp := plannerTable(c.jobs, c.racks)
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.solve(resp, c.racks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
