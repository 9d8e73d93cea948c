package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/internal/traffic"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
	"golang.org/x/sys/unix"
)

// Options configure a check.
type Options struct {
	// Prefix names the namespaces and links (1-6 of [a-z0-9]).
	Prefix   string
	Mode     shaping.Mode
	Topology *cluster.Topology // at least 2 racks of at least 2 hosts
	// Dir is a new directory for the tiers' tmpfs; it is removed.
	Dir string
	// Measure is how long each rate is measured (default 2 s).
	Measure time.Duration
	// OnLine, if set, gets each line as soon as it is measured.
	OnLine func(Line)
	Logf   func(format string, args ...any)
}

// Line is the outcome of one check.
type Line struct {
	Name   string
	Passed bool
	Detail string
}

func (l Line) String() string {
	verdict := "FAIL"
	if l.Passed {
		verdict = "ok  "
	}
	return fmt.Sprintf("%s %-36s %s", verdict, l.Name, l.Detail)
}

// Thresholds of the checks.
const (
	// a shaped rate is measured within these fractions of the configured
	// one (HTB counts what it shapes: frames with their headers)
	rateLow, rateHigh = 0.90, 1.05
	// a tier reads within these fractions of its configured rate
	tierLow, tierHigh = 0.90, 1.10
	// the higher priority's share of a bottleneck while both send
	highShare = 0.90
	// the lower priority keeps at least this fraction of its guarantee
	// (measurement slack)
	lowKept = 0.8
	warmup  = 300 * time.Millisecond
)

// Run brings up the cluster of opt, runs every check, and takes the
// cluster down again, also when a check fails or ctx is cancelled.
func Run(ctx context.Context, opt Options) (lines []Line, err error) {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Measure <= 0 {
		opt.Measure = 2 * time.Second
	}
	topo := opt.Topology
	if topo == nil {
		return nil, errors.New("check: no topology")
	}
	if len(topo.Racks) < 2 || len(topo.Racks[0].Hosts) < 2 || len(topo.Racks[1].Hosts) < 2 {
		return nil, errors.New("check: the cluster needs at least 2 racks of at least 2 hosts")
	}
	// held until everything is removed: no other cluster of this prefix
	// can start, or clean this one up, meanwhile
	lock, err := shaping.LockPrefix(opt.Prefix)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	defer lock.Release()
	if err := local.Cleanup(opt.Prefix); err != nil {
		return nil, fmt.Errorf("check: leftovers of an earlier cluster %s: %w", opt.Prefix, err)
	}
	e := &env{opt: opt, ctx: ctx}
	defer func() { err = errors.Join(err, e.down()) }()
	if err := e.up(); err != nil {
		return nil, err
	}
	for _, c := range e.checks() {
		if ctx.Err() != nil {
			return lines, ctx.Err()
		}
		l, err := c()
		if err != nil {
			return lines, err
		}
		if opt.OnLine != nil {
			opt.OnLine(l)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// Passed counts the lines that passed.
func Passed(lines []Line) int {
	n := 0
	for _, l := range lines {
		if l.Passed {
			n++
		}
	}
	return n
}

// env is a cluster under check: its network, the host shapers of flat
// mode (what each worker installs), a store and a data server per host.
type env struct {
	opt     Options
	ctx     context.Context
	net     *shaping.Cluster
	shapers []*shaping.HostShaper // flat mode, by host
	st      *store.Store
	mounted bool
	servers []*dataplane.Server
	addrs   []string // data server of each host
}

const blob = "check/blob"

func (e *env) up() error {
	opt := e.opt
	spec := local.NetworkSpec(local.Options{Prefix: opt.Prefix, Mode: opt.Mode, Topology: opt.Topology, Priorities: true, ShapeHostNICs: true})
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return err
	}
	// the same tmpfs name as bench local's, so that its cleanup finds it
	if err := unix.Mount("racklab-"+opt.Prefix, opt.Dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("check: mount a tmpfs at %s: %w", opt.Dir, err)
	}
	e.mounted = true
	opt.Logf("check: bringing up %d racks (%s mode, prefix %s)", len(spec.Racks), opt.Mode, opt.Prefix)
	var err error
	if e.net, err = shaping.Up(spec); err != nil {
		return err
	}
	if opt.Mode == shaping.Flat {
		if err := e.shapeHosts(); err != nil {
			return err
		}
	}
	return e.serve()
}

// serve starts the flows' source on e.net: a store in opt.Dir with the
// blob, and a data server on every host.
func (e *env) serve() error {
	var err error
	// an unpaced memory tier
	if e.st, err = store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(e.opt.Dir, "flows")}}); err != nil {
		return err
	}
	if _, err := e.st.Generate(cluster.Mem, blob, 64<<20, 1); err != nil {
		return err
	}
	for _, h := range e.net.Hosts {
		addr := net.JoinHostPort(h.DataIP.String(), "7003")
		var ln net.Listener
		if err := shaping.Do(h.Netns, func() (err error) { ln, err = dataplane.Listen(addr, dataplane.DefaultCongestion); return err }); err != nil {
			return fmt.Errorf("check: data server on %s: %w", h.Name, err)
		}
		srv := dataplane.NewServer(e.st, func(string, ...any) {})
		e.servers = append(e.servers, srv)
		e.addrs = append(e.addrs, addr)
		go func() { _ = srv.Serve(ln) }()
	}
	return nil
}

