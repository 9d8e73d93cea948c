package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/shaping/share"
	"github.com/racklab/racklab/worker/members"
	"github.com/spf13/pflag"
)

// shaper keeps one HTB class per other rack on the data NIC, each at the
// host's static share of the rack uplink (or, with demand sharing, at the
// share the sharer last computed), with u32 filters on the data addresses
// of that rack's workers as memberlist reports them.
type shaper struct {
	hs   *shaping.HostShaper
	rack string
	rate float64
	// sharing, if on
	sharer *sharer

	mu sync.Mutex // the fields below; the sharer runs beside the worker
	// rates are the rates demand sharing set, by class; a class not in it
	// is at rate
	rates map[int]float64
	// ceils are what each class may borrow up to from the host class
	// (demand sharing), and hostRate that class's rate, -1 before set
	ceils, rxCeils       map[int]float64
	hostRate, rxHostRate float64
	// rx, with demand sharing, shapes what the host receives: one class
	// per source rack (the same numbers), at rxRates or else rxRate
	rx      *shaping.HostShaper
	rxRate  float64
	rxRates map[int]float64
	// index numbers the racks as the coordinator's topology does, so that
	// class n means rack n on every host; racks it does not name get
	// numbers after them, in order first seen.
	index map[string]int
	names []string
	// applied is the peer set the filters hold, to skip no-op updates.
	applied string
}

// newShaper shapes dev; pooled (for demand sharing) puts the rack
// classes under one host class they may borrow from (shaping's SetPooled).
func newShaper(dev, rack string, rate float64, prios, pooled bool) (*shaper, error) {
	hs, err := shaping.NewHostShaper(dev)
	if err != nil {
		return nil, err
	}
	if err := hs.SetPriorities(prios); err != nil {
		return nil, errors.Join(err, hs.Close())
	}
	if err := hs.SetPooled(pooled); err != nil {
		return nil, errors.Join(err, hs.Close())
	}
	return &shaper{hs: hs, rack: rack, rate: rate, index: map[string]int{}, rates: map[int]float64{}, rxRates: map[int]float64{},
		ceils: map[int]float64{}, rxCeils: map[int]float64{}}, nil
}

func (s *shaper) setRacks(racks []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range racks {
		s.index[r] = i
	}
	s.names = append([]string(nil), racks...)
}

// rackIndex returns the class number of rack r, giving a rack the
// topology did not name the next free one. Call with s.mu held.
func (s *shaper) rackIndex(r string) int {
	i, ok := s.index[r]
	if !ok {
		i = len(s.names)
		s.index[r] = i
		s.names = append(s.names, r)
	}
	return i
}

// rateOf is class i's current rate. Call with s.mu held.
func (s *shaper) rateOf(i int) float64 {
	if r, ok := s.rates[i]; ok {
		return r
	}
	return s.rate
}

// rxRateOf is receive class i's current rate. Call with s.mu held.
func (s *shaper) rxRateOf(i int) float64 {
	if r, ok := s.rxRates[i]; ok {
		return r
	}
	return s.rxRate
}

func (s *shaper) update(peers []members.Peer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sig strings.Builder
	for _, p := range peers {
		fmt.Fprintf(&sig, "%s/%s/%s;", p.Name, p.Rack, p.DataAddr)
	}
	if sig.String() == s.applied {
		return nil
	}
	byRack := map[string][]net.IP{}
	for _, p := range peers {
		if p.Role != members.RoleWorker || p.Rack == s.rack {
			continue
		}
		if ip := p.DataIP(); ip != nil {
			byRack[p.Rack] = append(byRack[p.Rack], ip)
		}
	}
	racks := make([]string, 0, len(byRack))
	for r := range byRack {
		racks = append(racks, r)
	}
	for _, r := range s.names {
		if _, ok := byRack[r]; !ok && r != s.rack {
			racks = append(racks, r) // every peer of a known rack is gone: empty its filters
		}
	}
	sort.Strings(racks)
	for _, r := range racks {
		i := s.rackIndex(r)
		if err := s.hs.SetRack(i, s.rateOf(i), byRack[r]); err != nil {
			return err
		}
		if s.rx != nil {
			if err := s.rx.SetRack(i, s.rxRateOf(i), byRack[r]); err != nil {
				return err
			}
		}
	}
	s.applied = sig.String()
	return nil
}

