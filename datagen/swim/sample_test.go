package swim

import (
	"io"
	"strings"
	"testing"
)

const sampleTrace = "j0\t100\t5\t10\t0\t1\nj1\t103\t3\t10\t0\t1\n\nj2\t110\t7\t10\t0\t1\nj3\t112\t2\t10\t0\t1\n"

func TestSampleKeepsOrderAndOwnGaps(t *testing.T) {
	r, err := Sample(strings.NewReader(sampleTrace), "t.tsv", 4, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	// all four, in trace order, submit times the running sum of the gaps
	want := "j0\t5\t5\t10\t0\t1\nj1\t8\t3\t10\t0\t1\nj2\t15\t7\t10\t0\t1\nj3\t17\t2\t10\t0\t1\n"
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

func TestSampleIsSeededAndSized(t *testing.T) {
	read := func(seed uint64) string {
		r, err := Sample(strings.NewReader(sampleTrace), "t.tsv", 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		return string(b)
	}
	a := read(1)
	if a != read(1) {
		t.Fatal("same seed, different samples")
	}
	if n := strings.Count(a, "\n"); n != 2 {
		t.Fatalf("sample of 2 has %d lines:\n%s", n, a)
	}
	seen := map[string]bool{}
	for s := uint64(1); s <= 20; s++ {
		seen[read(s)] = true
	}
	if len(seen) < 2 {
		t.Fatal("20 seeds drew one sample: the seed is not used")
	}
}

func TestSampleErrors(t *testing.T) {
	for _, c := range []struct {
		trace string
		n     int
		want  string
	}{
		{sampleTrace, 5, "sample of 5 jobs from a trace of 4"},
		{sampleTrace, 0, "sample must be positive"},
		{"j0\t1\tx\t1\t0\t1\n", 1, "t.tsv:1: gap (field 3)"},
	} {
		_, err := Sample(strings.NewReader(c.trace), "t.tsv", c.n, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Sample(n=%d): %v, want %q", c.n, err, c.want)
		}
	}
}

func TestImportSample(t *testing.T) {
	o := DefaultOptions()
	o.Sample, o.SampleSeed = 3, 4
	w, _, err := Import(strings.NewReader(sampleTrace), "t.tsv", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 {
		t.Fatalf("%d jobs, want 3", len(w.Jobs))
	}
}
