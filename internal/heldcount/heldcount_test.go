package heldcount

import (
	"reflect"
	"testing"
)

// A class's count never falls: one that vanished keeps its last count,
// one shaped anew (or whose count fell between two reads) counts on.
func TestHeldKeepsWhatRemovedClassesCounted(t *testing.T) {
	var h Held[int]
	c := func(b, p uint64) Count { return Count{Bytes: b, Packets: p} }
	steps := []struct {
		host      int
		raw, want map[int]Count
	}{
		{0, map[int]Count{1: c(100, 2), 2: c(50, 1)}, map[int]Count{1: c(100, 2), 2: c(50, 1)}},
		{1, map[int]Count{0: c(7, 1)}, map[int]Count{0: c(7, 1)}},
		{0, map[int]Count{1: c(300, 5), 2: c(60, 2)}, map[int]Count{1: c(300, 5), 2: c(60, 2)}},
		// host 0's shaping removed: its counts stay
		{0, map[int]Count{}, map[int]Count{1: c(300, 5), 2: c(60, 2)}},
		{0, nil, map[int]Count{1: c(300, 5), 2: c(60, 2)}},
		// shaped again from 0, even past the old count by the first read
		// that sees it: it counts on
		{0, map[int]Count{1: c(400, 6)}, map[int]Count{1: c(700, 11), 2: c(60, 2)}},
		// a class recreated between two reads (its count fell)
		{0, map[int]Count{1: c(10, 1), 2: c(5, 1)}, map[int]Count{1: c(710, 12), 2: c(65, 3)}},
		// another host's classes are its own
		{1, map[int]Count{0: c(9, 2)}, map[int]Count{0: c(9, 2)}},
	}
	for i, s := range steps {
		if got := h.Read(s.host, s.raw); !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d (host %d, raw %v): %v, want %v", i, s.host, s.raw, got, s.want)
		}
	}
}
