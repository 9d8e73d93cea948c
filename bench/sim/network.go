package sim

import (
	"math"
	"slices"
	"sort"
)

// resource is a capacity that flows share: a NIC direction, a rack
// uplink or downlink, the core, a tier's read or write bandwidth.
type resource struct {
	capacity float64 // bytes per second
	flows    []*flow
	load     float64 // sum of the rates of its flows
	bytes    float64 // bytes carried so far, integrated from the rates
	moved    float64 // bytes of the flows that ended, counted exactly
	lastT    float64 // when bytes was last brought up to date
	dirty    bool
	stamp    uint64
	residual float64
	count    int
	touched  bool
	cand     bool    // may bind in the current filling
	sumBound float64 // sum of its flows' bounds in the current filling
	members  []*flow // the flows of the class being filled, in this update
	wasTight bool    // saturated when a flow left it since the last recompute
	extra    float64 // likely rate of the flows added since the last recompute
	// cutLevel is the least level (network.level) a flow added here in
	// class raisedPrio since the last recompute fills it to: flows of that
	// class above it lose to the new flow. +Inf when none
	cutLevel float64
	cfStamp  uint64  // Varys: cfBytes belongs to the coflow of this stamp
	cfBytes  float64 // Varys: that coflow's remaining bytes through it
	// raisedPrio is the highest class (the lowest number) that a flow
	// started in or was re-marked to or from here since the last
	// recompute; noClassRaised when none. Strict priority lets such a flow
	// take the resource from every flow of a lower class, also those held
	// elsewhere, so a local update must re-share those too.
	raisedPrio uint8
	stale      bool // re-shared by a local update since the last full pass
}

// flow is a transfer of bytes through a set of resources. Its rate is set
// by max-min fair sharing within its priority class; a lower class gets
// what the higher ones leave.
type flow struct {
	id        int64
	res       []int32
	pos       []int32 // index of this flow in each resource's flows list
	prio      uint8
	size      float64
	remaining float64
	rate      float64
	oldRate   float64
	last      float64
	finish    float64
	heapIdx   int
	stamp     uint64
	frozen    bool
	owner     *run
	srcRack   int32   // the source rack of a reducer's fetch, else -1
	coflow    *coflow // the shuffle it belongs to (NetworkVarys), else nil
	cfPos     int32   // index of this flow in its coflow's live list
	solo      *coflow // Varys: the single-flow coflow of a flow of no shuffle
	counter   int32   // the counter its bytes add to (network.counters), or -1
}

// counter adds up the bytes of the flows that name it, as a resource
// does, but takes no part in sharing: what a host receives from other
// racks, say. Kept apart from the resources so that counting changes
// no rate, nor the order the rates are computed in.
type counter struct {
	bytes, load, lastT float64
}

// network is the flow-level model: rates are recomputed, exactly max-min
// fair, for the connected component of resources whose flow set changed.
type network struct {
	res     []resource
	byEnd   flowHeap
	nextID  int64
	stamp   uint64
	dirty   []int32
	compRes []int32
	compFl  []*flow
	rheap   resHeap
	prios   []uint8
	added   []*flow // flows started since the last recompute
	// stale lists the resources a local update re-shared, or whose flow set
	// changed, since the last full pass: only their connected components
	// can be inexact, so a full pass over them is exact everywhere
	stale   []int32
	touched []int32

	// coflows selects Varys (varys.go) over max-min; the rest is its
	// scratch space
	coflows bool
	cfStamp uint64
	cfOrder []*coflow
	cfPorts []int32

	counters []counter

	levelRates []float64 // level's scratch space
	levels     []float64 // a new flow's level on each of its resources
}

// noClassRaised marks a resource where no flow started in or moved into a
// class since the last recompute: no flow's class is lower than 255's.
const noClassRaised = math.MaxUint8

func newNetwork(capacities []float64) *network {
	n := &network{res: make([]resource, len(capacities))}
	for i, c := range capacities {
		n.res[i].capacity = c
		n.res[i].raisedPrio = noClassRaised
		n.res[i].cutLevel = math.Inf(1)
	}
	return n
}

func (n *network) markDirty(r int32) {
	if !n.res[r].dirty {
		n.res[r].dirty = true
		n.dirty = append(n.dirty, r)
	}
}

