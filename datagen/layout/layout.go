package layout

import (
	"fmt"
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement"
	"github.com/racklab/racklab/coordinator/workload"
)

// Options shape the layout.
type Options struct {
	// Placement names the placer (placement.New): hdfs ("" too) or
	// octopus.
	Placement string
	// TierMix is the hdfs placer's share of replicas per tier kind (all
	// zero: HDD); see hdfs.Placer. The octopus placer takes none.
	TierMix [cluster.NumTierKinds]float64
	// BlockSize and Replication, when positive, replace those of the
	// datasets placed.
	BlockSize   int64
	Replication int
	Seed        uint64
}

// ParseTierMix reads a tier mix such as "mem=0.1,ssd=0.3,hdd=0.6" (memory
// for mem too); see placement.ParseTierMix. Shares need not add up to 1:
// they are weights. An empty string is all HDD.
func ParseTierMix(s string) ([cluster.NumTierKinds]float64, error) {
	return placement.ParseTierMix(s)
}

// Stats totals a layout.
type Stats struct {
	Placed, Kept, Empty int // datasets placed now, placed before, left unplaced (empty)
	Blocks              int // blocks placed now
	// ReplicaBytes is the bytes of the replicas placed now, per tier.
	ReplicaBytes [cluster.NumTierKinds]int64
	// OverCapacity lists "host:tier" whose replicas (of all datasets)
	// exceed the tier's capacity.
	OverCapacity []string
}

// Place lays out the unplaced datasets of ds on t. ds is not changed.
func Place(t *cluster.Topology, ds *workload.Datasets, o Options) (*workload.Datasets, Stats, error) {
	var st Stats
	if err := t.Validate(); err != nil {
		return nil, st, fmt.Errorf("topology: %w", err)
	}
	switch {
	case o.BlockSize < 0:
		return nil, st, fmt.Errorf("block size must not be negative (got %d)", o.BlockSize)
	case o.Replication < 0:
		return nil, st, fmt.Errorf("replication must not be negative (got %d)", o.Replication)
	}
	p, err := placement.New(o.Placement, o.TierMix)
	if err != nil {
		return nil, st, err
	}
	if err := ds.Validate(t); err != nil {
		return nil, st, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x2545f4914f6cdd1d))
	out := &workload.Datasets{Datasets: make([]workload.Dataset, len(ds.Datasets))}
	used := map[[2]int]int64{} // (host, tier) → bytes
	for i, d := range ds.Datasets {
		d.Blocks = append([]workload.Block(nil), d.Blocks...)
		if !d.Placed() {
			if o.BlockSize > 0 {
				d.BlockSize = o.BlockSize
			}
			if o.Replication > 0 {
				d.Replication = o.Replication
			}
			// the file's sizes were checked; the block size given here
			// must keep within the same limit before the blocks are made
			if d.Size > 0 && (d.Size-1)/d.BlockSize+1 > workload.MaxTasksPerStage {
				return nil, st, fmt.Errorf("dataset %q: %d bytes in blocks of %d is %d blocks, above the limit of %d per dataset", d.Name, d.Size, d.BlockSize, (d.Size-1)/d.BlockSize+1, workload.MaxTasksPerStage)
			}
			if d.Replication > workload.MaxReplicas {
				return nil, st, fmt.Errorf("dataset %q: replication %d is above the limit of %d", d.Name, d.Replication, workload.MaxReplicas)
			}
			sizes := d.BlockSizes()
			if len(sizes) == 0 {
				st.Empty++
				out.Datasets[i] = d
				continue
			}
			reps, err := p.PlaceDataset(t, rng, &d, sizes)
			if err != nil {
				return nil, st, fmt.Errorf("dataset %q: %w", d.Name, err)
			}
			d.Blocks = make([]workload.Block, len(sizes))
			for b, size := range sizes {
				d.Blocks[b] = workload.Block{Size: size, Replicas: reps[b]}
				for _, r := range reps[b] {
					st.ReplicaBytes[r.Tier] += size
				}
			}
			st.Placed++
			st.Blocks += len(sizes)
		} else {
			st.Kept++
		}
		for _, b := range d.Blocks {
			for _, r := range b.Replicas {
				used[[2]int{int(r.Host), int(r.Tier)}] += b.Size
			}
		}
		out.Datasets[i] = d
	}
	for h := range t.Hosts {
		for _, tr := range t.Hosts[h].Tiers {
			if tr.CapacityBytes > 0 && used[[2]int{h, int(tr.Kind)}] > tr.CapacityBytes {
				st.OverCapacity = append(st.OverCapacity, t.Hosts[h].Name+":"+tr.Kind.String())
			}
		}
	}
	if err := out.Validate(t); err != nil {
		return nil, st, err
	}
	return out, st, nil
}