func (s *shaper) counters() map[string]wire.Counter {
	cs, err := s.hs.Counters()
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]wire.Counter, len(cs))
	for i, c := range cs {
		if i >= 0 && i < len(s.names) {
			out[s.names[i]] = wire.Counter{Bytes: c.Bytes, Packets: c.Packets}
		}
	}
	return out
}

func (s *shaper) close() error {
	var err error
	if s.sharer != nil {
		s.sharer.stop()
	}
	if s.rx != nil {
		err = s.rx.Close()
	}
	return errors.Join(err, s.hs.Close())
}

// ShareConfig turns on demand sharing of rack links (flat mode, where each
// worker shapes its own traffic): every ShareInterval each worker measures
// its demand toward every other rack, sends it to the other workers over
// memberlist, and sets each of its rack classes to its max-min fair share
// (package shaping/share) of its rack's uplink, the destination rack's
// downlink and its NIC, computed from everyone's demand. Every worker
// computes the same shares from the same messages, so the hosts of a rack
// together stay within its links without a coordinator in the loop.
//
// On each side a host's rack classes are pooled (shaping's SetPooled):
// a busy class may borrow what the host's other busy classes leave
// unused, so that a class whose flows pause does not strand its share
// until the next exchange. What the demands leave of a link goes to the
// flows that want something (share.Input.Spare). With priority leaves
// (--shape-priorities), each worker also sends its demand by band, from
// its leaves' counters, and the shares follow the bands across hosts
// (share.Host.Bands): without, a high-priority flow on one host and a
// low-priority one on its rack-mate split the uplink in half (measured:
// 12.5 and 12.5 MB/s of 25), where a switch's leaves give the high one
// nearly all (with bands: 23.2 and 0.5 MB/s).
//
// The receive side is shaped too, as a safety net, so that a rack's
// downlink holds whoever sends (a sender that is not a worker, or one
// whose shares lag): the data NIC's ingress goes through an IFB with one
// class per source rack (shaping.NewIngressShaper), whose demand is
// measured and sent the same way, and whose rates are the same
// computation mirrored — a host's share, per source rack, of its rack's
// downlink, the source rack's uplink and its NIC — but with rxHeadroom
// on the demand and rxSlack on the rate, each class free to borrow the
// host's whole receive share: it is not to hold back what the senders'
// own shares let through.
type ShareConfig struct {
	// This host's rack's links and its NIC's sending rate, in bytes per
	// second (the rates of the coordinator's topology); each worker
	// sends its own with its demand, so a rack's downlink is known to
	// the others. 0 means not limited. Where the hosts of a rack say
	// different things, the smallest rate holds.
	UplinkBps, DownlinkBps, NICBps float64
}

// Demand sharing's timing.
const (
	// ShareInterval is how often a worker measures and sends its demand
	// and recomputes its shares.
	ShareInterval = 100 * time.Millisecond
	// a host's demand not renewed for this long counts as none (the
	// host died, or its messages are being lost)
	demandStaleAfter = 10 * ShareInterval
)

// The demand estimator. Over the last interval a class sent sent bytes/s
// at a class rate of rate. It wants more than it has (it is Backlogged) if
// packets are waiting in its queue, or if it sent at least nearFull of its
// rate (a sender held by the class, whose queue happened to be empty when
// read). Otherwise something else holds it (the application, the
// receiver), and it wants what it sent plus headroom: enough that a sender
// that speeds up reaches nearFull of its new rate, and is then Backlogged,
// within an interval or two; headroom×nearFull > 1 keeps a steady sender
// that is not held by its class from being classed as backlogged.
const (
	nearFull = 0.9
	headroom = 1.2
)

// estimateDemand returns a class's demand in bytes/s (share.Backlogged if
// it wants all it can get) from its counters at the start (prev) and end
// (cur) of an interval of dt seconds and its rate over it (0: unshaped).
func estimateDemand(prev, cur shaping.ClassCounters, dt, rate float64) float64 {
	if dt <= 0 || cur.Bytes < prev.Bytes {
		return 0 // no interval yet, or a class made anew
	}
	sent := float64(cur.Bytes-prev.Bytes) / dt
	if cur.Backlog > 0 || (rate > 0 && sent >= nearFull*rate) {
		return share.Backlogged
	}
	return headroom * sent
}

