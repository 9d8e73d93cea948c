package shadow

import "sort"

// RoundRobinOrder is the rack order of §2.3's reducer placement: the racks
// holding at least one of the job's maps (planned counts, A11), by count
// descending, ties by ascending rack index. Reducer k goes to
// order[k mod len(order)], skipping racks without a free reduce slot.
func RoundRobinOrder(counts []int) []int {
	order := make([]int, 0, len(counts))
	for r, c := range counts {
		if c > 0 {
			order = append(order, r)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] > counts[order[b]] })
	return order
}

// RoundRobinQuota is H of §2.3 with free reduce slots everywhere: t
// reducers dealt one at a time over RoundRobinOrder(counts), cycling.
func RoundRobinQuota(counts []int, t int) []int {
	h := make([]int, len(counts))
	order := RoundRobinOrder(counts)
	if len(order) == 0 {
		return h
	}
	for k := 0; k < t; k++ {
		h[order[k%len(order)]]++
	}
	return h
}
