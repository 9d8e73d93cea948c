package campaign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// meta.json is written afresh for a new result directory; on a resume the
// recorded start is kept and the resumption added with the version that
// ran it; a damaged meta.json is refused, not replaced, and left as it
// was.
func TestMetaOnResume(t *testing.T) {
	c := &Campaign{Name: "m"}
	out := t.TempDir()
	path := filepath.Join(out, "meta.json")
	read := func() Meta { t.Helper(); return readMeta(t, out) }
	if err := os.WriteFile(path, []byte(`{"campaign": "m", "started": "2026-01-02T03:04:05Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMeta(c, out, 2, true); err != nil {
		t.Fatal(err)
	}
	m := read()
	if m.Started != "2026-01-02T03:04:05Z" || len(m.Resumed) != 1 || !strings.Contains(m.Resumed[0], " racklab ") {
		t.Fatalf("resumed: started %q, resumed %q; want the recorded start and one resumption with its version", m.Started, m.Resumed)
	}
	if err := writeMeta(c, out, 0, true); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Started == "2026-01-02T03:04:05Z" || len(m.Resumed) != 0 {
		t.Fatalf("nothing kept, meta.json not afresh: started %q, resumed %q", m.Started, m.Resumed)
	}

	damaged := []byte(`{"campaign": "m", "started": "2026-01-02T03:0`)
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeMeta(c, out, 3, false)
	if err == nil || !strings.Contains(err.Error(), path+": unexpected end of JSON input") || !strings.Contains(err.Error(), "3 finished runs") {
		t.Fatalf("a damaged meta.json on resume: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(damaged) {
		t.Fatalf("the damaged meta.json was changed to %q", b)
	}
	for _, empty := range []string{"null", "{}"} {
		if err := os.WriteFile(path, []byte(empty), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := writeMeta(c, out, 1, true); err == nil || !strings.Contains(err.Error(), path+": it has no start time") {
			t.Errorf("meta.json %s on resume: %v", empty, err)
		}
	}
}

// A resumption refused for its workload (here emptied since the runs)
// ran nothing, and meta.json does not record it.
func TestRefusedResumptionIsNotRecorded(t *testing.T) {
	dir := t.TempDir()
	wl, dsf := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(wl, []byte("jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: in}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dsf, []byte("datasets:\n  - {name: in, size_bytes: 1000, block_size_bytes: 100}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, "name: r\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {file: "+wl+", datasets: "+dsf+"}\nruns: [{mode: sim, policies: [fifo, fair]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(c.Matrix(out)[1].Dir, doneFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, []byte("jobs: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err == nil || !strings.Contains(err.Error(), "the workload has no jobs") {
		t.Fatalf("resuming on an emptied workload: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "meta.json")); string(after) != string(before) {
		t.Errorf("meta.json changed by a refused resumption:\n%s\nwas\n%s", after, before)
	}

	// nor is one with nothing left to run
	if err := os.WriteFile(wl, []byte("jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: in}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	ran, err := os.ReadFile(filepath.Join(out, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "meta.json")); string(after) != string(ran) {
		t.Errorf("meta.json changed by a resumption with nothing to run:\n%s\nwas\n%s", after, ran)
	}
	// which still checks it, and makes it again if it was moved away
	if err := os.WriteFile(filepath.Join(out, "meta.json"), []byte(`{"campaign": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err == nil || !strings.Contains(err.Error(), "is damaged; repair it, or move it away") {
		t.Errorf("a damaged meta.json with nothing to run: %v", err)
	}
	if err := os.Remove(filepath.Join(out, "meta.json")); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "meta.json")); err != nil {
		t.Errorf("meta.json not made again: %v", err)
	}
}

// readMeta reads dir/meta.json.
func readMeta(t *testing.T, dir string) Meta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
