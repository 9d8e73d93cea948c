package trident

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomWorkload builds the §5.5 experiment: nodes virtual nodes with one
// free slot each, spread over racks racks, and n tasks with 3 preferred
// (node, tier) pairs on distinct nodes drawn by a seeded RNG.
func randomWorkload(rng *rand.Rand, n, nodes, racks, d int) ([]Task, []ResourceSet) {
	sets := make([]ResourceSet, nodes)
	for k := range sets {
		sets[k] = ResourceSet{Node: k, Rack: k % racks, Executor: k + 1, Free: 1}
	}
	tasks := make([]Task, n)
	for i := range tasks {
		perm := rng.Perm(nodes)[:min(d, nodes)]
		prefs := make([]Preference, len(perm))
		for k, node := range perm {
			prefs[k] = Preference{Node: node, Rack: node % racks, Tier: Tier(rng.IntN(3))}
		}
		tasks[i].Prefs = prefs
	}
	return tasks, sets
}

// BenchmarkMatch times one whole scheduling call (pruning, cost matrix,
// matching) as §5.5's experiment does.
func BenchmarkMatch(b *testing.B) {
	cases := []struct {
		n, nodes, racks int
		pruning         Pruning
	}{
		{1024, 1024, 1, PruningOff},
		{1024, 1024, 32, PruningOff},
		{16, 1024, 1, PruningPaper},
		{64, 1024, 1, PruningPaper},
		{64, 1024, 1, PruningOff},
	}
	for _, c := range cases {
		name := fmt.Sprintf("tasks=%d/nodes=%d/racks=%d/pruning=%s", c.n, c.nodes, c.racks, c.pruning)
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(55, uint64(c.n*c.nodes+c.racks)))
			tasks, sets := randomWorkload(rng, c.n, c.nodes, c.racks, 3)
			s := Scheduler{Profile: DefaultProfile(), Pruning: c.pruning}
			if _, _, err := s.Schedule(tasks, sets); err != nil { // warm the buffers
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, _, err := s.Schedule(tasks, sets); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