// demandMsg is what a worker sends the others every ShareInterval.
type demandMsg struct {
	Kind string `json:"k"` // demandKind
	Host string `json:"h"`
	Rack string `json:"r"`
	// Seq orders one host's messages: an older one arriving late is
	// dropped. Epoch is when the sending process started sharing: a
	// worker restarted under its name counts Seq from 1 again, and its
	// new epoch says its messages are the newest (they were dropped
	// until its Seq passed its old self's).
	Seq         uint64  `json:"s"`
	Epoch       int64   `json:"e,omitempty"`
	UplinkBps   float64 `json:"u,omitempty"`
	DownlinkBps float64 `json:"d,omitempty"`
	NICBps      float64 `json:"n,omitempty"`
	// Demand by destination rack in bytes/s, -1 for backlogged; racks
	// not listed: none.
	Demand map[string]float64 `json:"w,omitempty"`
	// RxDemand is the receive side's, by source rack.
	RxDemand map[string]float64 `json:"x,omitempty"`
	// Bands and RxBands split Demand and RxDemand by priority band (band
	// 0 the highest, -1 backlogged) when the classes have priority
	// leaves, so that the shares across hosts follow the priorities as
	// a switch's priority leaves would (share.Host.Bands).
	Bands   map[string][]float64 `json:"b,omitempty"`
	RxBands map[string][]float64 `json:"y,omitempty"`
}

const demandKind = "demand"

// check refuses a demand message no worker sends: rates that are not
// finite and ≥ 0, demands that are neither that nor -1 (backlogged),
// empty rack names, more racks than an emulated or lab cluster has
// (each named rack becomes a class on every worker). A peer's bad value
// would otherwise stop every worker's sharing (share.Compute refuses
// its input) or grow their classes without bound.
func (m *demandMsg) check() error {
	for _, r := range []struct {
		what string
		v    float64
	}{{"uplink", m.UplinkBps}, {"downlink", m.DownlinkBps}, {"NIC", m.NICBps}} {
		if !(r.v >= 0) || math.IsInf(r.v, 0) {
			return fmt.Errorf("%s rate %v", r.what, r.v)
		}
	}
	if m.Rack == "" {
		return errors.New("no rack")
	}
	// on the wire a backlogged demand is -1 (JSON has no +Inf)
	demand := func(v float64) bool { return v == -1 || v >= 0 && !math.IsInf(v, 0) }
	racks := map[string]bool{m.Rack: true}
	for _, d := range []map[string]float64{m.Demand, m.RxDemand} {
		for r, v := range d {
			if r == "" || !demand(v) {
				return fmt.Errorf("demand %v toward rack %q", v, r)
			}
			racks[r] = true
		}
	}
	for _, b := range []map[string][]float64{m.Bands, m.RxBands} {
		for r, vs := range b {
			if r == "" || len(vs) > int(shaping.NumPriorities) {
				return fmt.Errorf("%d bands toward rack %q", len(vs), r)
			}
			for _, v := range vs {
				if !demand(v) {
					return fmt.Errorf("band demand %v toward rack %q", v, r)
				}
			}
			racks[r] = true
		}
	}
	if len(racks) > shaping.MaxRacks {
		return fmt.Errorf("%d racks, more than a cluster has (%d)", len(racks), shaping.MaxRacks)
	}
	return nil
}

// heardDemand is the last demand heard from a host, and when.
type heardDemand struct {
	msg demandMsg
	at  time.Time
}

// sharer runs demand sharing for a shaper.
type sharer struct {
	s       *shaper
	m       *members.Agent
	host    string
	cfg     ShareConfig
	problem func(format string, args ...any)

	heardMu sync.Mutex
	heard   map[string]heardDemand
	refused map[string]string // host → why its last message was refused

	// the loop's own state
	seq          uint64
	epoch        int64 // demandMsg.Epoch
	prev, prevRx map[int]shaping.ClassCounters
	// the priority leaves' counters, with priorities
	prevLeaves, prevRxLeaves map[int][shaping.NumPriorities]shaping.ClassCounters
	prevAt                   time.Time
	lastErr                  string

	quit chan struct{}
	done chan struct{}
}

