package swim

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// The traces are in the repository's traces/ directory.
var traceDir = filepath.Join("..", "..", "traces", "swim")

func openTrace(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(traceDir, name))
	if err != nil {
		t.Fatalf("trace missing from traces/: %v", err)
	}
	return data
}

func TestFacebookTraces(t *testing.T) {
	// Totals computed once with awk -F'\t' '{s+=$4} ...' over the files.
	for _, tc := range []struct {
		file                   string
		jobs, mapOnly, empty   int
		input, shuffle, output int64
	}{
		{"FB-2009_samples_24_times_1hr_0.tsv", 5894, 4448, 86, 26886497357605, 22216712306762, 6852686303142},
		{"FB-2010_samples_24_times_1hr_0.tsv", 24442, 8324, 418, 1082621755403831, 437891230970678, 339413094842194},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := openTrace(t, tc.file)
			w, ds, st, err := ImportStats(bytes.NewReader(data), tc.file, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Jobs) != tc.jobs || len(ds.Datasets) != tc.jobs || st.Jobs != tc.jobs {
				t.Errorf("%d jobs, %d datasets, stats %d; want %d", len(w.Jobs), len(ds.Datasets), st.Jobs, tc.jobs)
			}
			want := Stats{Jobs: tc.jobs, MapOnly: tc.mapOnly, EmptyInput: tc.empty, InputBytes: tc.input, ShuffleBytes: tc.shuffle, OutputBytes: tc.output,
				Datasets: tc.jobs, DatasetBytes: tc.input}
			if st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
			var input, output int64
			mapOnly, empty := 0, 0
			for i := range ds.Datasets {
				d := &ds.Datasets[i]
				input += d.Size
				var sum int64
				for _, b := range d.BlockSizes() {
					sum += b
				}
				if sum != d.Size {
					t.Fatalf("dataset %s: blocks add up to %d, size %d", d.Name, sum, d.Size)
				}
				j := w.Jobs[i]
				if d.Size == 0 {
					empty++
					if j.Stages[0].Tasks != 1 {
						t.Errorf("job %s: empty input but %d map tasks", j.ID, j.Stages[0].Tasks)
					}
				}
				if len(j.Stages) == 1 {
					mapOnly++
				}
				output += j.Stages[len(j.Stages)-1].OutputBytes
			}
			if input != tc.input || output != tc.output || mapOnly != tc.mapOnly || empty != tc.empty {
				t.Errorf("input %d, output %d, map-only %d, empty %d", input, output, mapOnly, empty)
			}
			if err := w.Validate(ds); err != nil {
				t.Fatal(err)
			}

			// Through the files and back.
			w2, ds2, err := workload.RoundTrip(w, ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(w2, w) || !reflect.DeepEqual(ds2, ds) {
				t.Error("the imported workload does not survive its YAML files")
			}
		})
	}
}

