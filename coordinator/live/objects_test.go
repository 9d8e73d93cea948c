package live

import (
	"testing"
	"time"

	"github.com/racklab/racklab/worker/store"
)

// An output's key names its run: attempt IDs start again at 0 in every
// run, and two runs on the same workers must not share a key (a DELETE of
// one run's copy, or the server's memory of it, would meet the next
// run's). The key is one the workers' stores take.
func TestOutputKeysAreARunsOwn(t *testing.T) {
	t0 := time.Unix(1_795_000_000, 0)
	first, next := OutputKey(runTag(t0), 17), OutputKey(runTag(t0.Add(time.Millisecond)), 17)
	if first == next {
		t.Fatalf("attempt 17 of two runs a millisecond apart has one key, %s", first)
	}
	if want := "out/" + runTag(t0) + "/a17"; first != want {
		t.Errorf("key %s, want %s", first, want)
	}
	for _, k := range []string{first, next} {
		if err := store.ValidKey(k); err != nil {
			t.Errorf("key %s: %v", k, err)
		}
	}
}