// startSharing shapes the receive side of the shaper's NIC and starts
// demand sharing: it listens to the other workers' demand on m and runs
// every ShareInterval until the shaper is closed. problem reports an
// error (each distinct one once in a row).
func (s *shaper) startSharing(m *members.Agent, host string, cfg ShareConfig, problem func(format string, args ...any)) error {
	rx, err := shaping.NewIngressShaper(s.hs.Dev())
	if err != nil {
		return fmt.Errorf("receive-side shaping: %w", err)
	}
	if err := rx.SetPriorities(s.hs.Priorities()); err != nil {
		return errors.Join(err, rx.Close())
	}
	if err := rx.SetPooled(true); err != nil {
		return errors.Join(err, rx.Close())
	}
	sh := &sharer{s: s, m: m, host: host, cfg: cfg, problem: problem, heard: map[string]heardDemand{},
		refused: map[string]string{}, epoch: time.Now().UnixNano(), quit: make(chan struct{}), done: make(chan struct{})}
	s.mu.Lock()
	// until the first share, a receive class may take the whole downlink
	s.rx, s.rxRate = rx, cfg.DownlinkBps
	s.hostRate, s.rxHostRate = -1, -1
	s.applied = "" // the next update gives rx its classes
	s.mu.Unlock()
	s.sharer = sh
	m.OnMessage(sh.receive)
	go sh.run()
	return nil
}

func (sh *sharer) stop() {
	sh.m.OnMessage(nil)
	close(sh.quit)
	<-sh.done
}

func (sh *sharer) run() {
	defer close(sh.done)
	t := time.NewTicker(ShareInterval)
	defer t.Stop()
	for {
		select {
		case <-sh.quit:
			return
		case now := <-t.C:
			err := sh.step(now)
			if msg := fmt.Sprint(err); err != nil && msg != sh.lastErr {
				sh.problem("demand sharing: %v", err)
			}
			sh.lastErr = fmt.Sprint(err)
		}
	}
}

// receive takes another worker's demand message (memberlist's goroutine).
func (sh *sharer) receive(b []byte) {
	var d demandMsg
	if err := json.Unmarshal(b, &d); err != nil || d.Kind != demandKind || d.Host == "" || d.Host == sh.host {
		return // not a demand message of a peer
	}
	err := d.check()
	sh.heardMu.Lock()
	defer sh.heardMu.Unlock()
	if err != nil {
		// said once per host and reason: a bad peer sends every interval
		if msg := err.Error(); sh.refused[d.Host] != msg {
			if sh.refused == nil {
				sh.refused = map[string]string{}
			}
			sh.refused[d.Host] = msg
			sh.problem("demand sharing: a message from %s refused: %v", d.Host, err)
		}
		return
	}
	delete(sh.refused, d.Host)
	if old, ok := sh.heard[d.Host]; ok && (d.Epoch < old.msg.Epoch || d.Epoch == old.msg.Epoch && old.msg.Seq >= d.Seq) {
		return // older than what this host said last
	}
	sh.heard[d.Host] = heardDemand{msg: d, at: time.Now()}
}

