package main

import (
	"path/filepath"
	"testing"
)

// --output-replicas reaches the workload file: every final stage has
// the replication, no other stage has one; without it none has.
func TestMixOutputReplicasFlag(t *testing.T) {
	dir := t.TempDir()
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"mix", "--preset", "hibench-small", "--output-replicas", "3"}, 3},
		{[]string{"mix", "--preset", "hibench-small"}, 0},
	} {
		if _, err := run(t, append(tc.args, "--out-workload", wp, "--out-datasets", dp)...); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		w, _ := load(t, wp, dp, nil)
		finals := 0
		for _, j := range w.Jobs {
			read := map[string]bool{}
			for _, st := range j.Stages {
				for _, a := range st.After {
					read[a] = true
				}
			}
			for _, st := range j.Stages {
				want := 0
				if !read[st.Name] {
					want = tc.want
					finals++
				}
				if st.OutputReplicas != want {
					t.Errorf("%v: %s/%s has %d output replicas, want %d", tc.args, j.ID, st.Name, st.OutputReplicas, want)
				}
			}
		}
		if finals < len(w.Jobs) || len(w.Jobs) == 0 {
			t.Errorf("%v: %d final stages in %d jobs", tc.args, finals, len(w.Jobs))
		}
	}
	if _, err := run(t, "mix", "--preset", "hibench-small", "--output-replicas", "-2", "--out-workload", wp, "--out-datasets", dp); err == nil {
		t.Error("--output-replicas -2: no error")
	}
}
