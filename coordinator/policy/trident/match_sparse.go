package trident

import "math"

// Trident's cost rows are nearly constant: a task costs the same on every
// node of a rack that holds no replica of it (C1 plus the rack's best
// score) and the same everywhere off its racks (C2), so a row of 1,024
// columns holds a handful of distinct values. The matcher stores such a
// matrix as, per row, a default (the row's largest cost) and the entries
// below it, and runs the same shortest-augmenting-path search over that
// form, touching only the entries below the defaults. It makes exactly
// the choices of the dense search, ties included (TestSparseMatchesDense),
// so the assignment is the same, only found sooner.

// sparseDensityLimit is the share of a matrix's entries below their row
// defaults above which the dense search is used: the sparse search pays
// a heap operation per entry it relaxes where the dense one pays a pass.
const sparseDensityLimit = 8 // entries below default <= rows*cols/8

// sparseMinRows is the fewest rows for which the sparse form is built:
// with fewer, the searches are few and short, and the pass that finds
// the rows' defaults costs as much as it saves (measured over 1,024
// nodes: even at 128 and 256 tasks, ahead from 512).
const sparseMinRows = 256

// matchMode forces a search for tests; the zero value chooses by density.
type matchMode uint8

const (
	matchAuto matchMode = iota
	matchDense
	matchSparse
)

// sparseRows is a cost matrix as row defaults and exceptions: row i
// costs rowDefault[i] in every column except cols[start[i]:start[i+1]],
// which cost the matching entries of costs, each below the default and
// in column order.
type sparseRows struct {
	rowDefault []int64
	start      []int32
	cols       []int32
	costs      []int64
}

// build reads the x-by-y matrix a into s and reports whether it is
// sparse enough for the sparse search (always, under matchSparse; never
// under matchDense).
func (s *sparseRows) build(a []int64, x, y int, mode matchMode) bool {
	if mode == matchDense || (mode == matchAuto && x < sparseMinRows) {
		return false
	}
	s.rowDefault = resize(s.rowDefault, x)
	s.start = resize(s.start, x+1)
	s.cols, s.costs = s.cols[:0], s.costs[:0]
	budget := x * y / sparseDensityLimit
	if mode == matchSparse {
		budget = x * y
	}
	for i := range x {
		row := a[i*y : (i+1)*y]
		top := row[0]
		for _, c := range row[1:] {
			top = max(top, c)
		}
		s.rowDefault[i] = top
		s.start[i] = int32(len(s.cols))
		for j, c := range row {
			if c < top {
				if len(s.cols) == budget {
					return false
				}
				s.cols = append(s.cols, int32(j))
				s.costs = append(s.costs, c)
			}
		}
	}
	s.start[x] = int32(len(s.cols))
	return true
}

// sparseSearch is the per-search state of augmentSparse, kept between
// searches: an entry is current only while its epoch is the search's.
type sparseSearch struct {
	epoch      uint32
	reach      []int64  // column -> best distance through an exception (+ v), if touched
	reachRow   []int32  // column -> first row in scan order that gave reach
	touched    []uint32 // column -> epoch of its reach
	scanned    []uint32 // column -> epoch it was scanned in
	rowOrder   []int32  // row -> its place in the search's scan order (rows scanned in it only)
	heap       []sparseEntry
	nextFree   int // no column below it is free
	rows, cols int
}

// sparseEntry is a candidate column: its distance, whether it is
// matched, its index. The dense search picks the nearest column, among
// equals the lowest free one, else the lowest: this order.
type sparseEntry struct {
	dist    int64
	matched bool
	col     int32
}

func (e sparseEntry) less(f sparseEntry) bool {
	if e.dist != f.dist {
		return e.dist < f.dist
	}
	if e.matched != f.matched {
		return !e.matched
	}
	return e.col < f.col
}

func (h *sparseSearch) push(e sparseEntry) {
	h.heap = append(h.heap, e)
	k := len(h.heap) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !h.heap[k].less(h.heap[p]) {
			break
		}
		h.heap[k], h.heap[p] = h.heap[p], h.heap[k]
		k = p
	}
}

func (h *sparseSearch) pop() sparseEntry {
	top := h.heap[0]
	n := len(h.heap) - 1
	h.heap[0] = h.heap[n]
	h.heap = h.heap[:n]
	k := 0
	for {
		l, r, m := 2*k+1, 2*k+2, k
		if l < n && h.heap[l].less(h.heap[m]) {
			m = l
		}
		if r < n && h.heap[r].less(h.heap[m]) {
			m = r
		}
		if m == k {
			return top
		}
		h.heap[k], h.heap[m] = h.heap[m], h.heap[k]
		k = m
	}
}

