package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
)

// background keeps a share of every rack link busy with real, paced TCP
// traffic marked as background (DSCP LE): the first host of each rack
// fetches, over and over, an object served by the first host of the next
// rack, so that every uplink and every downlink carries one flow.
//
// The sender paces (its store reads the object at the flow's rate) and the
// receiver reads as fast as bytes arrive, so that what the receiver has
// counted is what crossed the link, less a few packets in flight. Paced
// by the receiver instead, a flow kept its socket buffers full and its
// count lagged the wire by their fill, which TCP's autotuning changes
// while a run goes on: the kernel's workload count, the link's less the
// background's, then read a few hundred KB below zero in runs that moved
// no workload bytes across racks.
type background struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stores  []*store.Store
	servers []*dataplane.Server
	// payload moved so far, by the rack whose uplink (up) or downlink
	// (down) carried it
	up, down []atomic.Int64
	errMu    sync.Mutex
	err      error
}

const (
	backgroundObject = "background/blob"
	backgroundBytes  = 16 << 20
)

func startBackground(e *Emulator, share float64) (*background, error) {
	racks := e.opt.Topology.Racks
	b := &background{up: make([]atomic.Int64, len(racks)), down: make([]atomic.Int64, len(racks))}
	if len(racks) < 2 || share <= 0 {
		return b, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	first := func(r int) shaping.HostNet { return e.Net.RackHosts(r)[0] }
	for dst := range racks {
		src := (dst + 1) % len(racks)
		bps := share * min(rateOr(racks[src].UplinkBps), rateOr(racks[dst].DownlinkBps))
		if bps <= 0 || bps > 1e12 {
			continue // an unshaped link has no share to take
		}
		// one store a flow: a tier's rate is shared by all its readers
		st, err := store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(e.tierRoot(), "background", fmt.Sprint(dst)), ReadBps: bps}})
		if err != nil {
			b.stop()
			return nil, err
		}
		b.stores = append(b.stores, st)
		if _, err := st.Generate(cluster.Mem, backgroundObject, backgroundBytes, 1); err != nil {
			b.stop()
			return nil, err
		}
		server, client := first(src), first(dst)
		addr := net.JoinHostPort(server.DataIP.String(), "7001")
		var ln net.Listener
		if err := shaping.Do(server.Netns, func() (err error) { ln, err = dataplane.Listen(addr, e.opt.congestion()); return err }); err != nil {
			b.stop()
			return nil, fmt.Errorf("local: background server on %s: %w", server.Name, err)
		}
		srv := dataplane.NewServer(st, func(string, ...any) {})
		b.servers = append(b.servers, srv)
		go srv.Serve(ln)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			err := shaping.Do(client.Netns, func() error { return b.pull(ctx, addr, src, dst, e.opt.congestion()) })
			if err != nil && ctx.Err() == nil {
				b.errMu.Lock()
				b.err = errors.Join(b.err, fmt.Errorf("background %s→%s: %w", server.Name, client.Name, err))
				b.errMu.Unlock()
			}
		}()
	}
	return b, nil
}

func rateOr(bps float64) float64 {
	if bps <= 0 {
		return 1e15
	}
	return bps
}

// pull fetches the object again and again, as fast as its server sends.
func (b *background) pull(ctx context.Context, addr string, src, dst int, congestion string) error {
	client := dataplane.NewClient(5 * time.Second).UseCongestion(congestion)
	defer client.Close()
	g := dataplane.NewGroup(dataplane.Background)
	w := &linkCount{up: &b.up[src], down: &b.down[dst]}
	for ctx.Err() == nil {
		if _, err := client.Fetch(ctx, g, addr, cluster.Mem, backgroundObject, 0, -1, w); err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

// linkCount counts what it is written as payload of both rack links.
type linkCount struct {
	up, down *atomic.Int64
}

func (c *linkCount) Write(p []byte) (int, error) {
	c.up.Add(int64(len(p)))
	c.down.Add(int64(len(p)))
	return len(p), nil
}

func (b *background) stop() error {
	if b.cancel != nil {
		b.cancel()
	}
	for _, s := range b.servers {
		s.Close()
	}
	b.wg.Wait()
	for _, st := range b.stores {
		_ = st.Wipe()
	}
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}