// step measures this host's demand, sends it, and sets its classes to
// the shares computed from everyone's.
func (sh *sharer) step(now time.Time) error {
	cs, err := sh.s.hs.Counters()
	if err != nil {
		return err
	}
	rxs, err := sh.s.rx.Counters()
	if err != nil {
		return err
	}
	dt := 0.0
	if sh.prev != nil {
		dt = now.Sub(sh.prevAt).Seconds()
	}
	sh.seq++
	own := demandMsg{Kind: demandKind, Host: sh.host, Rack: sh.s.rack, Seq: sh.seq, Epoch: sh.epoch,
		UplinkBps: sh.cfg.UplinkBps, DownlinkBps: sh.cfg.DownlinkBps, NICBps: sh.cfg.NICBps}
	sh.s.mu.Lock()
	own.Demand = demands(cs, sh.prev, dt, sh.s.names, sh.s.rateOf)
	own.RxDemand = demands(rxs, sh.prevRx, dt, sh.s.names, sh.s.rxRateOf)
	sh.s.mu.Unlock()
	if sh.s.hs.Priorities() {
		leaves, err := sh.s.hs.AllPriorityCounters()
		if err != nil {
			return err
		}
		rxLeaves, err := sh.s.rx.AllPriorityCounters()
		if err != nil {
			return err
		}
		sh.s.mu.Lock()
		own.Bands = bandDemands(leaves, sh.prevLeaves, dt, sh.s.names, sh.s.rateOf)
		own.RxBands = bandDemands(rxLeaves, sh.prevRxLeaves, dt, sh.s.names, sh.s.rxRateOf)
		sh.s.mu.Unlock()
		sh.prevLeaves, sh.prevRxLeaves = leaves, rxLeaves
	}
	sh.prev, sh.prevRx, sh.prevAt = cs, rxs, now
	body, err := json.Marshal(&own)
	if err != nil {
		return err
	}
	// a peer we cannot reach this time hears the next message
	sendErr := sh.m.Send(body, func(p members.Peer) bool { return p.Role == members.RoleWorker })

	msgs := []demandMsg{own}
	sh.heardMu.Lock()
	live := map[string]bool{}
	for _, p := range sh.m.Peers() {
		if p.Role != members.RoleWorker {
			continue
		}
		live[p.Name] = true
		if h, ok := sh.heard[p.Name]; ok && now.Sub(h.at) <= demandStaleAfter && h.msg.Rack == p.Rack {
			msgs = append(msgs, h.msg)
		} else {
			// a live host we have not heard from lately: no demand, but
			// it counts for the floors of its links
			msgs = append(msgs, demandMsg{Host: p.Name, Rack: p.Rack})
		}
	}
	for h := range sh.heard {
		if !live[h] {
			delete(sh.heard, h)
		}
	}
	sh.heardMu.Unlock()

	sh.s.mu.Lock()
	defer sh.s.mu.Unlock()
	// the sending side: each class at its share, borrowing from the host
	// class what the host's other busy classes leave unused
	in, self := shareInput(msgs, sh.s.rackIndex, false)
	// what the measured demands leave goes to the flows that want
	// something: a demand is a lagging estimate, and a switch's link
	// serves whoever sends
	in.Spare = true
	out, err := share.Compute(in)
	if err != nil {
		return errors.Join(sendErr, err)
	}
	row := out[self]
	busy := make([]bool, len(row))
	for i := range row {
		busy[i] = i < len(in.Hosts[self].Demand) && in.Hosts[self].Demand[i] > 0
	}
	if err := sh.s.applyPooled(sh.s.hs, row, busy, false); err != nil {
		return errors.Join(sendErr, err)
	}
	// the receiving side: a safety net, not a second shaper. A host's
	// receive classes together may take its share of its rack's
	// downlink by demand, with rxHeadroom on top of the measured demand
	// (which lags what the senders are given), and each class may
	// borrow all of it.
	in, self = shareInput(msgs, sh.s.rackIndex, true)
	for h := range in.Hosts {
		for i, d := range in.Hosts[h].Demand {
			in.Hosts[h].Demand[i] = d * rxHeadroom
		}
		for _, band := range in.Hosts[h].Bands {
			for i, d := range band {
				band[i] = d * rxHeadroom
			}
		}
	}
	in.Spare = true
	out, err = share.Compute(in)
	if err != nil {
		return errors.Join(sendErr, err)
	}
	row = out[self]
	all := make([]bool, len(row))
	for i := range row {
		row[i] *= rxSlack
		all[i] = true
	}
	if err := sh.s.applyPooled(sh.s.rx, row, all, true); err != nil {
		return errors.Join(sendErr, err)
	}
	return sendErr
}

// demands estimates the demand of every class (see estimateDemand) from
// its counters now (cs) and dt seconds ago (prev), by rack name, -1 for
// backlogged, leaving out the classes that want nothing.
func demands(cs, prev map[int]shaping.ClassCounters, dt float64, names []string, rateOf func(int) float64) map[string]float64 {
	out := map[string]float64{}
	for i, c := range cs {
		if i < 0 || i >= len(names) {
			continue
		}
		if d := estimateDemand(prev[i], c, dt, rateOf(i)); math.IsInf(d, 1) {
			out[names[i]] = -1
		} else if d > 0 {
			out[names[i]] = d
		}
	}
	return out
}

