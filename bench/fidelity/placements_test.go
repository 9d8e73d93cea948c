package fidelity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lags' median and 90th percentile are nearest-rank, as the results'
// other percentiles: of ten lags 0..9 s, 4 s and 8 s (not 5 s and the
// maximum, 9 s).
func TestPlacementLagPercentiles(t *testing.T) {
	rec, rep := t.TempDir(), t.TempDir()
	const head = "job,stage,task,attempt,host,source_host,start_s\n"
	var a, b strings.Builder
	a.WriteString(head)
	b.WriteString(head)
	for i := range 10 {
		fmt.Fprintf(&a, "j,0,%d,%d,0,1,0\n", i, i)
		fmt.Fprintf(&b, "j,0,%d,%d,0,1,%d\n", i, i, 9-i)
	}
	for dir, text := range map[string]string{rec: a.String(), rep: b.String()} {
		if err := os.WriteFile(filepath.Join(dir, "attempts.csv"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Placements(rec, rep)
	if err != nil {
		t.Fatal(err)
	}
	if c.Same != 10 || c.Total != 10 || c.LagP50 != 4 || c.LagP90 != 8 {
		t.Errorf("check %+v, want 10 of 10, median 4 s, p90 8 s", c)
	}
}