// add starts a flow of size bytes at time now.
func (n *network) add(now float64, res []int32, size float64, prio uint8, owner *run) *flow {
	f := &flow{id: n.nextID, res: res, pos: make([]int32, len(res)), prio: prio, size: size, remaining: size, last: now, finish: math.Inf(1), heapIdx: -1, owner: owner, srcRack: -1, counter: -1}
	n.nextID++
	for i, r := range res {
		rs := &n.res[r]
		f.pos[i] = int32(len(rs.flows))
		rs.flows = append(rs.flows, f)
		rs.raisedPrio = min(rs.raisedPrio, prio)
		n.markDirty(r)
	}
	n.byEnd.push(f)
	n.added = append(n.added, f)
	return f
}

// remove ends a flow (finished or cancelled) at time now.
func (n *network) remove(now float64, f *flow) {
	// a flow that ran out of bytes within a time step is removed at the
	// step's end (Sim.fireDue): it moved nothing after its last byte, so
	// its rate stops counting on its links and counter at its end
	overrun := 0.0
	if f.finish < now {
		overrun = f.rate * (now - f.finish)
	}
	n.settleFlow(now, f)
	n.recount(now, f, f.rate, 0)
	if f.counter >= 0 {
		n.counters[f.counter].bytes -= overrun
	}
	for i, r := range f.res {
		rs := &n.res[r]
		n.settleRes(now, rs)
		rs.bytes -= overrun
		if rs.tight(0) {
			rs.wasTight = true // its other flows may now go faster
		}
		rs.load -= f.rate
		rs.moved += f.size - f.remaining
		p := f.pos[i]
		last := rs.flows[len(rs.flows)-1]
		rs.flows[p] = last
		for k, lr := range last.res {
			if lr == r {
				last.pos[k] = p
				break
			}
		}
		rs.flows = rs.flows[:len(rs.flows)-1]
		n.markDirty(r)
	}
	if f.heapIdx >= 0 {
		n.byEnd.remove(f.heapIdx)
	}
	if c := f.coflow; c != nil {
		n.leave(f, c)
	}
}

// setPriority moves a flow to another class.
func (n *network) setPriority(f *flow, prio uint8) {
	if f.prio == prio {
		return
	}
	for _, r := range f.res {
		rs := &n.res[r]
		rs.raisedPrio = min(rs.raisedPrio, prio, f.prio)
		n.markDirty(r)
	}
	f.prio = prio
}

// countLive adds to each resource's moved bytes what the flows still on
// it carried until now. For the end of a run only: a flow removed later
// would count them again.
func (n *network) countLive(now float64) {
	for i := range n.res {
		rs := &n.res[i]
		for _, f := range rs.flows {
			n.settleFlow(now, f)
			rs.moved += f.size - f.remaining
		}
	}
}

func (n *network) settleFlow(now float64, f *flow) {
	if now > f.last {
		f.remaining -= f.rate * (now - f.last)
		if f.remaining < 0 {
			f.remaining = 0
		}
		f.last = now
	}
}

func (n *network) settleRes(now float64, r *resource) {
	if now > r.lastT {
		r.bytes += r.load * (now - r.lastT)
		r.lastT = now
	}
}

// recount moves a flow's counter from the flow's old rate to its new
// one, keeping the bytes it carried at the old rate up to now.
func (n *network) recount(now float64, f *flow, from, to float64) {
	if f.counter < 0 || from == to {
		return
	}
	c := &n.counters[f.counter]
	if now > c.lastT {
		c.bytes += c.load * (now - c.lastT)
		c.lastT = now
	}
	c.load += to - from
}

// counted is the bytes a counter has added up by now.
func (n *network) counted(now float64, i int32) float64 {
	c := &n.counters[i]
	return c.bytes + c.load*(now-c.lastT)
}

// nextFinish is the earliest projected end of a flow.
func (n *network) nextFinish() (float64, *flow) {
	if len(n.byEnd) == 0 {
		return math.Inf(1), nil
	}
	return n.byEnd[0].finish, n.byEnd[0].f
}

// tight reports whether a resource is (nearly) saturated, or would be with
// extra more bytes per second.
func (r *resource) tight(extra float64) bool {
	return r.load+extra >= r.capacity*(1-1e-9)
}

