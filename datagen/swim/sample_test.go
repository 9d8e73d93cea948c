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
	// all four, in trace order, submit times the running sum of the gaps,
	// on their lines of the trace (its blank line 3 kept)
	want := "j0\t5\t5\t10\t0\t1\nj1\t8\t3\t10\t0\t1\n\nj2\t15\t7\t10\t0\t1\nj3\t17\t2\t10\t0\t1\n"
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
	if n := len(strings.Fields(a)) / 6; n != 2 {
		t.Fatalf("sample of 2 has %d jobs:\n%s", n, a)
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
		{"j0\t1\tInf\t1\t0\t1\n", 1, "t.tsv:1: gap (field 3): \"Inf\" is not a non-negative number"},
		{"j0\t1\t6e8\t1\t0\t1\nj1\t1\t6e8\t1\t0\t1\n", 2, "t.tsv:2: gap (field 3): the sample's gaps add up to 1.2e+09 s here, above the limit"},
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

// An error in a sampled line names its line in the trace: the sample
// keeps the trace's line numbers. Before, it named the line's place in
// the sample (line 2 for the trace's line 4).
func TestImportSampleErrorNamesTheTracesLine(t *testing.T) {
	trace := "j0\t100\t5\t10\t0\t1\nj1\t103\t3\t10\t0\t1\nj2\t104\t1\t10\t0\t1\nj3\t112\t2\t10\tBAD\t1\n"
	o := DefaultOptions()
	o.Sample = 4
	_, _, err := Import(strings.NewReader(trace), "t.tsv", o)
	if err == nil || !strings.Contains(err.Error(), "t.tsv (sample of 4, seed 0):4: shuffle bytes (field 5)") {
		t.Errorf("err %v, want line 4's shuffle bytes", err)
	}
}

// A line too long to read names its line, as Import's error does (the
// sample's said only the file).
func TestSampleLongLineNamesLine(t *testing.T) {
	trace := "j1\t0\t0\t1\t1\t1\nj2\t0\t0\t1\t1\t" + strings.Repeat("1", 2<<20) + "\n"
	_, err := Sample(strings.NewReader(trace), "long.tsv", 1, 1)
	if err == nil || !strings.Contains(err.Error(), "long.tsv:2: bufio.Scanner: token too long") {
		t.Fatalf("error %v, want the line", err)
	}
}
