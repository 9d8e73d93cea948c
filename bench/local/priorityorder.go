package local

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/racklab/racklab/internal/traffic"
	"github.com/racklab/racklab/shaping"
)

// The network's priority order is measured from the kernel's counters of
// the priority leaves of every shaped bottleneck, read every
// prioritySampleEvery. Two bands share a bottleneck in an interval
// between two readings when both sent through it and it was busy: all
// bands together sent at least busyShare of its rate (as `bench check`
// calls a bottleneck filled), so that it, and not the senders, held the
// flows back. Over the intervals a pair of bands shared a bottleneck,
// each band's mean queueing delay is its time-averaged backlog over its
// bytes (Little's law; the backlog averaged over the interval's two
// readings). Bands served in priority
// order show it as a shorter delay of the higher band: strict priority
// serves its packets first whenever they wait. A pair counts once it
// shared the bottleneck for minSharedS and its lower band waited at all
// (a lower band that never queues, such as the ACKs of the other
// direction's flows, got all it asked for: nothing to order). Which band
// a packet went before cannot be seen in counters read 20 times a second
// (the workload's fetches come and go within one interval, and a band's
// queue empties between them); the bands' delays can.
const (
	// PrioritySamplesFile is the readings' file in a run's directory.
	PrioritySamplesFile = "priority_samples.csv"
	prioritySampleEvery = 50 * time.Millisecond
	minSharedS          = 0.5
	busyShare           = 0.90
)

// leafCounters are one bottleneck's priority leaves at one reading.
type leafCounters [shaping.NumPriorities]shaping.ClassCounters

// bandPair is two bands (high before low) at one bottleneck.
type bandPair struct{ bottleneck, high, low int }

// pairSums are what a pair of bands accumulated while sharing one
// bottleneck: seconds shared, and each band's backlog-seconds (bytes·s)
// and bytes sent.
type pairSums struct {
	sharedS             float64
	highWait, lowWait   float64
	highBytes, lowBytes float64
}

// orderTally measures the priority order of a run's bottlenecks.
type orderTally map[bandPair]*pairSums

// add takes one interval of dt seconds between two readings of
// bottleneck k, of rate bps (bytes/s).
func (o orderTally) add(k int, dt, bps float64, before, after leafCounters) {
	if dt <= 0 {
		return
	}
	var sent [shaping.NumPriorities]float64
	total := 0.0
	for b := range before {
		if after[b].Bytes > before[b].Bytes {
			sent[b] = float64(after[b].Bytes - before[b].Bytes)
			total += sent[b]
		}
	}
	if total < busyShare*bps*dt {
		return
	}
	wait := func(b int) float64 { return (float64(before[b].Backlog) + float64(after[b].Backlog)) / 2 * dt }
	for h := range sent {
		if sent[h] == 0 {
			continue
		}
		for l := h + 1; l < len(sent); l++ {
			if sent[l] == 0 {
				continue
			}
			key := bandPair{k, h, l}
			p := o[key]
			if p == nil {
				p = &pairSums{}
				o[key] = p
			}
			p.sharedS += dt
			p.highWait += wait(h)
			p.lowWait += wait(l)
			p.highBytes += sent[h]
			p.lowBytes += sent[l]
		}
	}
}

// result is the seconds pairs of bands shared a bottleneck (the pairs
// that count) and those of the pairs whose higher band waited less per
// byte.
func (o orderTally) result() (sharedS, inOrderS float64) {
	for _, p := range o {
		if p.sharedS < minSharedS || p.lowWait == 0 {
			continue
		}
		sharedS += p.sharedS
		if p.highWait/p.highBytes < p.lowWait/p.lowBytes {
			inOrderS += p.sharedS
		}
	}
	return sharedS, inOrderS
}

// bottleneck is one shaped bottleneck the sampler reads: a direction of
// a rack link or of a host NIC.
type bottleneck struct {
	name string
	bps  float64
}

// bottleneckPair is the two directions of one link, read together.
type bottleneckPair struct {
	a, b bottleneck
	read func(g *shaping.GroupReader) (a, b shaping.GroupCounters, err error)
}