// heldAnywhere reports whether one of the flow's resources is (nearly)
// saturated, counting the flows added since the last recompute: a flow
// with none is not where max-min would hold it.
func (n *network) heldAnywhere(f *flow) bool {
	for _, r := range f.res {
		if rs := &n.res[r]; rs.tight(rs.extra) {
			return true
		}
	}
	return false
}

// recompute sets new rates after flows started or ended. With full set,
// it is exact max-min over the connected component of every changed
// resource. Otherwise it is a local update: the new flows, and the flows of
// every changed resource that is a bottleneck (saturated before the change,
// or made so by a new flow), are re-shared max-min on what the other flows
// leave. Flows on a resource with slack were not limited by it, so an end
// there cannot speed them up; what the local update misses is the second
// order, which the periodic full pass settles. It never over-commits a
// resource.
func (n *network) recompute(now float64, full bool) {
	if len(n.dirty) == 0 && len(n.added) == 0 {
		return
	}
	if n.coflows {
		n.recomputeCoflows(now)
		return
	}
	n.stamp++
	st := n.stamp
	n.compRes = n.compRes[:0]
	n.compFl = n.compFl[:0]
	include := func(f *flow) {
		if f.stamp == st {
			return
		}
		f.stamp = st
		n.compFl = append(n.compFl, f)
		for _, r2 := range f.res {
			if n.res[r2].stamp != st {
				n.res[r2].stamp = st
				n.compRes = append(n.compRes, r2)
			}
		}
	}
	if full {
		seed := func(r int32) {
			if n.res[r].stamp != st {
				n.res[r].stamp = st
				n.compRes = append(n.compRes, r)
			}
		}
		for _, r := range n.dirty {
			seed(r)
		}
		for _, r := range n.stale {
			seed(r)
			n.res[r].stale = false
		}
		n.stale = n.stale[:0]
		for i := 0; i < len(n.compRes); i++ {
			for _, f := range n.res[n.compRes[i]].flows {
				include(f)
			}
		}
	} else {
		// a new flow's likely share: the least, over its resources, of
		// the level it would fill each to were the resource its only
		// limit (its flows of its class cut to the level, those held
		// below it keeping their rates). Capacity over flows missed a
		// resource whose other flows are held low elsewhere: the new
		// flow fills it, and the flows it limits were not re-shared
		for _, f := range n.added {
			if f.heapIdx < 0 {
				continue // already ended
			}
			share := math.Inf(1)
			n.levels = n.levels[:0]
			for _, r := range f.res {
				x := n.level(&n.res[r], f.prio)
				n.levels = append(n.levels, x)
				share = math.Min(share, x)
			}
			for i, r := range f.res {
				rs := &n.res[r]
				rs.extra += share
				if f.prio == rs.raisedPrio {
					rs.cutLevel = math.Min(rs.cutLevel, n.levels[i])
				}
			}
		}
		for _, r := range n.dirty {
			rs := &n.res[r]
			tight := rs.wasTight || rs.tight(rs.extra)
			rs.extra = 0
			if !tight {
				// flows a higher class held (at rate 0, or at what
				// rounding left of the resource) may have lost that
				// class (an end, a re-mark) though the resource is no
				// longer tight: in max-min every flow has a saturated
				// resource, so one with none gains what is left, or it
				// would crawl until a full pass that no event may ever
				// bring
				for _, f := range rs.flows {
					if f.rate == 0 || !n.heldAnywhere(f) {
						include(f)
					}
				}
				continue
			}
			// only the flows it limits, those at its highest rate (in
			// max-min, a flow's bottleneck is where no flow beats it), gain
			// or lose from a change there; the others are held elsewhere
			var top [256]float64 // highest rate per priority class
			for _, f := range rs.flows {
				top[f.prio] = math.Max(top[f.prio], f.rate)
			}
			// and a new flow of the highest class raised here cuts every
			// flow of that class above the level it fills the resource to
			for _, f := range rs.flows {
				if f.rate >= top[f.prio]*(1-1e-9) || f.prio > rs.raisedPrio ||
					f.prio == rs.raisedPrio && f.rate > rs.cutLevel {
					include(f)
				}
			}
		}
		for _, f := range n.added {
			if f.heapIdx >= 0 {
				include(f)
			}
		}
	}
	n.prios = n.prios[:0]
	for _, f := range n.compFl {
		f.oldRate = f.rate
		f.frozen = false
		f.rate = 0
		n.notePrio(f.prio)
	}
	// what the flows outside this update keep using: counted afresh in a
	// full pass (which also clears rounding drift), else the kept load
	// less the old rates of the flows in the update
	for _, r := range n.compRes {
		rs := &n.res[r]
		n.settleRes(now, rs)
		if full {
			rs.load = 0
			for _, f := range rs.flows {
				if f.stamp != st {
					rs.load += f.rate
				}
			}
		}
	}
	if !full {
		for _, f := range n.compFl {
			for _, r := range f.res {
				n.res[r].load -= f.oldRate
			}
		}
	}
	for _, r := range n.compRes {
		rs := &n.res[r]
		rs.residual = rs.capacity - rs.load
	}
	sort.Slice(n.prios, func(a, b int) bool { return n.prios[a] < n.prios[b] })
	for _, p := range n.prios {
		n.fillClass(p)
	}
	for _, f := range n.compFl {
		for _, r := range f.res {
			n.res[r].load += f.rate
		}
		n.recount(now, f, f.oldRate, f.rate)
		if f.rate == f.oldRate && f.last < now {
			continue // same rate: its progress and end stand as they were
		}
		// bring its progress up to now at the old rate, then project the end
		newRate := f.rate
		f.rate = f.oldRate
		n.settleFlow(now, f)
		f.rate = newRate
		n.projectEnd(now, f)
	}
	if !full {
		n.markStale(n.dirty)
		n.markStale(n.compRes)
	}
	n.clearDirty()
}

