package metrics

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// attempts.csv records the replica a map read, its host (source_host, the
// last column) and its tier, and nothing for an attempt that read no
// replica; summary.csv counts the memory cache's uploads and demotions
// (engine.Config.MemoryLRU) and the share of map bytes read from memory.
func TestSourceHostAndMemoryCounts(t *testing.T) {
	dir := t.TempDir()
	r, err := NewRecorder(dir, &workload.Workload{Jobs: []workload.Job{{ID: "j"}}})
	if err != nil {
		t.Fatal(err)
	}
	read := attemptOf(0, engine.ClassInput, 0, 0, engine.AttemptSucceeded, engine.DecisionNote{})
	read.Host, read.Source = 1, workload.Replica{Host: 2, Tier: cluster.Mem}
	read.Tier, read.InputBytes = cluster.Mem, 30
	reduce := attemptOf(1, engine.ClassShuffle, 0, 0, engine.AttemptSucceeded, engine.DecisionNote{})
	slow := attemptOf(2, engine.ClassInput, 0, 0, engine.AttemptSucceeded, engine.DecisionNote{})
	slow.Host, slow.Source = 3, workload.Replica{Host: 3, Tier: cluster.HDD}
	slow.Tier, slow.InputBytes = cluster.HDD, 10
	for _, a := range []*engine.AttemptRecord{read, reduce, slow} {
		if err := r.Attempt(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "attempts.csv"))
	head := rows[0]
	if head[len(head)-1] != "source_host" {
		t.Fatalf("attempts.csv header %v: source_host is not last", head)
	}
	tier := slices.Index(head, "tier")
	for i, want := range [][2]string{{"mem", "2"}, {"", ""}, {"hdd", "3"}} {
		row := rows[i+1]
		if got := [2]string{row[tier], row[len(row)-1]}; got != want {
			t.Errorf("attempt %d: tier, source_host %q, want %q", i, got, want)
		}
	}

	s := r.Finish("trident", 1, &engine.Stats{MemoryUploads: 7, MemoryDemotions: 3, HostsLost: 1}, nil, nil)
	row := s.Row()
	if len(row) != len(SummaryHeader) {
		t.Fatalf("summary row of %d cells, header of %d", len(row), len(SummaryHeader))
	}
	// 30 of the maps' 40 bytes came from memory
	for col, want := range map[string]string{"memory_uploads": "7", "memory_demotions": "3", "mem_bytes_frac": "0.750000", "hosts_lost": "1"} {
		if got := row[slices.Index(SummaryHeader, col)]; got != want {
			t.Errorf("summary %s = %q, want %q", col, got, want)
		}
	}
	// columns are appended: the Shadow skew columns and hosts_lost came
	// after these
	if !slices.Equal(SummaryHeader[len(SummaryHeader)-6:], []string{"memory_uploads", "memory_demotions", "mem_bytes_frac", "shuffle_skew_mean", "rack_link_skew", "hosts_lost"}) {
		t.Errorf("summary header %v: the memory columns are not followed by the skew ones and hosts_lost alone", SummaryHeader)
	}
}