// bandDemands is demands by priority band: each rack class's leaves'
// demands (a leaf is held by its class's rate, which it may take whole:
// estimateDemand with the class's rate), for the racks where some leaf
// wants something.
func bandDemands(cs, prev map[int][shaping.NumPriorities]shaping.ClassCounters, dt float64, names []string, rateOf func(int) float64) map[string][]float64 {
	out := map[string][]float64{}
	for i, leaves := range cs {
		if i < 0 || i >= len(names) {
			continue
		}
		var row []float64
		for p, c := range leaves {
			d := estimateDemand(prev[i][p], c, dt, rateOf(i))
			if d == 0 {
				continue
			}
			if row == nil {
				row = make([]float64, len(leaves))
			}
			if math.IsInf(d, 1) {
				d = -1
			}
			row[p] = d
		}
		if row != nil {
			out[names[i]] = row
		}
	}
	return out
}

// applyPooled sets a pooled shaper's classes to the rates of row (by
// class number; +Inf: unshaped) and its host class to their sum; a class
// may borrow up to its own rate plus the rates of the other classes
// marked in lend (the busy ones: an idle class's rate is its floor, left
// to it). Changes smaller than rateSlack are skipped. rx says which side's
// recorded rates to use. Call with s.mu held.
func (s *shaper) applyPooled(hs *shaping.HostShaper, row []float64, lend []bool, rx bool) error {
	rates, ceils, host, cur := s.rates, s.ceils, &s.hostRate, s.rateOf
	if rx {
		rates, ceils, host, cur = s.rxRates, s.rxCeils, &s.rxHostRate, s.rxRateOf
	}
	racks := hs.Racks()
	total, lent := 0.0, 0.0
	for _, i := range racks {
		if i < len(row) {
			total += row[i]
			if lend[i] {
				lent += row[i]
			}
		}
	}
	unshaped := func(v float64) float64 {
		if math.IsInf(v, 1) {
			return 0 // no limited link on the way
		}
		return v
	}
	changed := func(now, old float64) bool { return math.Abs(now-old) > rateSlack*old || (now == 0) != (old == 0) }
	// the host class first when it grows, last when it shrinks, so that
	// the classes never borrow past a stale total
	newHost := unshaped(total)
	setHost := func() error {
		if *host >= 0 && !changed(newHost, *host) {
			return nil
		}
		if err := hs.SetHostRate(newHost); err != nil {
			return err
		}
		*host = newHost
		return nil
	}
	grows := *host < 0 || newHost == 0 || newHost > *host
	if grows {
		if err := setHost(); err != nil {
			return err
		}
	}
	for _, i := range racks {
		if i >= len(row) {
			continue
		}
		rate := unshaped(row[i])
		ceil := rate
		if rate > 0 {
			others := lent
			if lend[i] {
				others -= row[i]
			}
			ceil = unshaped(rate + others)
		}
		oldCeil, ok := ceils[i]
		if ok && !changed(rate, cur(i)) && !changed(ceil, oldCeil) {
			continue // a no-op change: leave the class alone
		}
		if err := hs.SetRackRates(i, rate, ceil); err != nil {
			return err
		}
		rates[i], ceils[i] = rate, ceil
	}
	if !grows {
		return setHost()
	}
	return nil
}

// rxSlack scales the receive side's shares: a receive class lets 5% more
// than its share through, so that traffic its senders already hold to
// that share (workers' own classes) is not throttled twice — two HTBs in
// series at one rate lose a few percent more to their separate bursts —
// while senders that ignore their share are still held to within 5% of
// it.
const rxSlack = 1.05

// rxHeadroom multiplies the receive side's measured demand: enough that
// a receive class follows its senders' shares as they grow instead of
// holding them back, while a host that receives only acknowledgements
// leaves its rack-mates the downlink.
const rxHeadroom = 2

// rateSlack is the relative change of a class's rate below which it is
// not changed (HTB rates are whole bytes/s, and a change costs netlink
// calls for every leaf).
const rateSlack = 0.01