func TestMapping(t *testing.T) {
	trace := "job0\t49\t49\t740773\t2339561\t627471\n" +
		"job1\t101\t52\t268435457\t0\t9838062\n" + // map-only, 3 blocks of 128 MiB
		"\n" +
		"job2\t122.5\t21\t0\t3000000000\t5\r\n" + // empty input, 3 GB shuffle
		"job3\t130\t8\t0\t0\t0\n"
	w, ds, err := Import(strings.NewReader(trace), "t.tsv", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	const blk = 128 << 20
	wantDS := []workload.Dataset{
		{Name: "in-job0", Size: 740773, BlockSize: blk, Replication: 3},
		{Name: "in-job1", Size: 268435457, BlockSize: blk, Replication: 3},
		{Name: "in-job2", Size: 0, BlockSize: blk, Replication: 3},
		{Name: "in-job3", Size: 0, BlockSize: blk, Replication: 3},
	}
	if !reflect.DeepEqual(ds.Datasets, wantDS) {
		t.Errorf("datasets\n got %+v\nwant %+v", ds.Datasets, wantDS)
	}
	want := []workload.Job{
		{ID: "job0", Arrival: 49, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-job0", Selectivity: 2339561.0 / 740773, ComputeNsPerByte: 5},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}, OutputBytes: 627471, ComputeNsPerByte: 5},
		}},
		{ID: "job1", Arrival: 101, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-job1", OutputBytes: 9838062, ComputeNsPerByte: 5},
		}},
		{ID: "job2", Arrival: 122.5, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-job2", Tasks: 1, OutputBytes: 3e9, ComputeNsPerByte: 5},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 3, After: []string{"map"}, OutputBytes: 5, ComputeNsPerByte: 5},
		}},
		{ID: "job3", Arrival: 130, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-job3", Tasks: 1, ComputeNsPerByte: 5},
		}},
	}
	if !reflect.DeepEqual(w.Jobs, want) {
		t.Errorf("jobs\n got %+v\nwant %+v", w.Jobs, want)
	}
	if n := len(ds.Datasets[1].BlockSizes()); n != 3 {
		t.Errorf("job1 input has %d blocks, want 3", n)
	}

	// Scaled down, with other options.
	opts := Options{Scale: 0.5, BlockSize: 1 << 20, Replication: 2, ReduceBytes: 1e9, ComputeNsPerByte: 0, MaxJobs: 3}
	w, ds, st, err := ImportStats(strings.NewReader(trace), "t.tsv", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 || st.Jobs != 3 {
		t.Fatalf("MaxJobs 3 gave %d jobs", len(w.Jobs))
	}
	if d := ds.Datasets[0]; d.Size != 370387 || d.BlockSize != 1<<20 || d.Replication != 2 {
		t.Errorf("scaled dataset %+v", d)
	}
	if s := w.Jobs[2].Stages; s[0].OutputBytes != 1.5e9 || s[1].Tasks != 2 || s[1].OutputBytes != 3 || s[0].ComputeNsPerByte != 0 {
		t.Errorf("scaled job2 %+v", s)
	}
	if s := w.Jobs[0].Stages; s[0].Selectivity != 2339561.0/740773 || s[1].OutputBytes != 313736 {
		t.Errorf("scaled job0 %+v", s)
	}
	if st.InputBytes != 370387+134217729 || st.ShuffleBytes != 1169781+1.5e9 {
		t.Errorf("scaled stats %+v", st)
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"fields", "job0\t1\t1\t1\t1\n", "t.tsv:1: want 6 tab-separated fields"},
		{"too many", "job0\t1\t1\t1\t1\t1\t1\n", "t.tsv:1: want 6 tab-separated fields"},
		{"spaces", "job0 1 1 1 1 1\n", "t.tsv:1: want 6 tab-separated fields"},
		{"no id", "\t1\t1\t1\t1\t1\n", "t.tsv:1: job id (field 1) is empty"},
		{"dup id", "a\t1\t1\t1\t1\t1\nb\t1\t1\t1\t1\t1\na\t1\t1\t1\t1\t1\n", `t.tsv:3: job id "a" is used twice (first on line 1)`},
		{"submit", "job0\tsoon\t1\t1\t1\t1\n", `t.tsv:1: submit time (field 2): "soon" is not a number`},
		{"submit negative", "job0\t-5\t1\t1\t1\t1\n", "t.tsv:1: submit time (field 2): -5 is negative"},
		{"gap nan", "job0\t5\tNaN\t1\t1\t1\n", `t.tsv:1: gap (field 3): "NaN" is not a number`},
		{"gap negative", "job0\t5\t-1\t1\t1\t1\n", "t.tsv:1: gap (field 3): -1 is negative"},
		{"input text", "ok\t1\t1\t1\t1\t1\njob0\t5\t1\tlots\t1\t1\n", `t.tsv:2: map input bytes (field 4): "lots" is not a whole number`},
		{"input fraction", "job0\t5\t1\t1.5\t1\t1\n", `t.tsv:1: map input bytes (field 4): "1.5" is not a whole number`},
		{"id not UTF-8", "job0\t5\t1\t1\t1\t1\njo\xffb1\t5\t1\t1\t1\t1\n", `t.tsv:2: column 3: byte 0xff is not UTF-8 text`},
		{"U+FFFD is text", "job\ufffd\t5\t1\tx\t1\t1\n", `t.tsv:1: map input bytes (field 4): "x" is not a whole number`},
		{"shuffle negative", "job0\t5\t1\t1\t-1\t1\n", "t.tsv:1: shuffle bytes (field 5): -1 is negative"},
		{"output range", "job0\t5\t1\t1\t1\t99999999999999999999\n", "t.tsv:1: reduce output bytes (field 6): 99999999999999999999 is out of range"},
		{"sum overflow", "a\t5\t1\t4000000000000000000\t1\t1\nb\t5\t1\t4000000000000000000\t1\t1\nc\t5\t1\t4000000000000000000\t1\t1\n", "t.tsv:3: the trace's total bytes exceed"},
		// the workload's limits (workload.MaxBytes, MaxArrivalS, ...)
		{"size above 2^62", "job0\t5\t1\t9000000000000000000\t1\t1\n", "t.tsv:1: map input bytes (field 4): 9000000000000000000 bytes (scaled) is above the limit of 2^62"},
		{"arrival huge", "job0\t1e300\t1\t1\t1\t1\n", "t.tsv:1: submit time (field 2): 1e300 s is above the limit of 1e+09 s"},
		{"blocks too many", "x\t5\t1\t10\t0\t1\njob0\t5\t1\t4000000000000000000\t0\t1\n", `t.tsv:2: job "job0" stage "map": 29802322388 tasks (one per input block) is above the limit of 10000000`},
		{"workload total", "x\t5\t1\t10\t0\t1\njob0\t5\t1\t1\t3000000000000000000\t3000000000000000000\n", `t.tsv:2: job "job0" stage "reduce": the workload's total of stage inputs and outputs is 9e+18 bytes, above the limit of 2^62`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Import(strings.NewReader(tc.src), "t.tsv", DefaultOptions())
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
	for _, o := range []Options{{}, {Scale: 1, BlockSize: 1, Replication: 1}, {Scale: -1, BlockSize: 1, Replication: 1, ReduceBytes: 1}} {
		if _, _, err := Import(strings.NewReader(""), "t.tsv", o); err == nil || !strings.HasPrefix(err.Error(), "t.tsv: ") {
			t.Errorf("options %+v: error %v", o, err)
		}
	}
	w, ds, err := Import(strings.NewReader(""), "t.tsv", DefaultOptions())
	if err != nil || len(w.Jobs) != 0 || len(ds.Datasets) != 0 {
		t.Errorf("empty trace: %v %v %v", w, ds, err)
	}
}

func FuzzImport(f *testing.F) {
	f.Add([]byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t0\t432269\n"), 1.0)
	f.Add([]byte("job2\t122.5\t21\t0\t3000000000\t5\r\n\njob3\t1\t1\t0\t0\t0\n"), 0.001)
	f.Add([]byte("a\t1\t1\t1\t1\n"), 2.0)
	f.Add([]byte("a\t1\t1\t9223372036854775807\t9223372036854775807\t1\n"), 1e-9)
	f.Add([]byte("job0\t1\t1\t2267942\t0\t1937944\tinputPath1\t\t\njob1\t2\t1\t0\t5\t1\tinputPath0\toutputPath1\t\n"), 1.0)
	f.Add([]byte("a\t1\t1\t10\t20\t1\t/t/x\t/t/y\t\nb\t2\t1\t30\t0\t1\t/t/y\t\t\nc\t3\t1\t5\t7\t1\t/t/x\t\t\n"), 0.5)
	f.Add([]byte("a\t1\t1\t10\t20\t1\tinputPath2\t\t\n"), 1.0)
	f.Fuzz(func(t *testing.T, data []byte, scale float64) {
		opts := DefaultOptions()
		opts.BlockSize = 1 << 30
		opts.Scale = scale
		w, ds, err := Import(bytes.NewReader(data), "f.tsv", opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.tsv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := w.Validate(ds); err != nil {
			t.Fatal(err)
		}
		size := map[string]int64{}
		for _, d := range ds.Datasets {
			if d.Size < 0 {
				t.Fatalf("dataset %+v", d)
			}
			size[d.Name] = d.Size
		}
		read := map[string]bool{}
		for _, j := range w.Jobs {
			m := j.Stages[0]
			// One task when there are no blocks to split, else one a block.
			if (size[m.Input] == 0) != (m.Tasks == 1) || (m.Tasks != 0 && m.Tasks != 1) {
				t.Fatalf("job %s: map stage %+v of a %d-byte dataset", j.ID, m, size[m.Input])
			}
			read[m.Input] = true
		}
		if len(read) != len(ds.Datasets) {
			t.Fatalf("%d datasets, %d read", len(ds.Datasets), len(read))
		}
	})
}

func BenchmarkImportFB2010(b *testing.B) {
	data := openTrace(b, "FB-2010_samples_24_times_1hr_0.tsv")
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, _, err := Import(bytes.NewReader(data), "fb2010", DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseFB2010Workload reads the workload file of the whole 2010
// trace (24,442 jobs) back, as a run would.
func BenchmarkParseFB2010Workload(b *testing.B) {
	data := openTrace(b, "FB-2010_samples_24_times_1hr_0.tsv")
	w, ds, err := Import(bytes.NewReader(data), "fb2010", DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	var wb bytes.Buffer
	if err := workload.WriteWorkload(&wb, w); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(wb.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := workload.ParseWorkloadFor("w.yaml", wb.Bytes(), ds); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMaxReducersCapsReduceTasks(t *testing.T) {
	line := "big\t0\t0\t1000\t5000000000000\t10\n" // 5 TB of shuffle: 4,657 reducers at 1 GiB
	for _, tc := range []struct{ max, want int }{{999, 999}, {0, 4657}, {10000, 4657}} {
		o := DefaultOptions()
		o.MaxReducers = tc.max
		w, _, err := Import(strings.NewReader(line), "t.tsv", o)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Jobs[0].Stages[1].Tasks; got != tc.want {
			t.Errorf("max %d: %d reducers, want %d", tc.max, got, tc.want)
		}
	}
	o := DefaultOptions()
	o.MaxReducers = -1
	if _, _, err := Import(strings.NewReader(line), "t.tsv", o); err == nil {
		t.Error("negative max reducers accepted")
	}
}

// The first 50 lines of SWIM's FB-2010 trace with input paths (see
// testdata/README.md). The expectations come from reading the lines with
// SWIM's numbering (see swimNumbering): 38 distinct paths, the highest
// number in the excerpt being a first read; the repeats are job5 of job2,
// job18, 30, 31 and 32 of job13, job39 of job14, job21 to 25 of job20, and
// job48 of job28 — 17 jobs in 5 shared datasets.
const withPaths = "testdata/FB-2010_withInputPaths_first50.tsv"

func TestInputPaths(t *testing.T) {
	data, err := os.ReadFile(withPaths)
	if err != nil {
		t.Fatal(err)
	}
	w, ds, st, err := ImportStats(bytes.NewReader(data), withPaths, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !st.WithPaths || st.Jobs != 50 || st.Datasets != 38 || len(ds.Datasets) != 38 || st.SharedInputJobs != 17 || st.InputWasOutput != 0 {
		t.Fatalf("stats %+v", st)
	}
	input := map[string]string{}
	for _, j := range w.Jobs {
		input[j.ID] = j.Stages[0].Input
	}
	for dataset, jobs := range map[string][]string{
		"in-job2":  {"job2", "job5"},
		"in-job13": {"job13", "job18", "job30", "job31", "job32"},
		"in-job14": {"job14", "job39"},
		"in-job20": {"job20", "job21", "job22", "job23", "job24", "job25"},
		"in-job28": {"job28", "job48"},
		"in-job1":  {"job1"},
		"in-job12": {"job12"},
		"in-job27": {"job27"},
	} {
		for _, id := range jobs {
			if input[id] != dataset {
				t.Errorf("%s reads %s, want %s", id, input[id], dataset)
			}
		}
	}
	sizes := map[string]int64{}
	var total int64
	for _, d := range ds.Datasets {
		sizes[d.Name] = d.Size
		total += d.Size
	}
	// The largest read of the path: job30's, of job13's path.
	if sizes["in-job13"] != 178052491343 || sizes["in-job2"] != 90015105 || sizes["in-job28"] != 1 || total != st.DatasetBytes {
		t.Errorf("sizes %v, total %d, stats %d", sizes, total, st.DatasetBytes)
	}
	byID := map[string]workload.Job{}
	for _, j := range w.Jobs {
		byID[j.ID] = j
	}
	// job13 read less than job30: its map output is the trace's shuffle,
	// not its selectivity times the larger dataset; job30, the largest
	// read, keeps its selectivity as in a trace without paths.
	if m := byID["job13"].Stages[0]; m.OutputBytes != 120538786 || m.Selectivity != 0 || m.Tasks != 0 {
		t.Errorf("job13 map %+v", m)
	}
	if m := byID["job30"].Stages[0]; m.OutputBytes != 0 || m.Selectivity != 143046233.0/178052491343 {
		t.Errorf("job30 map %+v", m)
	}
	// The jobs of one size keep their selectivity.
	if m := byID["job21"].Stages[0]; m.Selectivity != 108.0/782110652 {
		t.Errorf("job21 map %+v", m)
	}

	// Taken literally, the names pair the repeats with the wrong paths:
	// job5 with job1's 21 GB, job18 with job12's 15 kB path, which then
	// becomes 178 GB.
	o := DefaultOptions()
	o.LiteralPaths = true
	w, ds, st, err = ImportStats(bytes.NewReader(data), withPaths, o)
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[5].Stages[0].Input != "in-job1" || w.Jobs[18].Stages[0].Input != "in-job12" || st.Datasets != 38 {
		t.Errorf("literal: job5 reads %s, job18 %s; %d datasets", w.Jobs[5].Stages[0].Input, w.Jobs[18].Stages[0].Input, st.Datasets)
	}
	for _, d := range ds.Datasets {
		if d.Name == "in-job12" && d.Size != 178052491343 {
			t.Errorf("literal: %+v", d)
		}
	}
}

// Paths that are not SWIM's numbered names are taken as written; an empty
// input path gives the job a dataset of its own; a job with an empty input
// that shares a dataset reads its blocks.
func TestLiteralPaths(t *testing.T) {
	trace := "a\t1\t1\t1000\t500\t10\t/warehouse/t1\t/tmp/a\t\n" +
		"b\t2\t1\t3000\t0\t20\t/warehouse/t1\t\t\n" +
		"c\t3\t1\t0\t700\t30\t/warehouse/t1\t/tmp/c\t\n" +
		"d\t4\t1\t400\t0\t40\t\t\t\n" +
		"e\t5\t1\t50\t60\t70\t/tmp/a\t\t\n" + // a's output
		"f\t6\t1\t50\t60\t70\tinputPath1\t\t\n" // literal: the first path decided
	o := DefaultOptions()
	o.BlockSize = 1024
	w, ds, st, err := ImportStats(strings.NewReader(trace), "t.tsv", o)
	if err != nil {
		t.Fatal(err)
	}
	wantDS := []workload.Dataset{
		{Name: "in-a", Size: 3000, BlockSize: 1024, Replication: 3},
		{Name: "in-d", Size: 400, BlockSize: 1024, Replication: 3},
		{Name: "in-e", Size: 50, BlockSize: 1024, Replication: 3},
		{Name: "in-f", Size: 50, BlockSize: 1024, Replication: 3},
	}
	if !reflect.DeepEqual(ds.Datasets, wantDS) {
		t.Errorf("datasets\n got %+v\nwant %+v", ds.Datasets, wantDS)
	}
	want := []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in-a", OutputBytes: 500, ComputeNsPerByte: 5},
		{Name: "map", Kind: workload.Map, Input: "in-a", OutputBytes: 20, ComputeNsPerByte: 5},
		{Name: "map", Kind: workload.Map, Input: "in-a", OutputBytes: 700, ComputeNsPerByte: 5},
		{Name: "map", Kind: workload.Map, Input: "in-d", OutputBytes: 40, ComputeNsPerByte: 5},
		{Name: "map", Kind: workload.Map, Input: "in-e", Selectivity: 60.0 / 50, ComputeNsPerByte: 5},
		{Name: "map", Kind: workload.Map, Input: "in-f", Selectivity: 60.0 / 50, ComputeNsPerByte: 5},
	}
	for i, j := range w.Jobs {
		if !reflect.DeepEqual(j.Stages[0], want[i]) {
			t.Errorf("job %s map\n got %+v\nwant %+v", j.ID, j.Stages[0], want[i])
		}
	}
	if st.Datasets != 4 || st.DatasetBytes != 3500 || st.InputBytes != 4500 || st.SharedInputJobs != 3 || st.InputWasOutput != 1 || st.EmptyInput != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMalformedWithPaths(t *testing.T) {
	ok := "job0\t1\t1\t10\t0\t1\tinputPath1\t\t\n"
	for _, tc := range []struct{ name, src, want string }{
		{"eight", "job0\t1\t1\t1\t1\t1\tinputPath1\t\n", "t.tsv:1: want 6 tab-separated fields"},
		{"ten", "job0\t1\t1\t1\t1\t1\tinputPath1\t\t\t\n", "t.tsv:1: want 6 tab-separated fields"},
		{"mixed", ok + "job1\t1\t1\t1\t1\t1\n", "t.tsv:2: want 9 tab-separated fields, as on line 1, got 6"},
		{"mixed 6 then 9", "job1\t1\t1\t1\t1\t1\n\n" + ok, "t.tsv:3: want 6 tab-separated fields, as on line 1, got 9"},
		{"field 9", "job0\t1\t1\t10\t0\t1\tinputPath1\t\tx\n", `t.tsv:1: field 9: "x" should be empty`},
		{"input still checked", "job0\t1\t1\tten\t0\t1\tinputPath1\t\t\n", `t.tsv:1: map input bytes (field 4): "ten"`},
		{"first not 1", "job0\t1\t1\t10\t0\t1\tinputPath2\t\t\n", `t.tsv:1: input path (field 7): "inputPath2" does not follow the numbering`},
		{"skipped", ok + "job1\t1\t1\t10\t0\t1\tinputPath3\t\t\n", "t.tsv:2: input path (field 7): \"inputPath3\" does not follow the numbering of SWIM's WorkloadSynthesis.pl, as the trace's first input path does: after 1 distinct paths, want inputPath2 (a new path) or inputPath0 to inputPath0 (a repeat)"},
		{"not yet", ok + "job1\t1\t1\t10\t0\t1\tinputPath1\t\t\n", `t.tsv:2: input path (field 7): "inputPath1" does not follow`},
		{"other name", ok + "job1\t1\t1\t10\t0\t1\t/data/x\t\t\n", `t.tsv:2: input path (field 7): "/data/x" does not follow`},
		{"leading zero", ok + "job1\t1\t1\t10\t0\t1\tinputPath02\t\t\n", `t.tsv:2: input path (field 7): "inputPath02" does not follow`},
		{"huge", ok + "job1\t1\t1\t10\t0\t1\tinputPath99999999999999999999\t\t\n", `t.tsv:2: input path (field 7): "inputPath99999999999999999999" does not follow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Import(strings.NewReader(tc.src), "t.tsv", DefaultOptions())
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
	// Literal paths take any name.
	o := DefaultOptions()
	o.LiteralPaths = true
	if _, _, err := Import(strings.NewReader("job0\t1\t1\t10\t0\t1\tinputPath2\t\t\n"), "t.tsv", o); err != nil {
		t.Error(err)
	}
}

// ReadSizes gives the trace's bytes unscaled, in order, and refuses what
// Import refuses, with the line.
func TestReadSizes(t *testing.T) {
	trace := "j0\t0\t0\t1000\t10\t5\nj1\t1\t1\t0\t0\t7\nj2\t2\t1\t3000000000000\t2\t0\n"
	got, err := ReadSizes(strings.NewReader(trace), "t.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []JobSizes{{1000, 10, 5}, {0, 0, 7}, {3000000000000, 2, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSizes = %v, want %v", got, want)
	}
	if _, err := ReadSizes(strings.NewReader(trace+"j3\t3\t1\t10\tx\t0\n"), "t.tsv"); err == nil || !strings.Contains(err.Error(), "t.tsv:4") {
		t.Errorf("a malformed line: err = %v, want one naming t.tsv:4", err)
	}
}
