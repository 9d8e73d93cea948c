package report

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadInputClassFigures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const jobsHead = "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason,input_bytes\n"
	// bin 0-128MB holds s1 and s2 (JCTs 2 and 4); big is 1 GB, out of it
	write("jobs.csv", jobsHead+"s1,default,succeeded,0,0,0,2,2,1,1,,1000000\n"+
		"big,default,succeeded,0,0,0,50,50,8,8,,1000000000\n"+
		"s2,default,succeeded,1,1,1,5,4,2,3,,127999999\n")
	const attHead = "job,stage,task,attempt,kind,host,rack,start_s,end_s,outcome,duplicate,locality,tier,input_bytes\n"
	// s1, s2: a node-local memory read, a node-local HDD read, a
	// rack-local memory read (and a failed attempt and a reducer, which
	// do not count); big's maps are all remote
	write("attempts.csv", attHead+
		"s1,0,0,0,map,0,0,0,1,succeeded,false,node,mem,10\n"+
		"s2,0,0,1,map,1,0,1,2,failed,false,node,mem,10\n"+
		"s2,0,0,2,map,1,0,2,3,succeeded,false,node,hdd,10\n"+
		"s2,0,1,3,map,2,1,1,3,succeeded,false,rack,mem,10\n"+
		"s2,1,0,4,reduce,2,1,3,4,succeeded,false,none,,10\n"+
		"big,0,0,5,map,3,1,0,9,succeeded,false,remote,ssd,10\n")
	class, err := ParseInputRange("0-128MB")
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadInputClassFigures(dir, class)
	if err != nil {
		t.Fatal(err)
	}
	third := 1.0 / 3
	want := map[string]float64{"jobs": 2, "jct_mean_s": 3, "makespan_s": 5,
		"node_local_frac": 2 * third, "rack_local_frac": third, "remote_frac": 0,
		"tier_mem_frac": 2 * third, "tier_hdd_frac": third, "tier_ssd_frac": 0,
		"mem_local_frac": third, "hdd_local_frac": third, "ssd_local_frac": 0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %g, want %g", k, got[k], v)
		}
	}
	// a class whose jobs ran no map to the end has no shares: NaN, not
	// the 0 a verdict would read as none local (bin 512MB-2GB holds big,
	// whose only map now failed)
	write("attempts.csv", attHead+"big,0,0,5,map,3,1,0,9,failed,false,remote,ssd,10\n")
	got, err = LoadInputClassFigures(dir, InputRange{Lo: 512 << 20, Hi: 2 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if got["jobs"] != 1 || !math.IsNaN(got["node_local_frac"]) || !math.IsNaN(got["mem_local_frac"]) {
		t.Errorf("a class with no map run: jobs %g, node-local %g, memory-local %g; want 1, NaN, NaN", got["jobs"], got["node_local_frac"], got["mem_local_frac"])
	}
	var none *NoJobInClassError
	if _, err := LoadInputClassFigures(dir, InputRange{Lo: 2e9, Hi: 5e9}); !errors.As(err, &none) {
		t.Errorf("an empty class: %v", err)
	}
	write("jobs.csv", "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason\n")
	if _, err := LoadInputClassFigures(dir, class); err == nil || !strings.Contains(err.Error(), "input_bytes") {
		t.Errorf("jobs.csv without input_bytes: %v", err)
	}
}

func TestParseInputRange(t *testing.T) {
	r, err := ParseInputRange(" 128MB - 512MB ")
	if err != nil || r.Lo != 128e6 || r.Hi != 512e6 || !r.Contains(128e6) || r.Contains(512e6) {
		t.Errorf("128MB-512MB: %+v, %v", r, err)
	}
	for _, bad := range []string{"128MB", "x-1GB", "1GB-x", "1GB-1GB", "2GB-1GB"} {
		if _, err := ParseInputRange(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: error %v, want one naming it", bad, err)
		}
	}
}

// A job's input_bytes that is no byte count (negative, fractional, past
// int64) is refused with its line: before, int64 of it put the job in a
// class by accident (or, past int64, in none, by the machine's rules).
func TestInputClassRefusesImpossibleInputBytes(t *testing.T) {
	for _, cell := range []string{"-1", "1.5", "1e30"} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "jobs.csv"), "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason,input_bytes\n"+
			"s1,default,succeeded,0,0,0,2,2,1,1,,1000000\n"+
			"s2,default,succeeded,0,0,0,2,2,1,1,,"+cell+"\n")
		writeFile(t, filepath.Join(dir, "attempts.csv"), "job,stage,task,attempt,kind,host,rack,start_s,end_s,outcome,duplicate,locality,tier,input_bytes\n")
		_, err := LoadInputClassFigures(dir, InputRange{Lo: 0, Hi: 128 << 20})
		want := filepath.Join(dir, "jobs.csv") + ":3: column input_bytes: " + cell + " is not a byte count"
		if err == nil || err.Error() != want {
			t.Errorf("input_bytes %s: got %v, want %s", cell, err, want)
		}
	}
}
