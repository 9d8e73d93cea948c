package trident

import (
	"fmt"
	"math"
)

// Matcher solves rectangular min-cost assignment problems exactly (§2.3).
// It keeps its buffers between calls, so one Matcher per scheduler avoids
// allocating on every scheduling round. A Matcher is not safe for
// concurrent use; its zero value is ready.
type Matcher struct {
	transposed []int64
	u, v, dist []int64
	rowOf      []int32 // column -> row owning it, -1 when free
	colOf      []int32 // row -> column, -1 while unassigned
	pred       []int32 // column -> row it was reached from in the current search
	scanList   []int32 // columns scanned by the current search, in order
	scanDist   []int64 // their final distances
	scanV      []int64 // their potentials before the search
	result     []int

	// the sparse form of the matrix and its search's state (match_sparse.go)
	sp       sparseRows
	sparse   sparseSearch
	mode     matchMode
	searched matchMode // the search the last call took
}

// matchCostLimit bounds |cost| relative to the problem size so that
// potentials and path lengths (each at most a few times rows*max|cost|)
// stay below 2^58 in magnitude, which the search's sentinels rely on.
func matchCostLimit(rows, cols int) int64 {
	return math.MaxInt64 / 64 / int64(rows+cols+1)
}

// Solve returns an optimal assignment of the rows x cols matrix costs
// (row-major, len rows*cols): rowToCol[i] is row i's column, or -1 when
// rows > cols left row i unmatched; exactly min(rows, cols) rows are
// matched. The returned slice is reused by the next call. Ties are broken
// deterministically: among equally short augmenting paths the lowest
// free column wins, else the lowest column.
func (m *Matcher) Solve(costs []int64, rows, cols int) (rowToCol []int, total int64, err error) {
	if rows < 0 || cols < 0 {
		return nil, 0, fmt.Errorf("trident match: negative dimensions %d x %d", rows, cols)
	}
	if len(costs) != rows*cols {
		return nil, 0, fmt.Errorf("trident match: %d costs for a %d x %d matrix (want %d)", len(costs), rows, cols, rows*cols)
	}
	m.result = resize(m.result, rows)
	for i := range m.result {
		m.result[i] = -1
	}
	if rows == 0 || cols == 0 {
		return m.result, 0, nil
	}
	limit := matchCostLimit(rows, cols)
	for k, c := range costs {
		if c > limit || c < -limit {
			return nil, 0, fmt.Errorf("trident match: cost %d at row %d, column %d is outside ±%d, sums could overflow int64", c, k/cols, k%cols, limit)
		}
	}
	if rows <= cols {
		m.solve(costs, rows, cols)
		for i := 0; i < rows; i++ {
			m.result[i] = int(m.colOf[i])
		}
	} else {
		// More tasks than slots: the smaller side must be the rows.
		m.transposed = resize(m.transposed, rows*cols)
		t := m.transposed
		for i := 0; i < rows; i++ {
			row := costs[i*cols : (i+1)*cols]
			for j, c := range row {
				t[j*rows+i] = c
			}
		}
		m.solve(t, cols, rows)
		for j := 0; j < cols; j++ {
			m.result[m.colOf[j]] = j
		}
	}
	for i, j := range m.result {
		if j >= 0 {
			total += costs[i*cols+j]
		}
	}
	return m.result, total, nil
}

// solve assigns every row of an x-by-y matrix (x <= y) to a distinct
// column at minimum total cost.
//
// Duals: u (rows) and v (columns) with u_i + v_j <= c_ij, v_j <= 0 and
// v_j = 0 on free columns (the LP dual of "every row once, every column at
// most once"). They start as row minima with v = 0, which lets a greedy
// pass match every row whose cheapest column is still free at no search
// cost; each remaining row then gets one Dijkstra search over reduced
// costs (Jonker-Volgenant style: distances kept per column, potentials
// updated once per search on the scanned columns only). A search ends at
// the first free column it reaches, and free columns keep v = 0, so the
// duals stay feasible and the result is optimal. A matrix whose rows are
// mostly one value each, as Trident's are, is searched in its sparse
// form (match_sparse.go), with the same result.
func (m *Matcher) solve(a []int64, x, y int) {
	m.u = resize(m.u, x)
	m.v = resize(m.v, y)
	m.dist = resize(m.dist, y)
	m.rowOf = resize(m.rowOf, y)
	m.colOf = resize(m.colOf, x)
	m.pred = resize(m.pred, y)
	u, v, rowOf, colOf := m.u, m.v, m.rowOf, m.colOf
	for j := range y {
		v[j] = 0
		rowOf[j] = -1
	}
	m.searched = matchDense
	if m.sp.build(a, x, y, m.mode) {
		m.searched = matchSparse
		m.sparse.reset(x, y)
		m.greedySparse(&m.sp, x)
		for r := range x {
			if colOf[r] < 0 {
				m.augmentSparse(&m.sp, y, r)
			}
		}
		return
	}
	// Greedy start: u_i = row minimum; take the lowest free column at it.
	for i := range x {
		row := a[i*y : (i+1)*y]
		best := row[0]
		for _, c := range row[1:] {
			if c < best {
				best = c
			}
		}
		u[i] = best
		colOf[i] = -1
		for j, c := range row {
			if c == best && rowOf[j] < 0 {
				colOf[i] = int32(j)
				rowOf[j] = int32(i)
				break
			}
		}
	}
	for r := range x {
		if colOf[r] < 0 {
			m.augment(a, y, r)
		}
	}
}