// level is the rate a new flow of class prio would get were resource
// rs its only limit: the water level x at which the flows of higher
// classes at their rates, those of its class at min(rate, x), and the
// new flow at x fill the capacity. Flows of lower classes yield to it;
// flows added since the last recompute (at rate 0) count as nothing.
func (n *network) level(rs *resource, prio uint8) float64 {
	left := rs.capacity
	n.levelRates = n.levelRates[:0]
	for _, f := range rs.flows {
		switch {
		case f.prio < prio:
			left -= f.rate
		case f.prio == prio && f.rate > 0:
			n.levelRates = append(n.levelRates, f.rate)
		}
	}
	if left <= 0 {
		return 0
	}
	// the flows of its class below the level keep their rates; the rest
	// and the new flow share what is left, evenly. The level only rises
	// as flows drop below it, so a few passes settle it (each pass fixes
	// at least one more flow, or ends)
	rates := n.levelRates
	x := left / float64(len(rates)+1)
	for {
		fixed, above := 0.0, 0
		for _, r := range rates {
			if r < x {
				fixed += r
			} else {
				above++
			}
		}
		next := (left - fixed) / float64(above+1)
		if next <= x {
			return math.Max(x, 0)
		}
		x = next
	}
}

// markStale notes resources a local update left possibly inexact, for the
// next full pass.
func (n *network) markStale(rs []int32) {
	for _, r := range rs {
		if !n.res[r].stale {
			n.res[r].stale = true
			n.stale = append(n.stale, r)
		}
	}
}

// projectEnd sets when a flow ends at its rate (never, at rate 0) and
// moves it in the end heap.
func (n *network) projectEnd(now float64, f *flow) {
	if f.rate > 0 {
		f.finish = now + f.remaining/f.rate
	} else {
		f.finish = math.Inf(1)
	}
	n.byEnd.fix(f.heapIdx, f.finish)
}

// clearDirty ends a recomputation: no resource is dirty or new any more.
func (n *network) clearDirty() {
	for _, r := range n.dirty {
		n.res[r].dirty = false
		n.res[r].wasTight = false
		n.res[r].extra = 0
		n.res[r].raisedPrio = noClassRaised
		n.res[r].cutLevel = math.Inf(1)
	}
	n.dirty = n.dirty[:0]
	n.added = n.added[:0]
}