// shapeHosts installs on every host what its worker installs in flat
// mode: a class per other rack at the host's equal share of its rack's
// uplink, with priority leaves.
func (e *env) shapeHosts() error {
	topo := e.opt.Topology
	for _, h := range e.net.Hosts {
		s, err := shaping.NewHostShaperIn(h.Netns, h.DataDev)
		if err != nil {
			return err
		}
		e.shapers = append(e.shapers, s)
		if err := s.SetPriorities(true); err != nil {
			return err
		}
		for r := range topo.Racks {
			if r == h.Rack {
				continue
			}
			if err := s.SetRack(r, e.hostShare(h.Rack), e.net.RackDataIPs(r)); err != nil {
				return err
			}
		}
	}
	return nil
}

// hostShare is a host's flat-mode rate toward other racks (bench local's
// static equal split of the rack's uplink).
func (e *env) hostShare(r int) float64 {
	rack := e.opt.Topology.Racks[r]
	return rack.UplinkBps / float64(len(rack.Hosts))
}

func (e *env) down() error {
	var errs []error
	for _, s := range e.servers {
		s.Close()
	}
	for _, s := range e.shapers {
		errs = append(errs, s.Close())
	}
	if e.net != nil {
		errs = append(errs, e.net.Down())
	}
	if e.mounted {
		if err := unix.Unmount(e.opt.Dir, unix.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("check: unmount %s: %w", e.opt.Dir, err))
		}
	}
	errs = append(errs, local.Cleanup(e.opt.Prefix), os.RemoveAll(e.opt.Dir))
	return errors.Join(errs...)
}

// host returns the index in Hosts of rack r's host h.
func (e *env) host(r, h int) int {
	for i, hn := range e.net.Hosts {
		if hn.Rack == r {
			if h == 0 {
				return i
			}
			h--
		}
	}
	return -1
}

// flow is a bulk transfer: dst fetches the blob from src's data server
// over and over, its sockets marked with a DSCP, until stopped.
type flow struct {
	cancel context.CancelFunc
	done   chan struct{}
	got    atomic.Int64
	err    error
}

func (e *env) startFlow(src, dst int, dscp uint8) (*flow, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	f := &flow{cancel: cancel, done: make(chan struct{})}
	g := dataplane.NewGroup(traffic.Input)
	if err := g.SetDSCP(dscp); err != nil {
		cancel()
		return nil, err
	}
	addr := e.addrs[src]
	var wg sync.WaitGroup
	var errMu sync.Mutex
	for range connsPerFlow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// the workers' congestion control, not this machine's default
			client := dataplane.NewClient(5 * time.Second).UseCongestion(dataplane.DefaultCongestion)
			defer client.Close()
			err := shaping.Do(e.net.Hosts[dst].Netns, func() error {
				for ctx.Err() == nil {
					if _, err := client.Fetch(ctx, g, addr, cluster.Mem, blob, 0, -1, counter{&f.got}); err != nil && ctx.Err() == nil {
						return err
					}
				}
				return nil
			})
			errMu.Lock()
			f.err = errors.Join(f.err, err)
			errMu.Unlock()
		}()
	}
	go func() { wg.Wait(); close(f.done) }()
	return f, nil
}

