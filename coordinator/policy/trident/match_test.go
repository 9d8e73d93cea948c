package trident

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// bruteForce returns the minimum total over all assignments of
// min(rows, cols) pairs, enumerating injective maps of the smaller side.
func bruteForce(costs []int64, rows, cols int) int64 {
	at := func(i, j int) int64 { return costs[i*cols+j] }
	x, y := rows, cols
	if rows > cols {
		x, y = cols, rows
		at = func(i, j int) int64 { return costs[j*cols+i] }
	}
	used := make([]bool, y)
	best := int64(math.MaxInt64)
	var rec func(i int, sum int64)
	rec = func(i int, sum int64) {
		if i == x {
			best = min(best, sum)
			return
		}
		for j := range y {
			if !used[j] {
				used[j] = true
				rec(i+1, sum+at(i, j))
				used[j] = false
			}
		}
	}
	rec(0, 0)
	return best
}

// randomCosts is a rows × cols matrix of costs uniform in [shift, shift+span).
func randomCosts(rng *rand.Rand, rows, cols int, span, shift int64) []int64 {
	costs := make([]int64, rows*cols)
	for k := range costs {
		costs[k] = rng.Int64N(span) + shift
	}
	return costs
}

func TestMatchAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2021))
	var m Matcher
	for trial := range 3000 {
		rows, cols := 1+rng.IntN(6), 1+rng.IntN(6)
		span := []int64{2, 5, 50, 1000}[trial%4] // small spans give many ties
		shift := int64(0)
		if trial%7 == 0 {
			shift = -span / 2 // negative costs are fine too
		}
		costs := randomCosts(rng, rows, cols, span, shift)
		assign, total, err := m.Solve(costs, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteForce(costs, rows, cols); total != want {
			t.Fatalf("trial %d (%dx%d): total %d, brute force %d; costs %v", trial, rows, cols, total, want, costs)
		}
		seen := map[int]bool{}
		var sum int64
		matched := 0
		for i, j := range assign {
			if j < 0 {
				continue
			}
			if j >= cols || seen[j] {
				t.Fatalf("trial %d: column %d out of range or used twice in %v", trial, j, assign)
			}
			seen[j] = true
			sum += costs[i*cols+j]
			matched++
		}
		if matched != min(rows, cols) || sum != total {
			t.Fatalf("trial %d: %d pairs (want %d), recomputed total %d vs %d", trial, matched, min(rows, cols), sum, total)
		}
	}
}

func TestMatchDeterministic(t *testing.T) {
	costs := []int64{5, 5, 5, 5, 5, 5} // 2x3, all ties
	var m Matcher
	a, _, err := m.Solve(costs, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a[0] != 0 || a[1] != 1 {
		t.Fatalf("all-tie assignment %v, want lowest columns [0 1]", a)
	}
	first := append([]int(nil), a...)
	b, _, _ := m.Solve(costs, 2, 3)
	for i := range first {
		if first[i] != b[i] {
			t.Fatalf("second solve %v differs from first %v", b, first)
		}
	}
}

func TestMatchEmptyAndBadInput(t *testing.T) {
	var m Matcher
	for _, dims := range [][2]int{{0, 0}, {0, 4}, {3, 0}} {
		a, total, err := m.Solve(nil, dims[0], dims[1])
		if err != nil || total != 0 || len(a) != dims[0] {
			t.Fatalf("%v: got %v %d %v", dims, a, total, err)
		}
		for _, j := range a {
			if j != -1 {
				t.Fatalf("%v: row matched in an empty problem: %v", dims, a)
			}
		}
	}
	if _, _, err := m.Solve([]int64{1, 2, 3}, 2, 2); err == nil || !strings.Contains(err.Error(), "3 costs") {
		t.Fatalf("short matrix: err %v", err)
	}
	if _, _, err := m.Solve(nil, -1, 2); err == nil {
		t.Fatal("negative rows accepted")
	}
	_, _, err := m.Solve([]int64{1, math.MaxInt64 / 2, 3, 4}, 2, 2)
	if err == nil || !strings.Contains(err.Error(), "row 0, column 1") {
		t.Fatalf("overflowing cost: err %v", err)
	}
}

// referenceHungarian is the textbook O(x^2 y) algorithm of §2.3, used as
// an oracle on instances too large for brute force. It needs rows <= cols.
func referenceHungarian(a []int64, x, y int) int64 {
	const inf = int64(1) << 62
	u, v := make([]int64, x+1), make([]int64, y+1)
	p, way := make([]int, y+1), make([]int, y+1)
	for i := 1; i <= x; i++ {
		p[0] = i
		j0 := 0
		minv := make([]int64, y+1)
		used := make([]bool, y+1)
		for j := range minv {
			minv[j] = inf
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], inf, 0
			for j := 1; j <= y; j++ {
				if !used[j] {
					cur := a[(i0-1)*y+j-1] - u[i0] - v[j]
					if cur < minv[j] {
						minv[j], way[j] = cur, j0
					}
					if minv[j] < delta {
						delta, j1 = minv[j], j
					}
				}
			}
			for j := 0; j <= y; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	var total int64
	for j := 1; j <= y; j++ {
		if p[j] != 0 {
			total += a[(p[j]-1)*y+j-1]
		}
	}
	return total
}

func TestMatchAgainstReferenceOnLargerInstances(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	var m Matcher
	for trial := range 200 {
		rows, cols := 1+rng.IntN(60), 1+rng.IntN(60)
		span := []int64{3, 40, 1 << 20}[trial%3]
		costs := randomCosts(rng, rows, cols, span, 0)
		_, total, err := m.Solve(costs, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		if rows <= cols {
			want = referenceHungarian(costs, rows, cols)
		} else {
			tr := make([]int64, rows*cols)
			for i := range rows {
				for j := range cols {
					tr[j*rows+i] = costs[i*cols+j]
				}
			}
			want = referenceHungarian(tr, cols, rows)
		}
		if total != want {
			t.Fatalf("trial %d (%dx%d): total %d, reference %d", trial, rows, cols, total, want)
		}
	}
}
