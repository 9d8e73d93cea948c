package coflow

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// The traces are in the repository's traces/ directory.
var tracePath = filepath.Join("..", "..", "traces", "coflow", "FB2010-1Hr-150-0.txt")

func openTrace(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatalf("trace missing from traces/: %v", err)
	}
	return data
}

func uniform(t testing.TB, racks, hosts int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: 4, NICBps: 1.25e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// naiveTotals parses the trace independently of Import: the header, and
// the sum of the MB after each ':'.
func naiveTotals(t *testing.T, data []byte) (ports, coflows, lines int, mb float64) {
	all := strings.Split(strings.TrimSpace(string(data)), "\n")
	h := strings.Fields(all[0])
	ports, _ = strconv.Atoi(h[0])
	coflows, _ = strconv.Atoi(h[1])
	for _, l := range all[1:] {
		lines++
		for _, tok := range strings.Fields(l) {
			if _, v, ok := strings.Cut(tok, ":"); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				mb += x
			}
		}
	}
	return
}

func TestFacebookTrace(t *testing.T) {
	data := openTrace(t)
	ports, coflows, lines, mb := naiveTotals(t, data)
	if ports != 150 || coflows != 526 || lines != 526 {
		t.Fatalf("header %d ports, %d coflows; %d coflow lines", ports, coflows, lines)
	}
	// awk 'NR>1{for(i=1;i<=NF;i++) if(split($i,a,":")==2) s+=a[2]} END{print s}' FB2010-1Hr-150-0.txt
	// prints 35533534 (MB).
	if mb != 35533534 {
		t.Errorf("the trace holds %g MB, want 35533534", mb)
	}
	wantShuffle := int64(35533534) * MB

	for _, size := range [][2]int{{150, 2}, {10, 3}} {
		t.Run(strconv.Itoa(size[0])+"x"+strconv.Itoa(size[1]), func(t *testing.T) {
			topo := uniform(t, size[0], size[1])
			w, ds, st, err := ImportStats(bytes.NewReader(data), "fb", topo, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if st.Ports != 150 || len(st.Coflows) != 526 || len(w.Jobs) != 526 || len(ds.Datasets) != 526 {
				t.Fatalf("%d ports, %d coflows, %d jobs, %d datasets", st.Ports, len(st.Coflows), len(w.Jobs), len(ds.Datasets))
			}
			if st.ShuffleBytes != wantShuffle || st.InputBytes != wantShuffle || st.OutputBytes != 0 {
				t.Errorf("shuffle %d, input %d, output %d; want shuffle = input = %d", st.ShuffleBytes, st.InputBytes, st.OutputBytes, wantShuffle)
			}
			if err := w.Validate(ds); err != nil {
				t.Fatal(err)
			}
			if err := ds.Validate(topo); err != nil {
				t.Fatal(err)
			}
			var input, shuffle, reducerSum int64
			maps, reduces := 0, 0
			for i, c := range st.Coflows {
				j, d := w.Jobs[i], ds.Datasets[i]
				if j.ID != c.Job || d.Name != "in-"+c.Job || j.Stages[0].Input != d.Name {
					t.Fatalf("coflow %s: job %s, dataset %s", c.ID, j.ID, d.Name)
				}
				if len(d.Blocks) != len(c.Mappers) || j.Stages[1].Tasks != len(c.Reducers) {
					t.Fatalf("coflow %s: %d blocks for %d mappers, %d reduce tasks for %d reducers", c.ID, len(d.Blocks), len(c.Mappers), j.Stages[1].Tasks, len(c.Reducers))
				}
				for k, b := range d.Blocks {
					mp := c.Mappers[k]
					h := b.Replicas[0].Host
					if len(b.Replicas) != 1 || b.Size != mp.Bytes || h != mp.Host || topo.RackOf(h) != mp.Rack ||
						int(mp.Rack) != mp.Port%size[0] || b.Replicas[0].Tier != cluster.HDD {
						t.Fatalf("coflow %s block %d: %+v, mapper %+v", c.ID, k, b, mp)
					}
				}
				var cs int64
				for _, r := range c.Reducers {
					if int(r.Rack) != r.Port%size[0] {
						t.Fatalf("coflow %s: reducer %+v", c.ID, r)
					}
					cs += r.Bytes
				}
				if cs != c.ShuffleBytes || j.Stages[0].OutputBytes != cs || d.TotalBytes() != cs || d.Size != cs {
					t.Fatalf("coflow %s: reducers %d, shuffle %d, map output %d, input %d", c.ID, cs, c.ShuffleBytes, j.Stages[0].OutputBytes, d.TotalBytes())
				}
				input += d.TotalBytes()
				shuffle += j.Stages[0].OutputBytes
				reducerSum += cs
				maps += len(d.Blocks)
				reduces += j.Stages[1].Tasks
			}
			if input != wantShuffle || shuffle != wantShuffle || reducerSum != wantShuffle || maps != st.MapTasks || reduces != st.ReduceTasks {
				t.Errorf("input %d, shuffle %d, reducers %d, tasks %d/%d", input, shuffle, reducerSum, maps, reduces)
			}
			if last := w.Jobs[len(w.Jobs)-1].Arrival; last < 3600 || last > 3700 {
				t.Errorf("last arrival %g s, want about an hour", last)
			}

			// Through the files and back.
			w2, ds2, err := workload.RoundTrip(w, ds, topo)
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
	trace := "5 3\n" +
		"7 1500 2 0 3 2 1:1.0 4:2.5\n" +
		"\n" +
		"8 2000 3 3 3 1 1 0:3\r\n" +
		"9 2500 1 4 1 2:0\n"
	topo := uniform(t, 3, 2)
	w, ds, st, err := ImportStats(strings.NewReader(trace), "t.txt", topo, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	const mb = 1 << 20
	hdd := cluster.HDD
	rep := func(h cluster.HostID) []workload.Replica { return []workload.Replica{{Host: h, Tier: hdd}} }
	// Port p is on rack p mod 3; hosts of rack r are 2r and 2r+1, taken in turn.
	wantDS := []workload.Dataset{
		{Name: "in-coflow7", Size: 3.5 * mb, Blocks: []workload.Block{{Size: 1.75 * mb, Replicas: rep(0)}, {Size: 1.75 * mb, Replicas: rep(1)}}},
		{Name: "in-coflow8", Size: 3 * mb, Blocks: []workload.Block{{Size: mb, Replicas: rep(0)}, {Size: mb, Replicas: rep(1)}, {Size: mb, Replicas: rep(2)}}},
		{Name: "in-coflow9", Size: 0, Blocks: []workload.Block{{Size: 0, Replicas: rep(3)}}},
	}
	if !reflect.DeepEqual(ds.Datasets, wantDS) {
		t.Errorf("datasets\n got %+v\nwant %+v", ds.Datasets, wantDS)
	}
	job := func(id string, arrival float64, shuffle int64, r int, shares ...float64) workload.Job {
		return workload.Job{ID: id, Arrival: arrival, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-" + id, Selectivity: 1, OutputBytes: shuffle},
			{Name: "reduce", Kind: workload.Reduce, Tasks: r, After: []string{"map"}, Shares: shares},
		}}
	}
	// coflow 7's reducers keep their trace sizes, 1 and 2.5 MB, as weights
	want := []workload.Job{job("coflow7", 1.5, 3.5*mb, 2, 1, 2.5), job("coflow8", 2, 3*mb, 1), job("coflow9", 2.5, 0, 1)}
	if !reflect.DeepEqual(w.Jobs, want) {
		t.Errorf("jobs\n got %+v\nwant %+v", w.Jobs, want)
	}
	wantC := []Reducer{{Port: 1, Rack: 1, Bytes: mb}, {Port: 4, Rack: 1, Bytes: 2.5 * mb}}
	if c := st.Coflows[0]; !reflect.DeepEqual(c.Reducers, wantC) || c.Line != 2 || c.ID != "7" || c.ShuffleBytes != 3.5*mb {
		t.Errorf("coflow 7: %+v", c)
	}
	if c := st.Coflows[1]; c.Line != 4 || c.Mappers[0] != (Mapper{Port: 3, Rack: 0, Host: 0, Bytes: mb}) {
		t.Errorf("coflow 8: %+v", c)
	}
	if st.Ports != 5 || st.MapTasks != 6 || st.ReduceTasks != 4 || st.ShuffleBytes != 6.5*mb {
		t.Errorf("stats %+v", st)
	}

	// Other options: scaled, a remainder block, outputs, compute, memory
	// tier, and a cap on the coflows read (which skips the count check).
	opts := Options{Scale: 0.5, InputRatio: 3, OutputRatio: 0.5, ComputeNsPerByte: 2, Tier: cluster.Mem, MaxCoflows: 2}
	w, ds, st, err = ImportStats(strings.NewReader(trace), "t.txt", topo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || len(st.Coflows) != 2 {
		t.Fatalf("MaxCoflows 2 gave %d jobs", len(w.Jobs))
	}
	// coflow 7: shuffle 1.75 MiB, input 5.25 MiB = 5505024 B in 2 blocks.
	if d := ds.Datasets[0]; d.Size != 5505024 || d.Blocks[0].Size != 2752512 || d.Blocks[1].Size != 2752512 || d.Blocks[0].Replicas[0].Tier != cluster.Mem {
		t.Errorf("dataset %+v", d)
	}
	// coflow 8: shuffle 1.5 MiB, input 4.5 MiB = 4718592 B in 3 blocks.
	if d := ds.Datasets[1]; d.Blocks[0].Size != 1572864 || d.Blocks[2].Size != 1572864 {
		t.Errorf("dataset %+v", d)
	}
	s := w.Jobs[0].Stages
	if s[0].Selectivity != 1.0/3 || s[0].OutputBytes != 1835008 || s[1].OutputBytes != 917504 || s[0].ComputeNsPerByte != 2 || s[1].ComputeNsPerByte != 2 {
		t.Errorf("stages %+v", s)
	}
	if st.InputBytes != 5505024+4718592 || st.ShuffleBytes != 1835008+1572864 || st.OutputBytes != 917504+786432 {
		t.Errorf("stats %+v", st)
	}
	if err := w.Validate(ds); err != nil {
		t.Fatal(err)
	}

	// A remainder goes to the last block.
	_, ds, err = Import(strings.NewReader("1 1\n1 0 3 0 0 0 1 0:0.00000476837158203125\n"), "t.txt", topo, DefaultOptions()) // 5 B
	if err != nil {
		t.Fatal(err)
	}
	if b := ds.Datasets[0].Blocks; b[0].Size != 1 || b[1].Size != 1 || b[2].Size != 3 {
		t.Errorf("blocks %+v", b)
	}

	// A host without the tier gets its slowest.
	memOnly := uniform(t, 1, 1)
	memOnly.Hosts[0].Tiers = cluster.DefaultTiers()[:2]
	_, ds, err = Import(strings.NewReader("1 1\n1 0 1 0 1 0:1\n"), "t.txt", memOnly, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if tr := ds.Datasets[0].Blocks[0].Replicas[0].Tier; tr != cluster.SSD {
		t.Errorf("tier %s, want ssd", tr)
	}
}

// TestReducerSizes checks both ways of splitting a coflow's shuffle on
// the Facebook trace: with the trace's sizes each reducer's weight gives
// it its own bytes (to within a byte) and the stage's total stays the
// shuffle; with the mean, no stage has weights, as before.
func TestReducerSizes(t *testing.T) {
	data := openTrace(t)
	topo := uniform(t, 150, 1)
	w, _, st, err := ImportStats(bytes.NewReader(data), "fb", topo, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	weighted := 0
	for i, c := range st.Coflows {
		stage := w.Jobs[i].Stages[1]
		if stage.Shares == nil {
			for _, r := range c.Reducers {
				if r.Bytes != c.Reducers[0].Bytes {
					t.Fatalf("coflow %s has reducers of different sizes but no shares", c.ID)
				}
			}
			continue
		}
		weighted++
		if len(stage.Shares) != len(c.Reducers) || w.Jobs[i].Stages[0].OutputBytes != c.ShuffleBytes {
			t.Fatalf("coflow %s: %d shares for %d reducers; map output %d, shuffle %d", c.ID, len(stage.Shares), len(c.Reducers), w.Jobs[i].Stages[0].OutputBytes, c.ShuffleBytes)
		}
		var sum float64
		for _, v := range stage.Shares {
			sum += v
		}
		for k, r := range c.Reducers {
			if got := float64(c.ShuffleBytes) * stage.Shares[k] / sum; math.Abs(got-float64(r.Bytes)) > 1 {
				t.Fatalf("coflow %s reducer %d: its weight gives %.1f bytes, the trace %d", c.ID, k, got, r.Bytes)
			}
		}
	}
	if weighted == 0 {
		t.Fatal("no coflow of the trace has reducers of different sizes")
	}

	opts := DefaultOptions()
	opts.ReducerSizes = MeanSizes
	w, _, err = Import(bytes.NewReader(data), "fb", topo, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		if j.Stages[1].Shares != nil {
			t.Fatalf("%s has shares under mean sizes", j.ID)
		}
	}

	// A reducer of 0 MB beside a larger one cannot be weighed.
	_, _, err = Import(strings.NewReader("3 1\n4 0 1 0 2 1:0 2:3\n"), "t.txt", topo, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "t.txt:2: coflow 4: reducer (field 6) has 0 MB") {
		t.Errorf("a 0 MB reducer: %v", err)
	}
	if _, _, err = Import(strings.NewReader("3 1\n4 0 1 0 2 1:0 2:3\n"), "t.txt", topo, opts); err != nil {
		t.Errorf("a 0 MB reducer under mean sizes: %v", err)
	}
	for _, s := range []string{"trace", "mean"} {
		if r, err := ParseReducerSizes(s); err != nil || r.String() != s {
			t.Errorf("ParseReducerSizes(%q) = %v, %v", s, r, err)
		}
	}
	if _, err := ParseReducerSizes("median"); err == nil {
		t.Error("ParseReducerSizes accepted median")
	}
}

func TestHeader(t *testing.T) {
	p, c, err := Header(strings.NewReader("150 526\n1 0 1 22 1 65:1.0\n"), "t.txt")
	if p != 150 || c != 526 || err != nil {
		t.Errorf("%d %d %v", p, c, err)
	}
	if _, _, err := Header(strings.NewReader(""), "t.txt"); err == nil || !strings.HasPrefix(err.Error(), "t.txt:1: missing header") {
		t.Errorf("empty: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "t.txt:1: missing header"},
		{"header fields", "150\n", "t.txt:1: want a header"},
		{"header ports", "0 1\n", `t.txt:1: port count "0"`},
		{"header count", "5 x\n", `t.txt:1: coflow count "x"`},
		{"too few coflows", "5 3\n1 0 1 0 1 1:1\n2 0 1 0 1 1:1\n", "t.txt:1: the header declares 3 coflows, but the file has 2"},
		{"too many coflows", "5 1\n1 0 1 0 1 1:1\n\n2 0 1 0 1 1:1\n", "t.txt:1: the header declares 1 coflows, but line 4 holds one more"},
		{"short line", "5 1\n1 0\n", "t.txt:2: want id, arrival"},
		{"bad id", "5 1\nx 0 1 0 1 1:1\n", `t.txt:2: coflow id (field 1): "x"`},
		{"dup id", "5 2\n1 0 1 0 1 1:1\n1 0 1 0 1 1:1\n", "t.txt:3: coflow id 1 is used twice (first on line 2)"},
		{"dup id spelled otherwise", "5 2\n5 0 1 0 1 1:1\n05 10 1 0 1 1:1\n", "t.txt:3: coflow id 5 is used twice (first on line 2)"},
		{"arrival", "5 1\n1 soon 1 0 1 1:1\n", `t.txt:2: arrival (field 2): "soon"`},
		{"arrival negative", "5 1\n1 -3 1 0 1 1:1\n", "t.txt:2: arrival (field 2): -3 is negative"},
		{"mapper count", "5 1\n1 0 x 0 1 1:1\n", `t.txt:2: mapper count (field 3): "x"`},
		{"no mappers", "5 1\n1 0 0 1 1:1\n", `t.txt:2: mapper count (field 3): "0"`},
		{"fewer mappers", "5 1\n1 0 3 0 1 1 1:1\n", "t.txt:2: coflow 1 declares 3 mappers (field 3) but lists 2"},
		{"more mappers", "5 2\n1 0 1 0 1 1:1\n2 0 1 0 4 1 1:1\n", "t.txt:3: coflow 2 declares 1 mappers (field 3) but lists 2"},
		{"no reducer count", "5 1\n1 0 2 0 1\n", "t.txt:2: coflow 1 declares 2 mappers (field 3) but lists 1"},
		{"mapper port", "5 1\n1 0 1 5 1 1:1\n", "t.txt:2: mapper port (field 4): 5 is outside 0..4"},
		{"mapper port negative", "5 1\n1 0 2 0 -1 1 1:1\n", "t.txt:2: mapper port (field 5): -1 is outside"},
		{"mapper port text", "5 1\n1 0 2 0 a 1 1:1\n", `t.txt:2: mapper port (field 5): "a"`},
		{"reducer count", "5 1\n1 0 1 0 0\n", `t.txt:2: reducer count (field 5): "0"`},
		{"fewer reducers", "5 1\n1 0 1 0 3 1:1 2:2\n", "t.txt:2: coflow 1 declares 3 reducers (field 5) but lists 2"},
		{"more reducers", "5 1\n1 0 1 0 1 1:1 2:2\n", "t.txt:2: coflow 1 declares 1 reducers (field 5) but lists 2"},
		{"trailing", "5 1\n1 0 1 0 2 1:1 2:2 junk\n", `t.txt:2: trailing fields after the 2 reducers (field 8 on): "junk"`},
		{"reducer port", "5 1\n1 0 1 0 2 1:1 7:2\n", "t.txt:2: reducer port (field 7): 7 is outside 0..4"},
		{"reducer port text", "5 1\n1 0 1 0 1 p:2\n", `t.txt:2: reducer port (field 6): "p"`},
		{"pair", "5 1\n1 0 1 0 1 1:lots\n", `t.txt:2: reducer (field 6): "1:lots" is not a port:MB pair`},
		{"pair empty", "5 1\n1 0 1 0 1 1:\n", `t.txt:2: reducer (field 6): "1:" is not a port:MB pair`},
		{"pair double", "5 1\n1 0 1 0 1 1:2:3\n", `t.txt:2: reducer (field 6): "1:2:3" is not a port:MB pair`},
		{"pair nan", "5 1\n1 0 1 0 1 1:NaN\n", `t.txt:2: reducer (field 6): "1:NaN" is not a port:MB pair`},
		{"pair negative", "5 1\n1 0 1 0 1 1:-2\n", "t.txt:2: reducer (field 6): -2 MB is negative"},
		{"pair range", "5 1\n1 0 1 0 1 1:1e300\n", "t.txt:2: reducer (field 6): the size is out of range"},
		{"sum overflow", "5 1\n1 0 1 0 2 1:8000000000000 2:8000000000000\n", "t.txt:2: coflow 1: the shuffle exceeds 2^63 bytes"},
		{"total overflow", "5 2\n1 0 1 0 1 1:8000000000000\n2 0 1 0 1 1:8000000000000\n", "t.txt:3: the trace's total bytes exceed 2^63"},
		// the workload's limits (workload.MaxArrivalS, MaxBytes, ...)
		{"arrival huge", "5 1\n1 1e15 1 0 1 1:1\n", "t.txt:2: arrival (field 2): 1e15 ms is above the limit of 1e+09 s"},
		{"workload total", "5 2\n1 0 1 0 1 1:1\n2 0 1 0 1 1:4000000000000\n", `t.txt:3: job "coflow2" stage "map"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Import(strings.NewReader(tc.src), "t.txt", uniform(t, 2, 2), DefaultOptions())
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
	topo := uniform(t, 2, 2)
	for _, o := range []Options{{}, {Scale: 1}, {Scale: 1, InputRatio: 1, OutputRatio: -1}, {Scale: 1, InputRatio: 1, ComputeNsPerByte: -1},
		{Scale: 1, InputRatio: 1, Tier: 9}, {Scale: 1, InputRatio: 1, MaxCoflows: -1}} {
		if _, _, err := Import(strings.NewReader("1 0\n"), "t.txt", topo, o); err == nil || !strings.HasPrefix(err.Error(), "t.txt: ") {
			t.Errorf("options %+v: error %v", o, err)
		}
	}
	if _, _, err := Import(strings.NewReader("1 0\n"), "t.txt", &cluster.Topology{}, DefaultOptions()); err == nil {
		t.Error("no racks: no error")
	}
	w, ds, err := Import(strings.NewReader("1 0\n\n"), "t.txt", topo, DefaultOptions())
	if err != nil || len(w.Jobs) != 0 || len(ds.Datasets) != 0 {
		t.Errorf("empty trace: %v %v %v", w, ds, err)
	}
}

func FuzzImport(f *testing.F) {
	f.Add([]byte("150 3\n1 0 1 22 1 65:1.0\n2 10833 2 104 132 1 140:48.0\n3 13122 2 66 138 1 38:4.0\n"), 1.0)
	f.Add([]byte("5 2\n7 1500 2 0 3 2 1:1.0 4:2.5\n\n8 2000 3 3 3 1 1 0:3\r\n"), 0.001)
	f.Add([]byte("5 1\n1 0 1 0 2 1:1 2:2 junk\n"), 2.0)
	f.Add([]byte("5 1\n1 0 1 0 1 1:8000000000000\n"), 1e9)
	f.Fuzz(func(t *testing.T, data []byte, scale float64) {
		topo := uniform(t, 3, 2)
		opts := DefaultOptions()
		opts.Scale = scale
		w, ds, st, err := ImportStats(bytes.NewReader(data), "f.txt", topo, opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := w.Validate(ds); err != nil {
			t.Fatal(err)
		}
		if err := ds.Validate(topo); err != nil {
			t.Fatal(err)
		}
		for i, c := range st.Coflows {
			var sum int64
			for _, r := range c.Reducers {
				sum += r.Bytes
			}
			if sum != c.ShuffleBytes || ds.Datasets[i].TotalBytes() != sum || len(ds.Datasets[i].Blocks) != len(c.Mappers) {
				t.Fatalf("coflow %+v, dataset %+v", c, ds.Datasets[i])
			}
		}
	})
}

func BenchmarkImportFB2010(b *testing.B) {
	data := openTrace(b)
	topo := uniform(b, 150, 2)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, _, err := Import(bytes.NewReader(data), "fb", topo, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