// reset readies the state for an x-by-y problem.
func (h *sparseSearch) reset(x, y int) {
	if h.rows != x || h.cols != y {
		h.reach = resize(h.reach, y)
		h.reachRow = resize(h.reachRow, y)
		h.touched = resize(h.touched, y)
		h.scanned = resize(h.scanned, y)
		h.rowOrder = resize(h.rowOrder, x)
		clear(h.touched)
		clear(h.scanned)
		h.rows, h.cols, h.epoch = x, y, 0
	}
	h.nextFree = 0
}

// greedySparse is solve's greedy start over sp: u_i is the row's
// minimum, and the row takes the lowest free column at it.
func (m *Matcher) greedySparse(sp *sparseRows, x int) {
	h := &m.sparse
	u, rowOf, colOf := m.u, m.rowOf, m.colOf
	for i := range x {
		colOf[i] = -1
		lo, hi := sp.start[i], sp.start[i+1]
		if lo == hi {
			// every column costs the default: the lowest free one
			u[i] = sp.rowDefault[i]
			for h.nextFree < len(rowOf) && rowOf[h.nextFree] >= 0 {
				h.nextFree++
			}
			if h.nextFree < len(rowOf) {
				colOf[i], rowOf[h.nextFree] = int32(h.nextFree), int32(i)
			}
			continue
		}
		cols, costs := sp.cols[lo:hi], sp.costs[lo:hi]
		best := costs[0]
		for _, c := range costs[1:] {
			best = min(best, c)
		}
		u[i] = best
		for k, j := range cols {
			if costs[k] == best && rowOf[j] < 0 {
				colOf[i], rowOf[j] = int32(j), int32(i)
				break
			}
		}
	}
}

// augmentSparse is augment over sp: the same Dijkstra search from the
// free row r, the same choice at every step, the same path and duals.
//
// A column's distance is min(G, reach[j]) - v[j], where G is the least
// base_i + rowDefault[i] over the rows scanned so far and reach[j] the
// least base_i + c_ij over their exceptions at j. Counting every row's
// default in G, its exception columns included, changes no minimum, as
// exceptions lie below defaults. Free columns have v = 0, the largest v
// can be, so while no exception column is nearer than G the nearest are
// the free ones, the search's end: the lowest of them, as the dense
// search picks. Nearer columns come from the heap of exception entries.
// The row a column was reached from is the first in scan order to give
// its distance, as in the dense search, which moves pred only on a
// strict improvement.
func (m *Matcher) augmentSparse(sp *sparseRows, y, r int) {
	h := &m.sparse
	h.epoch++
	if h.epoch == 0 { // wrapped: forget every mark
		clear(h.touched)
		clear(h.scanned)
		h.epoch = 1
	}
	ep := h.epoch
	u, v, rowOf, pred := m.u, m.v[:y], m.rowOf[:y], m.pred[:y]
	scanList, scanDist, scanV := m.scanList[:0], m.scanDist[:0], m.scanV[:0]
	h.heap = h.heap[:0]
	g, gRow := int64(math.MaxInt64), int32(-1)
	order := int32(0)
	relax := func(i int, base int64) {
		h.rowOrder[i] = order
		order++
		if d := base + sp.rowDefault[i]; d < g {
			g, gRow = d, int32(i)
		}
		lo, hi := sp.start[i], sp.start[i+1]
		cols, costs := sp.cols[lo:hi], sp.costs[lo:hi]
		for k, j := range cols {
			if h.scanned[j] == ep {
				continue
			}
			d := base + costs[k]
			if h.touched[j] != ep || d < h.reach[j] {
				h.touched[j], h.reach[j], h.reachRow[j] = ep, d, int32(i)
				h.push(sparseEntry{dist: d - v[j], matched: rowOf[j] >= 0, col: j})
			}
		}
	}
	relax(r, -u[r])
	for {
		// drop entries scanned or bettered since they were pushed
		for len(h.heap) > 0 {
			e := h.heap[0]
			if h.scanned[e.col] != ep && e.dist == h.reach[e.col]-v[e.col] {
				break
			}
			h.pop()
		}
		var j1 int
		var mu int64
		if len(h.heap) > 0 && h.heap[0].dist < g {
			e := h.pop()
			j1, mu = int(e.col), e.dist
			pred[j1] = h.reachRow[j1]
		} else {
			for rowOf[h.nextFree] >= 0 {
				h.nextFree++
			}
			j1, mu = h.nextFree, g
			pred[j1] = gRow
			if h.touched[j1] == ep && h.reach[j1] == g && h.rowOrder[h.reachRow[j1]] < h.rowOrder[gRow] {
				pred[j1] = h.reachRow[j1]
			}
		}
		if rowOf[j1] < 0 {
			m.scanList, m.scanDist, m.scanV = scanList, scanDist, scanV
			m.finishSearch(r, j1, mu)
			return
		}
		h.scanned[j1] = ep
		scanList = append(scanList, int32(j1))
		scanDist = append(scanDist, mu)
		scanV = append(scanV, v[j1])
		i := int(rowOf[j1])
		relax(i, mu-u[i])
	}
}
