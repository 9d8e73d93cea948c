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
	"golang.org/x/time/rate"
)

// background keeps a share of every rack link busy with real, paced TCP
// traffic marked as background (DSCP LE): the first host of each rack
// fetches, over and over, an object served by the first host of the next
// rack, so that every uplink and every downlink carries one flow.
type background struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	st      *store.Store
	servers []*dataplane.Server
	// payload moved so far, by the rack whose uplink (up) or downlink
	// (down) carried it
	up, down []atomic.Int64
	errMu    sync.Mutex
	err      error
}

const backgroundObject = "background/blob"

func startBackground(e *Emulator, share float64) (*background, error) {
	racks := e.opt.Topology.Racks
	b := &background{up: make([]atomic.Int64, len(racks)), down: make([]atomic.Int64, len(racks))}
	if len(racks) < 2 || share <= 0 {
		return b, nil
	}
	var err error
	b.st, err = store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(e.tierRoot(), "background")}})
	if err != nil {
		return nil, err
	}
	if _, err := b.st.Generate(cluster.Mem, backgroundObject, 64<<20, 1); err != nil {
		return nil, err
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
		server, client := first(src), first(dst)
		addr := net.JoinHostPort(server.DataIP.String(), "7001")
		var ln net.Listener
		if err := shaping.Do(server.Netns, func() (err error) { ln, err = dataplane.Listen(addr, e.opt.congestion()); return err }); err != nil {
			b.stop()
			return nil, fmt.Errorf("local: background server on %s: %w", server.Name, err)
		}
		srv := dataplane.NewServer(b.st, func(string, ...any) {})
		b.servers = append(b.servers, srv)
		go srv.Serve(ln)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			err := shaping.Do(client.Netns, func() error { return b.pull(ctx, addr, bps, src, dst, e.opt.congestion()) })
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

// pull fetches the object again and again, paced at bps.
func (b *background) pull(ctx context.Context, addr string, bps float64, src, dst int, congestion string) error {
	client := dataplane.NewClient(5 * time.Second).UseCongestion(congestion)
	defer client.Close()
	g := dataplane.NewGroup(dataplane.Background)
	lim := rate.NewLimiter(rate.Limit(bps), max(64<<10, int(bps/50)))
	w := &pacer{ctx: ctx, lim: lim, up: &b.up[src], down: &b.down[dst]}
	for ctx.Err() == nil {
		if _, err := client.Fetch(ctx, g, addr, cluster.Mem, backgroundObject, 0, -1, w); err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

// pacer is a writer that lets bytes through at the limiter's rate, so
// that TCP's flow control holds the sender to it.
type pacer struct {
	ctx      context.Context
	lim      *rate.Limiter
	up, down *atomic.Int64
}

func (p *pacer) Write(b []byte) (int, error) {
	for off := 0; off < len(b); {
		n := min(len(b)-off, p.lim.Burst())
		if err := p.lim.WaitN(p.ctx, n); err != nil {
			return off, err
		}
		off += n
		p.up.Add(int64(n))
		p.down.Add(int64(n))
	}
	return len(b), nil
}

func (b *background) stop() error {
	if b.cancel != nil {
		b.cancel()
	}
	for _, s := range b.servers {
		s.Close()
	}
	b.wg.Wait()
	if b.st != nil {
		_ = b.st.Wipe()
	}
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}