// bottlenecks are the emulated cluster's shaped bottlenecks with priority
// leaves that the coordinator's side can read: rack links (switched mode,
// more than one rack) and host NICs (when shaped). The flat mode's rack
// classes live in the workers' own shapers and are not read here.
func (e *Emulator) bottlenecks() []bottleneckPair {
	if !e.opt.Priorities {
		return nil
	}
	var out []bottleneckPair
	spec := e.Net.Spec
	if spec.Mode == shaping.Switched && len(spec.Racks) > 1 {
		for r, rs := range spec.Racks {
			out = append(out, bottleneckPair{
				bottleneck{fmt.Sprintf("rack%d up", r), rs.UplinkBps}, bottleneck{fmt.Sprintf("rack%d down", r), rs.DownlinkBps},
				func(g *shaping.GroupReader) (a, b shaping.GroupCounters, err error) { return g.RackLink(r) }})
		}
	}
	for i, h := range e.Net.Hosts {
		bps := spec.HostNICBpsOf(h.Rack, h.InRack)
		if bps <= 0 {
			continue
		}
		out = append(out, bottleneckPair{
			bottleneck{h.Name + " nic rx", bps}, bottleneck{h.Name + " nic tx", bps},
			func(g *shaping.GroupReader) (a, b shaping.GroupCounters, err error) { return g.HostNIC(i) }})
	}
	return out
}

// prioritySampler reads every bottleneck's priority leaves while a run
// goes, writes each reading to a CSV file (flushed at every reading, so a
// crash keeps what was measured) and judges each interval as it goes.
type prioritySampler struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	// tally and err belong to the sampling goroutine; Stop reads them
	// once it has ended (done is closed)
	tally orderTally
	err   error
}

// samplePriorityOrder starts reading bs through g every `every` into
// path; Stop ends it and returns what it measured.
func samplePriorityOrder(ctx context.Context, path string, g *shaping.GroupReader, bs []bottleneckPair, every time.Duration) (*prioritySampler, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("local: priority samples: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("local: priority samples: %w", err)
	}
	w := csv.NewWriter(f)
	if err := w.Write([]string{"t_s", "bottleneck", "rate_bytes_s", "band", "bytes", "packets", "qlen", "backlog_bytes"}); err != nil {
		f.Close()
		return nil, err
	}
	s := &prioritySampler{stop: make(chan struct{}), done: make(chan struct{}), tally: orderTally{}}
	go func() {
		defer close(s.done)
		defer f.Close()
		// by bottleneck (2 a pair): the last reading, and when it was taken
		prev := make([]leafCounters, 2*len(bs))
		prevT := make([]time.Time, 2*len(bs))
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			for i, p := range bs {
				a, b, err := p.read(g)
				now := time.Now()
				if err != nil {
					s.fail(fmt.Errorf("local: read %s: %w", p.a.name, err))
					prevT[2*i], prevT[2*i+1] = time.Time{}, time.Time{}
					continue
				}
				for j, cur := range []struct {
					bottleneck
					leaves leafCounters
				}{{p.a, a.Leaves}, {p.b, b.Leaves}} {
					k := 2*i + j
					if !prevT[k].IsZero() {
						s.tally.add(k, now.Sub(prevT[k]).Seconds(), cur.bps, prev[k], cur.leaves)
					}
					prev[k], prevT[k] = cur.leaves, now
					t := strconv.FormatFloat(now.Sub(start).Seconds(), 'f', 3, 64)
					for band := range traffic.NumBands {
						c := cur.leaves[band]
						_ = w.Write([]string{t, cur.name, strconv.FormatFloat(cur.bps, 'f', 0, 64), band.String(),
							strconv.FormatUint(c.Bytes, 10), strconv.FormatUint(c.Packets, 10),
							strconv.FormatUint(uint64(c.Qlen), 10), strconv.FormatUint(uint64(c.Backlog), 10)})
					}
				}
			}
			w.Flush()
			if err := w.Error(); err != nil {
				s.fail(fmt.Errorf("local: priority samples: %w", err))
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s, nil
}

// fail keeps the first error: a bottleneck that cannot be read is
// reported, and the others are still judged.
func (s *prioritySampler) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Stop ends the sampling (once; later calls return the same) and returns
// the seconds pairs of bands shared a bottleneck and those served in
// order (orderTally.result).
func (s *prioritySampler) Stop() (sharedS, inOrderS float64, err error) {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	sharedS, inOrderS = s.tally.result()
	return sharedS, inOrderS, s.err
}