// fillClass is progressive filling among the component's flows of one
// priority class, on what higher classes left. It adds each flow's share
// to the rate it has: 0 under max-min, the MADD rate under Varys, whose
// leftover it hands out.
//
// Only resources that can bind take part in the filling: a flow can never
// get more than its bound, the least residual among its resources, so a
// resource whose members' bounds add up to less than its residual is never
// a bottleneck. Each flow's tightest resource always takes part, so every
// flow is frozen, at the same rates the full filling gives.
func (n *network) fillClass(p uint8) {
	for _, r := range n.compRes {
		rs := &n.res[r]
		rs.count = 0
		rs.sumBound = 0
		rs.cand = false
		rs.members = rs.members[:0]
	}
	for _, f := range n.compFl {
		if f.prio != p {
			continue
		}
		b := math.Inf(1)
		for _, r := range f.res {
			b = math.Min(b, math.Max(n.res[r].residual, 0))
		}
		for _, r := range f.res {
			n.res[r].count++
			n.res[r].sumBound += b
		}
	}
	n.rheap = n.rheap[:0]
	for _, r := range n.compRes {
		if rs := &n.res[r]; rs.count > 0 && rs.sumBound >= rs.residual*(1-1e-9) {
			rs.cand = true
			n.rheap = append(n.rheap, resEntry{r: r, share: math.Max(rs.residual, 0) / float64(rs.count), count: rs.count})
		}
	}
	for _, f := range n.compFl {
		if f.prio != p {
			continue
		}
		for _, r := range f.res {
			if n.res[r].cand {
				n.res[r].members = append(n.res[r].members, f)
			}
		}
	}
	n.rheap.init()
	for len(n.rheap) > 0 {
		e := n.rheap.pop()
		rs := &n.res[e.r]
		if rs.count != e.count || rs.count == 0 {
			continue // stale entry
		}
		share := math.Max(rs.residual, 0) / float64(rs.count)
		for _, f := range rs.members {
			if f.frozen {
				continue
			}
			f.frozen = true
			f.rate += share
			for _, r2 := range f.res {
				o := &n.res[r2]
				o.residual -= share
				o.count--
				if o.cand && r2 != e.r && !o.touched {
					o.touched = true
					n.touched = append(n.touched, r2)
				}
			}
		}
		// a resource's share only grows as flows leave it at the minimum
		// share, so one fresh entry per touched resource keeps the heap
		// right; older entries are recognised by their count
		for _, r2 := range n.touched {
			o := &n.res[r2]
			o.touched = false
			if o.count > 0 {
				n.rheap.push(resEntry{r: r2, share: math.Max(o.residual, 0) / float64(o.count), count: o.count})
			}
		}
		n.touched = n.touched[:0]
	}
}

type resEntry struct {
	r     int32
	share float64
	count int
}

// resHeap is a binary min-heap of resource shares, written out by hand:
// it is the simulator's innermost loop.
type resHeap []resEntry

func (h resHeap) less(a, b int) bool {
	if h[a].share != h[b].share {
		return h[a].share < h[b].share
	}
	return h[a].r < h[b].r
}

func (h *resHeap) push(e resEntry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *resHeap) pop() resEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.down(0)
	return top
}

func (h resHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h resHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// flowHeap orders flows by projected end, then id. Entries carry the key
// inline so that comparisons do not chase pointers.
type flowHeap []flowEntry

type flowEntry struct {
	finish float64
	id     int64
	f      *flow
}

func (h flowHeap) less(a, b int) bool {
	if h[a].finish != h[b].finish {
		return h[a].finish < h[b].finish
	}
	return h[a].id < h[b].id
}

func (h flowHeap) swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].f.heapIdx = a
	h[b].f.heapIdx = b
}

func (h flowHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h flowHeap) down(i int) bool {
	start := i
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

func (h *flowHeap) push(f *flow) {
	f.heapIdx = len(*h)
	*h = append(*h, flowEntry{finish: f.finish, id: f.id, f: f})
	h.up(f.heapIdx)
}

func (h *flowHeap) remove(i int) {
	s := *h
	n := len(s) - 1
	removed := s[i].f
	if i != n {
		s.swap(i, n)
	}
	*h = s[:n]
	if i != n && !h.down(i) {
		h.up(i)
	}
	removed.heapIdx = -1
}

func (h flowHeap) fix(i int, finish float64) {
	h[i].finish = finish
	if !h.down(i) {
		h.up(i)
	}
}

// notePrio adds a flow's priority to the update's list of the
// priorities present (n.prios), once.
func (n *network) notePrio(p uint8) {
	if !slices.Contains(n.prios, p) {
		n.prios = append(n.prios, p)
	}
}
