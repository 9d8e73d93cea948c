package live

import (
	"context"
	"fmt"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
)

// prepare builds the engine, which places the datasets, and has every
// worker write the blocks it holds.
func (r *run) prepare(ctx context.Context) error {
	p := r.cfg.PolicyImpl
	var err error
	if p == nil {
		if p, err = policy.New(r.cfg.Policy); err != nil {
			return err
		}
	}
	clock := time.Now()
	r.eng, err = engine.New(engine.Config{Seed: r.cfg.Seed, SlowStart: r.cfg.SlowStart, Queues: r.cfg.Queues, Predicted: r.cfg.Predicted,
		Placer: r.cfg.Placer, OutputPlacer: r.cfg.OutputPlacer, MemoryLRU: r.cfg.MemoryLRU, OutputPipeline: r.cfg.OutputPipeline,
		Stopwatch:  func() int64 { return int64(time.Since(clock)) },
		OnDecision: func(ns int64) { r.prom.decisionSecs.Observe(float64(ns) / 1e9) }}, r.topo, r.cfg.Workload, r.cfg.Datasets, p)
	if err != nil {
		return err
	}
	r.sink = r.cfg.Sink
	if r.sink == nil {
		r.sink = discard{}
	}
	perHost := make([][]wire.Block, len(r.hosts))
	var total int64
	for _, d := range r.eng.Datasets().Datasets {
		for b, blk := range d.Blocks {
			for _, rep := range blk.Replicas {
				perHost[rep.Host] = append(perHost[rep.Host], wire.Block{Key: DatasetBlockKey(d.Name, b), Tier: rep.Tier.String(), Size: blk.Size})
				total += blk.Size
			}
		}
	}
	t0 := time.Now()
	waiting := 0
	for h, blocks := range perHost {
		if len(blocks) > 0 {
			r.send(r.topo.Hosts[h].Name, wire.TypeMaterialize, &wire.Materialize{Seed: r.cfg.Seed, Blocks: blocks})
			waiting++
		}
	}
	written := map[string]int64{}
	finished := map[string]bool{}
	sums := map[string]uint64{} // block key → checksum, the same for every replica
	verified := 0
	lastReport := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for waiting > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			r.flushRejected()
			// a host that dies now takes replicas the run needs
			r.checkHosts()
			for h, blocks := range perHost {
				if len(blocks) > 0 && r.hosts[h].lost {
					return fmt.Errorf("host %s was lost while writing its %d blocks", r.topo.Hosts[h].Name, len(blocks))
				}
			}
		case m := <-r.inbox:
			typ, err := wire.Peek(m.Data)
			if err != nil || typ != wire.TypeMaterialized {
				r.handle(m)
				continue
			}
			var done wire.Materialized
			if err := wire.Decode(m.Data, typ, &done); err != nil {
				r.malformed(m.Subject, err)
				continue
			}
			if !r.fromSender(m, &done) {
				continue
			}
			if done.Error != "" {
				return fmt.Errorf("host %s could not write its blocks: %s", done.Host, done.Error)
			}
			if _, ok := r.known(done.Host); !ok || finished[done.Host] {
				continue // not in the run, or a late copy
			}
			written[done.Host] = done.Bytes
			if done.Done {
				finished[done.Host] = true
				waiting--
				for key, sum := range done.Checksums {
					if prev, ok := sums[key]; ok && prev != sum {
						return fmt.Errorf("block %s: host %s wrote checksum %016x, another replica %016x", key, done.Host, sum, prev)
					}
					sums[key] = sum
					verified++
				}
			}
			if time.Since(lastReport) >= time.Second {
				lastReport = time.Now()
				var sum int64
				for _, n := range written {
					sum += n
				}
				r.event("materializing", "", "%d of %d bytes (%.0f%%), %d hosts to finish", sum, total, 100*float64(sum)/float64(max(total, 1)), waiting)
			}
		}
	}
	r.res.MaterializedBytes = total
	r.res.MaterializeSeconds = time.Since(t0).Seconds()
	r.res.MaterializeBoundSeconds = materializeBound(r.topo, perHost)
	if want := countBlocks(perHost); verified != want {
		return fmt.Errorf("%d of %d block replicas came back with a checksum", verified, want)
	}
	r.event("materialized", "", "%d bytes of replicas in %.2f s, %d replicas of %d blocks verified by checksum; the tiers' write rates allow %.2f s",
		total, r.res.MaterializeSeconds, verified, len(sums), r.res.MaterializeBoundSeconds)
	return nil
}

func countBlocks(perHost [][]wire.Block) int {
	n := 0
	for _, b := range perHost {
		n += len(b)
	}
	return n
}

// materializeBound is the least time the tiers' write rates allow for
// writing the blocks: every host writes its tiers at once, each tier at
// its rate, and the slowest host sets the time.
func materializeBound(t *cluster.Topology, perHost [][]wire.Block) float64 {
	var worst float64
	for h, blocks := range perHost {
		var byTier [cluster.NumTierKinds]int64
		for _, b := range blocks {
			if k, err := cluster.ParseTierKind(b.Tier); err == nil {
				byTier[k] += b.Size
			}
		}
		for k, n := range byTier {
			if tier, ok := t.Hosts[h].Tier(cluster.TierKind(k)); ok && n > 0 && tier.WriteBps > 0 {
				worst = max(worst, float64(n)/tier.WriteBps)
			}
		}
	}
	return worst
}