// connsPerFlow is the parallel connections of a flow (Hadoop's reducers
// fetch with 5): a busy machine that is late to refill one socket still
// keeps the flow's queue at the bottleneck from running dry.
const connsPerFlow = 5

func (f *flow) stop() error {
	f.cancel()
	<-f.done
	return f.err
}

type counter struct{ n *atomic.Int64 }

func (c counter) Write(b []byte) (int, error) { c.n.Add(int64(len(b))); return len(b), nil }

// measure runs flows, waits out the warm-up, and returns what read()
// counted over opt.Measure, as bytes per second.
func (e *env) measure(flows [][3]int, read func() ([]uint64, error)) ([]float64, error) {
	var fs []*flow
	stopAll := func() error {
		var errs []error
		for _, f := range fs {
			errs = append(errs, f.stop())
		}
		return errors.Join(errs...)
	}
	for _, fl := range flows {
		f, err := e.startFlow(fl[0], fl[1], uint8(fl[2]))
		if err != nil {
			return nil, errors.Join(err, stopAll())
		}
		fs = append(fs, f)
	}
	if err := sleep(e.ctx, warmup); err != nil {
		return nil, errors.Join(err, stopAll())
	}
	before, err := read()
	if err != nil {
		return nil, errors.Join(err, stopAll())
	}
	t0 := time.Now()
	if err := sleep(e.ctx, e.opt.Measure); err != nil {
		return nil, errors.Join(err, stopAll())
	}
	after, err := read()
	dt := time.Since(t0).Seconds()
	if err := errors.Join(err, stopAll()); err != nil {
		return nil, fmt.Errorf("check: flows: %w", err)
	}
	out := make([]float64, len(after))
	for i := range after {
		out[i] = float64(after[i]-before[i]) / dt
	}
	return out, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var job0 = int(traffic.PriorityDSCP(0))

func mbps(bps float64) string { return fmt.Sprintf("%.1f MB/s", bps/1e6) }

func rateLine(name string, got, want float64, how string) Line {
	ratio := got / want
	return Line{Name: name, Passed: ratio >= rateLow && ratio <= rateHigh,
		Detail: fmt.Sprintf("%s of %s configured (%.1f%%; %s)", mbps(got), mbps(want), 100*ratio, how)}
}

func (e *env) checks() []func() (Line, error) {
	return []func() (Line, error){e.rackRate, e.nicReceiveRate, e.nicSendRate, e.tierRates, e.rackPriority, e.nicPriority, e.nicSendPriority}
}

// rackLink is the link that bounds traffic from rack 0 to rack 1 in
// switched mode, where the rack checks measure it.
type rackLink struct {
	name, class string  // for the check's line: "rack 0 uplink", its device "r0-up"
	bps         float64 // its configured rate
	counters    func() (shaping.GroupCounters, error)
}

// rackBottleneck is rack 0's uplink or, when slower, rack 1's downlink:
// measured anywhere else, the flows could never fill the rate they are
// held to (and a slower downlink's counters are the ones that show its
// priority leaves choosing).
func (e *env) rackBottleneck() rackLink {
	racks := e.opt.Topology.Racks
	if down := racks[1].DownlinkBps; down < racks[0].UplinkBps {
		return rackLink{name: "rack 1 downlink", class: "r1-down", bps: down,
			counters: func() (shaping.GroupCounters, error) {
				_, g, err := e.net.RackLinkGroupCounters(1)
				return g, err
			}}
	}
	return rackLink{name: "rack 0 uplink", class: "r0-up", bps: racks[0].UplinkBps,
		counters: func() (shaping.GroupCounters, error) {
			g, _, err := e.net.RackLinkGroupCounters(0)
			return g, err
		}}
}

// rackRate: every host of rack 0 sends to one of rack 1; the kernel's
// counters of the rack link that bounds them (switched) or of rack 0's
// hosts' rack-1 classes (flat) give the rate.
func (e *env) rackRate() (Line, error) {
	topo := e.opt.Topology
	n := len(topo.Racks[0].Hosts)
	var flows [][3]int
	for h := range n {
		flows = append(flows, [3]int{e.host(0, h), e.host(1, h%len(topo.Racks[1].Hosts)), job0})
	}
	if e.opt.Mode == shaping.Switched {
		b := e.rackBottleneck()
		got, err := e.measure(flows, func() ([]uint64, error) {
			g, err := b.counters()
			return []uint64{g.Total.Bytes}, err
		})
		if err != nil {
			return Line{}, err
		}
		return rateLine("shaped rack rate ("+b.name+")", got[0], b.bps, "kernel: HTB class of "+b.class), nil
	}
	want := e.hostShare(0) * float64(n)
	got, err := e.measure(flows, func() ([]uint64, error) {
		var sum uint64
		for h := range n {
			cs, err := e.shapers[e.host(0, h)].Counters()
			if err != nil {
				return nil, err
			}
			sum += cs[1].Bytes
		}
		return []uint64{sum}, nil
	})
	if err != nil {
		return Line{}, err
	}
	return rateLine("shaped rack rate (rack 0 to rack 1)", got[0], want, fmt.Sprintf("kernel: HTB rack classes of rack 0's %d hosts", n)), nil
}

func (e *env) nicBps(i int) float64 { return e.opt.Topology.Hosts[i].NICBps }

// nicReceiveRate: a rack-mate sends to r0h0 (the rack's other hosts,
// so that a sender's own NIC is not the limit); the fabric port toward
// r0h0 gives the rate.
func (e *env) nicReceiveRate() (Line, error) {
	dst := e.host(0, 0)
	var flows [][3]int
	for h := 1; h < len(e.opt.Topology.Racks[0].Hosts); h++ {
		flows = append(flows, [3]int{e.host(0, h), dst, job0})
	}
	got, err := e.measure(flows, func() ([]uint64, error) {
		rx, _, err := e.net.HostNICCounters(dst)
		return []uint64{rx.Total.Bytes}, err
	})
	if err != nil {
		return Line{}, err
	}
	return rateLine("shaped host NIC rate (r0h0 receive)", got[0], e.nicBps(dst), "kernel: HTB class of the fabric port"), nil
}

// nicSendRate: r0h0 sends to its rack-mates and to the other rack; the
// IFB its sending passes through in the fabric gives the rate.
func (e *env) nicSendRate() (Line, error) {
	src := e.host(0, 0)
	var flows [][3]int
	for h := 1; h < len(e.opt.Topology.Racks[0].Hosts); h++ {
		flows = append(flows, [3]int{src, e.host(0, h), job0})
	}
	flows = append(flows, [3]int{src, e.host(1, 0), job0})
	got, err := e.measure(flows, func() ([]uint64, error) {
		_, tx, err := e.net.HostNICCounters(src)
		return []uint64{tx.Total.Bytes}, err
	})
	if err != nil {
		return Line{}, err
	}
	return rateLine("shaped host NIC rate (r0h0 send)", got[0], e.nicBps(src), "kernel: HTB class of the port's IFB"), nil
}

// tierRates reads an object from each tier of r0h0, through a store
// paced as a worker's is, for opt.Measure each.
func (e *env) tierRates() (Line, error) {
	h := e.opt.Topology.Hosts[0]
	var cfgs []store.TierConfig
	for _, t := range h.Tiers {
		cfgs = append(cfgs, store.TierConfig{Kind: t.Kind, Dir: filepath.Join(e.opt.Dir, "tiers", t.Kind.String()), ReadBps: t.ReadBps})
	}
	st, err := store.Open(cfgs)
	if err != nil {
		return Line{}, err
	}
	defer func() { _ = st.Wipe() }()
	var parts []string
	passed := true
	for _, t := range h.Tiers {
		if t.ReadBps <= 0 {
			parts = append(parts, t.Kind.String()+" unpaced")
			continue
		}
		size := int64(min(64<<20, max(1<<20, t.ReadBps/8)))
		if _, err := st.Generate(t.Kind, blob, size, 1); err != nil {
			return Line{}, err
		}
		got, err := readRate(e.ctx, st, t.Kind, size, e.opt.Measure/2)
		if err != nil {
			return Line{}, err
		}
		if err := st.Remove(t.Kind, blob); err != nil {
			return Line{}, err
		}
		part := fmt.Sprintf("%s %s of %s", t.Kind, mbps(got), mbps(t.ReadBps))
		// never faster than configured; as fast unless this machine
		// cannot read that fast at all, which the same object read
		// unpaced tells
		floor := t.ReadBps
		if got < tierLow*floor {
			ceiling, err := unpacedRate(e.ctx, filepath.Join(e.opt.Dir, "tiers", "unpaced"), t.Kind, size, e.opt.Measure/2)
			if err != nil {
				return Line{}, err
			}
			if ceiling < floor {
				floor = ceiling
				part += fmt.Sprintf(" (this machine reads %s unpaced)", mbps(ceiling))
			}
		}
		if got < tierLow*floor || got > tierHigh*t.ReadBps {
			passed = false
			part += " (!)"
		}
		parts = append(parts, part)
	}
	return Line{Name: "tier read rates (r0h0)", Passed: passed, Detail: strings.Join(parts, ", ")}, nil
}

// unpacedRate is readRate from an unpaced tier of kind k in dir: the
// fastest this machine reads such an object.
func unpacedRate(ctx context.Context, dir string, k cluster.TierKind, size int64, d time.Duration) (float64, error) {
	st, err := store.Open([]store.TierConfig{{Kind: k, Dir: dir}})
	if err != nil {
		return 0, err
	}
	defer func() { _ = st.Wipe() }()
	if _, err := st.Generate(k, blob, size, 1); err != nil {
		return 0, err
	}
	return readRate(ctx, st, k, size, d)
}

// readRate reads an object again and again for d, with readersPerTier
// readers at once, and returns the tier's total rate.
func readRate(ctx context.Context, st *store.Store, k cluster.TierKind, size int64, d time.Duration) (float64, error) {
	t0 := time.Now()
	var n atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, readersPerTier)
	for i := range readersPerTier {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(t0) < d && ctx.Err() == nil {
				rc, _, err := st.OpenRange(k, blob, 0, size)
				if err != nil {
					errs[i] = err
					return
				}
				m, err := io.Copy(io.Discard, rc)
				rc.Close()
				n.Add(m)
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return 0, err
	}
	return float64(n.Load()) / time.Since(t0).Seconds(), nil
}

// readersPerTier read a tier at once, as a worker's slots do: a reader
// late to wake on a busy machine leaves the tier's rate to the others.
const readersPerTier = 5

// priorityLine checks two flows' leaf rates through one bottleneck of
// rate bps: the high one takes highShare while both send, the low one
// keeps lowKept of its guarantee.
func priorityLine(name string, hi, lo, bps float64, hiBand, loBand traffic.Band) Line {
	share := hi / (hi + lo)
	guarantee := shaping.LeafGuarantee(bps)
	ok := share >= highShare && lo >= lowKept*guarantee
	detail := fmt.Sprintf("%s %s (%.1f%%), %s %s (guarantee %s) of %s",
		hiBand, mbps(hi), 100*share, loBand, mbps(lo), mbps(guarantee), mbps(bps))
	if !saturated(hi, lo, bps) {
		ok = false
		detail += "; the flows never filled the bottleneck (a busy machine?)"
	}
	return Line{Name: name, Passed: ok, Detail: detail}
}

// saturated says whether two flows filled a bottleneck: only then does
// the high one have to take it all. A busy machine may leave a sender
// unable to; the priority checks measure again, up to priorityTries times.
func saturated(hi, lo, bps float64) bool { return hi+lo >= rateLow*bps }

const priorityTries = 3

// measurePriority measures two flows' leaf rates until they fill the
// bottleneck of rate bps, or priorityTries times.
func (e *env) measurePriority(flows [][3]int, bps float64, read func() ([]uint64, error)) (got []float64, err error) {
	for range priorityTries {
		if got, err = e.measure(flows, read); err != nil || saturated(got[0], got[1], bps) {
			return got, err
		}
		e.opt.Logf("check: the flows filled %.0f%% of the bottleneck: measuring again", 100*(got[0]+got[1])/bps)
	}
	return got, nil
}

var (
	hiBand = traffic.PriorityBand(0)
	loBand = traffic.PriorityBand(3)
)

// rackPriority: a priority-0 and a priority-3 flow from rack 0 to rack 1,
// through rack 0's uplink (switched, from two hosts) or through one
// host's rack-1 class (flat).
func (e *env) rackPriority() (Line, error) {
	hi, lo := int(hiBand.DSCP()), int(loBand.DSCP())
	if e.opt.Mode == shaping.Switched {
		// the rack's last host sends the low flow, every other host a high
		// one, so that the high priority alone can fill an uplink faster
		// than one NIC
		n := len(e.opt.Topology.Racks[0].Hosts)
		dsts := len(e.opt.Topology.Racks[1].Hosts)
		var flows [][3]int
		for h := range n {
			dscp := hi
			if h == n-1 {
				dscp = lo
			}
			flows = append(flows, [3]int{e.host(0, h), e.host(1, h%dsts), dscp})
		}
		// the bottleneck's leaves are the ones that choose between the flows
		b := e.rackBottleneck()
		name := "priority order (" + b.name + ")"
		var highNICs float64
		for h := range n - 1 {
			highNICs += e.nicBps(e.host(0, h))
		}
		if highNICs < rateLow*b.bps {
			return Line{Name: name, Detail: fmt.Sprintf("not checkable: the %s (%s) is faster than the NICs of the %d hosts with high flows (%s); use more hosts per rack or oversubscription",
				b.name, mbps(b.bps), n-1, mbps(highNICs))}, nil
		}
		got, err := e.measurePriority(flows, b.bps, func() ([]uint64, error) {
			g, err := b.counters()
			return []uint64{g.Leaves[hiBand].Bytes, g.Leaves[loBand].Bytes}, err
		})
		if err != nil {
			return Line{}, err
		}
		return priorityLine(name, got[0], got[1], b.bps, hiBand, loBand), nil
	}
	src := e.host(0, 0)
	flows := [][3]int{{src, e.host(1, 0), hi}, {src, e.host(1, 1), lo}}
	got, err := e.measurePriority(flows, e.hostShare(0), func() ([]uint64, error) {
		ls, err := e.shapers[src].PriorityCounters(1)
		return []uint64{ls[hiBand].Bytes, ls[loBand].Bytes}, err
	})
	if err != nil {
		return Line{}, err
	}
	return priorityLine("priority order (r0h0's rack-1 class)", got[0], got[1], e.hostShare(0), hiBand, loBand), nil
}

// nicPriority: a priority-0 flow from a rack-mate and a priority-3 flow
// from the other rack into r0h0: its NIC's receive side is the
// bottleneck.
func (e *env) nicPriority() (Line, error) {
	dst := e.host(0, 0)
	flows := [][3]int{{e.host(0, 1), dst, int(hiBand.DSCP())}, {e.host(1, 0), dst, int(loBand.DSCP())}}
	got, err := e.measurePriority(flows, e.nicBps(dst), func() ([]uint64, error) {
		rx, _, err := e.net.HostNICCounters(dst)
		return []uint64{rx.Leaves[hiBand].Bytes, rx.Leaves[loBand].Bytes}, err
	})
	if err != nil {
		return Line{}, err
	}
	return priorityLine("priority order (r0h0 NIC receive)", got[0], got[1], e.nicBps(dst), hiBand, loBand), nil
}

// nicSendPriority: r0h0 sends a priority-0 flow to a rack-mate and a
// priority-3 flow to the other rack: its NIC's sending side is the
// bottleneck (the mappers' competition).
func (e *env) nicSendPriority() (Line, error) {
	src := e.host(0, 0)
	flows := [][3]int{{src, e.host(0, 1), int(hiBand.DSCP())}, {src, e.host(1, 0), int(loBand.DSCP())}}
	got, err := e.measurePriority(flows, e.nicBps(src), func() ([]uint64, error) {
		_, tx, err := e.net.HostNICCounters(src)
		return []uint64{tx.Leaves[hiBand].Bytes, tx.Leaves[loBand].Bytes}, err
	})
	if err != nil {
		return Line{}, err
	}
	return priorityLine("priority order (r0h0 NIC send)", got[0], got[1], e.nicBps(src), hiBand, loBand), nil
}