// While a search runs, a scanned column j has its final distance and
// potential parked in scanDist/scanV and carries sentinels instead: dist
// scannedDist, so the minimum never picks it again, and v scannedV, so a
// relaxation through it (at least scannedDist) never improves it. This
// keeps the hot loop free of a per-column flag. Costs are bounded by
// matchCostLimit, so potentials and distances stay below 2^58 in magnitude
// and the sentinel sums cannot overflow or undercut scannedDist.
const (
	scannedDist = int64(1) << 60
	scannedV    = -(int64(1) << 61)
)

// augment finds a shortest augmenting path from the free row r and flips
// it, updating the duals.
func (m *Matcher) augment(a []int64, y, r int) {
	u := m.u
	// Slicing to y lets the compiler drop bounds checks in the hot loops.
	v, dist, rowOf, pred := m.v[:y], m.dist[:y], m.rowOf[:y], m.pred[:y]
	scanList, scanDist, scanV := m.scanList[:0], m.scanDist[:0], m.scanV[:0]
	// Distances from r through its own row; pick the nearest column.
	row := a[r*y : r*y+y : r*y+y]
	ur := u[r]
	best, bestCol, bestFree := int64(math.MaxInt64), -1, -1
	for j, c := range row {
		d := c - ur - v[j]
		dist[j] = d
		pred[j] = int32(r)
		if d < best {
			best, bestCol, bestFree = d, j, -1
			if rowOf[j] < 0 {
				bestFree = j
			}
		} else if d == best && bestFree < 0 && rowOf[j] < 0 {
			bestFree = j
		}
	}
	for {
		j1 := bestCol
		if bestFree >= 0 {
			j1 = bestFree
		}
		mu := best
		if rowOf[j1] < 0 {
			m.scanList, m.scanDist, m.scanV = scanList, scanDist, scanV
			m.finishSearch(r, j1, mu)
			return
		}
		scanList = append(scanList, int32(j1))
		scanDist = append(scanDist, mu)
		scanV = append(scanV, v[j1])
		dist[j1], v[j1] = scannedDist, scannedV
		i := int(rowOf[j1])
		ri := a[i*y : i*y+y : i*y+y]
		// The edge (i, j1) is tight, so reaching j via i costs mu + reduced(i, j).
		base := mu - u[i]
		best, bestCol, bestFree = int64(math.MaxInt64), -1, -1
		vv, pp, ro := v[:len(dist)], pred[:len(dist)], rowOf[:len(dist)]
		ri = ri[:len(dist)]
		for j, d := range dist {
			c := ri[j]
			if nd := base + c - vv[j]; nd < d {
				d = nd
				dist[j] = nd
				pp[j] = int32(i)
			}
			if d < best {
				best, bestCol, bestFree = d, j, -1
				if ro[j] < 0 {
					bestFree = j
				}
			} else if d == best && bestFree < 0 && ro[j] < 0 {
				bestFree = j
			}
		}
	}
}

// finishSearch ends a search from the free row r that reached the free
// column j1 at distance mu: it restores the scanned columns' potentials
// and updates the duals (row i owning scanned column js was reached at
// distance scanDist, the root r at 0), then flips the path (pred).
func (m *Matcher) finishSearch(r, j1 int, mu int64) {
	u, v, rowOf, colOf, pred := m.u, m.v, m.rowOf, m.colOf, m.pred
	u[r] += mu
	for k, js := range m.scanList {
		v[js] = m.scanV[k] - (mu - m.scanDist[k])
		u[rowOf[js]] += mu - m.scanDist[k]
	}
	j := j1
	for {
		i := int(pred[j])
		prev := colOf[i]
		colOf[i] = int32(j)
		rowOf[j] = int32(i)
		if i == r {
			break
		}
		j = int(prev)
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
