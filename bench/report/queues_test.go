package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadQueueFigures(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason\n"
	// the ad hoc queue: JCTs 4 and 8 from 0, one failed at 12 (in the
	// makespan), one cut by the window; the default queue's job is not
	// the queue's
	write(head + "a1,adhoc,succeeded,0,0,0,4,4,2,2,\n" +
		"r1,default,succeeded,1,1,1,100,99,2,2,\n" +
		"a2,adhoc,succeeded,2,2,2,10,8,2,2,\n" +
		"a3,adhoc,failed,3,3,3,12,9,2,2,lost\n" +
		"a4,adhoc,unfinished,5,,,,,2,0,\n")
	got, err := LoadQueueFigures(dir, "adhoc")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"jobs": 4, "failed_jobs": 1, "unfinished_jobs": 1, "makespan_s": 12, "jct_mean_s": 6, "jct_p50_s": 4, "jct_p90_s": 8}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %g, want %g", k, got[k], v)
		}
	}
	var nq *NoQueueError
	if _, err := LoadQueueFigures(dir, "batch"); !errors.As(err, &nq) || nq.Queue != "batch" || strings.Join(nq.Queues, ",") != "adhoc,default" {
		t.Errorf("queue batch: %v", err)
	}
	write(head + "a1,adhoc,running,0,0,0,4,4,2,2,\n")
	if _, err := LoadQueueFigures(dir, "adhoc"); err == nil || !strings.Contains(err.Error(), "jobs.csv:2: column state: \"running\"") {
		t.Errorf("a job still running: %v", err)
	}
	write(head + "a1,adhoc,succeeded,0,0,0,soon,4,2,2,\n")
	if _, err := LoadQueueFigures(dir, "adhoc"); err == nil || !strings.Contains(err.Error(), "jobs.csv:2: column finished_s") {
		t.Errorf("a finish that is no number: %v", err)
	}
}