// shareInput turns demand messages (the first one this host's) into
// share's input, with hosts in name order so that every worker computes
// the same thing, and returns this host's index in it. index numbers a
// rack. With rx, it is the receive side's input: the same computation
// mirrored, each host's receive demand by source rack as its "demand",
// a rack's downlink as its "uplink" and its uplink as its "downlink".
func shareInput(msgs []demandMsg, index func(rack string) int, rx bool) (share.Input, int) {
	self := msgs[0].Host
	sorted := append([]demandMsg(nil), msgs...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Host < sorted[b].Host })
	demandOf := func(m demandMsg) map[string]float64 {
		if rx {
			return m.RxDemand
		}
		return m.Demand
	}
	bandsOf := func(m demandMsg) map[string][]float64 {
		if rx {
			return m.RxBands
		}
		return m.Bands
	}
	banded := false
	for _, m := range sorted {
		banded = banded || bandsOf(m) != nil
	}
	// number every rack first (in a fixed order: the hosts' names, then
	// the racks'), so that a rack seen only in a demand gets the same
	// number on every host
	for _, m := range sorted {
		index(m.Rack)
		racks := make([]string, 0, len(demandOf(m)))
		for r := range demandOf(m) {
			racks = append(racks, r)
		}
		sort.Strings(racks)
		for _, r := range racks {
			index(r)
		}
	}
	nr := 0
	for _, m := range sorted {
		nr = max(nr, index(m.Rack)+1)
		for r := range demandOf(m) {
			nr = max(nr, index(r)+1)
		}
	}
	in := share.Input{Racks: make([]share.Rack, nr)}
	// a rack's links: the smallest any of its hosts gives
	tighter := func(cur *float64, v float64) {
		if v > 0 && (*cur == 0 || v < *cur) {
			*cur = v
		}
	}
	selfAt := 0
	for _, m := range sorted {
		r := index(m.Rack)
		up, down := m.UplinkBps, m.DownlinkBps
		if rx {
			up, down = down, up
		}
		tighter(&in.Racks[r].UplinkBps, up)
		tighter(&in.Racks[r].DownlinkBps, down)
		h := share.Host{Rack: r, NICBps: m.NICBps, Demand: make([]float64, nr)}
		for rack, d := range demandOf(m) {
			if d < 0 {
				d = share.Backlogged
			}
			h.Demand[index(rack)] = d
		}
		if banded {
			// a host that sent no bands wants what it wants in the
			// highest band
			h.Bands = [][]float64{append([]float64(nil), h.Demand...)}
			if bs := bandsOf(m); bs != nil {
				h.Bands = make([][]float64, shaping.NumPriorities)
				for b := range h.Bands {
					h.Bands[b] = make([]float64, nr)
				}
				for rack, row := range bs {
					for b, d := range row {
						if b >= len(h.Bands) {
							break
						}
						if d < 0 {
							d = share.Backlogged
						}
						if r := index(rack); r < nr {
							h.Bands[b][r] = d
						}
					}
				}
			}
		}
		if m.Host == self {
			selfAt = len(in.Hosts)
		}
		in.Hosts = append(in.Hosts, h)
	}
	return in, selfAt
}

// shareFlag is --shape-share UPLINK:DOWNLINK[:NIC].
type shareFlag struct{ cfg **ShareConfig }

func (f shareFlag) String() string {
	if f.cfg == nil || *f.cfg == nil {
		return ""
	}
	c := *f.cfg
	return fmt.Sprintf("%.0f:%.0f:%.0f", c.UplinkBps, c.DownlinkBps, c.NICBps)
}

func (f shareFlag) Type() string { return "UPLINK:DOWNLINK[:NIC]" }

func (f shareFlag) Set(v string) error {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return fmt.Errorf("%q: want UPLINK:DOWNLINK[:NIC], rates per second such as 125MB", v)
	}
	var rates [3]float64
	for i, p := range parts {
		n, err := units.ParseBytes(p)
		if err != nil {
			return fmt.Errorf("%q: field %d: %w", v, i+1, err)
		}
		if n < 0 {
			return fmt.Errorf("%q: field %d is negative", v, i+1)
		}
		rates[i] = float64(n)
	}
	*f.cfg = &ShareConfig{UplinkBps: rates[0], DownlinkBps: rates[1], NICBps: rates[2]}
	return nil
}

// ShareFlag registers --shape-share on f, setting cfg.Share.
func ShareFlag(f *pflag.FlagSet, cfg *Config) {
	f.Var(shareFlag{&cfg.Share}, "shape-share",
		"with --shape: share this rack's uplink and downlink (and cap this host's sending at NIC), in bytes per second, among the hosts by their demand, exchanged over memberlist every 100 ms, on the sending side and on the receiving side (an IFB on --data-dev); --shape is the rate until the first share")
}
