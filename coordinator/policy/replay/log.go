package replay

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Record is one recorded attempt: a row of attempts.csv.
type Record struct {
	// Line is the record's line in its file, for errors.
	Line  int
	Job   string
	Stage int
	Task  int
	// ID is the attempt's id in the recorded run: its place in the
	// recorded launch order.
	ID        int64
	Kind      workload.StageKind
	Host      cluster.HostID
	Start     float64
	End       float64
	Outcome   engine.AttemptOutcome
	Duplicate bool
	// Source is the replica a map read; Source.Host < 0 when the record
	// names none (reduce and generic attempts).
	Source workload.Replica
}

// Succeeded reports whether the recorded attempt ended well: it
// succeeded, or ran until the run's window cut it.
func (r *Record) Succeeded() bool {
	return r.Outcome == engine.AttemptSucceeded || r.Outcome == engine.AttemptCut
}

// Log is a recorded run's attempts in launch order (by id).
type Log struct {
	// File names where the records came from, for errors.
	File    string
	Records []Record
}

// columns are the attempts.csv columns a replay reads; others are
// ignored, and the columns may come in any order.
var columns = []string{"job", "stage", "task", "attempt", "kind", "host", "start_s", "end_s", "outcome", "duplicate", "tier", "source_host"}

// Load reads a recorded run's attempts.csv.
func Load(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads attempts.csv records from r; name is used in errors.
func Parse(name string, r io.Reader) (*Log, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty: want an attempts.csv with a header line", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: no column %q: want an attempts.csv (columns %v)", name, c, columns)
		}
	}
	lg := &Log{File: name}
	seen := map[int64]int{}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err) // the csv error gives the line
		}
		line, _ := cr.FieldPos(0) // only a record read without error has fields
		rec, err := parseRecord(row, col)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rec.Line = line
		if first, dup := seen[rec.ID]; dup {
			return nil, fmt.Errorf("%s:%d: attempt %d is recorded twice (first on line %d)", name, line, rec.ID, first)
		}
		seen[rec.ID] = line
		lg.Records = append(lg.Records, rec)
	}
	if len(lg.Records) == 0 {
		return nil, fmt.Errorf("%s: no attempts recorded", name)
	}
	// records are written as attempts end: the ids give the launch order
	sort.Slice(lg.Records, func(a, b int) bool { return lg.Records[a].ID < lg.Records[b].ID })
	return lg, nil
}

func parseRecord(row []string, col map[string]int) (Record, error) {
	get := func(c string) string { return row[col[c]] }
	var r Record
	var err error
	r.Job = get("job")
	if r.Job == "" {
		return r, fmt.Errorf("empty job")
	}
	atoi := func(c string, lo, hi int64) (int64, error) {
		n, err := strconv.ParseInt(get(c), 10, 64)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s %q is not an integer in [%d, %d]", c, get(c), lo, hi)
		}
		return n, nil
	}
	n, err := atoi("stage", 0, math.MaxInt16)
	if err != nil {
		return r, err
	}
	r.Stage = int(n)
	if n, err = atoi("task", 0, math.MaxInt32); err != nil {
		return r, err
	}
	r.Task = int(n)
	if r.ID, err = atoi("attempt", 0, math.MaxInt64); err != nil {
		return r, err
	}
	if r.Kind, err = workload.ParseStageKind(get("kind")); err != nil {
		return r, err
	}
	if n, err = atoi("host", 0, math.MaxInt32); err != nil {
		return r, err
	}
	r.Host = cluster.HostID(n)
	for _, c := range []struct {
		name string
		v    *float64
	}{{"start_s", &r.Start}, {"end_s", &r.End}} {
		x, err := strconv.ParseFloat(get(c.name), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return r, fmt.Errorf("%s %q is not a time in seconds", c.name, get(c.name))
		}
		*c.v = x
	}
	if r.End < r.Start {
		return r, fmt.Errorf("attempt %d ends (%g s) before it starts (%g s)", r.ID, r.End, r.Start)
	}
	if r.Outcome, err = parseOutcome(get("outcome")); err != nil {
		return r, err
	}
	if r.Duplicate, err = strconv.ParseBool(get("duplicate")); err != nil {
		return r, fmt.Errorf("duplicate %q is not true or false", get("duplicate"))
	}
	r.Source.Host = -1
	if s := get("source_host"); s != "" {
		if r.Kind != workload.Map {
			return r, fmt.Errorf("a %s attempt has a source_host (%s): only maps read a replica", r.Kind, s)
		}
		if n, err = atoi("source_host", 0, math.MaxInt32); err != nil {
			return r, err
		}
		r.Source.Host = cluster.HostID(n)
		if r.Source.Tier, err = cluster.ParseTierKind(get("tier")); err != nil {
			return r, fmt.Errorf("tier of the source replica: %w", err)
		}
	}
	return r, nil
}

func parseOutcome(s string) (engine.AttemptOutcome, error) {
	for _, o := range []engine.AttemptOutcome{engine.AttemptSucceeded, engine.AttemptFailed, engine.AttemptKilled, engine.AttemptCut} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("outcome %q is not succeeded, failed, killed or cut", s)
}

// Check says whether the records can be replayed on a workload and
// topology: every record names a job of the workload, a stage of it of
// the recorded kind, and hosts of the topology. (A task's index is
// checked when the replay reaches it: a map stage's task count is known
// only when its input is.) The error names the file and the line.
func (lg *Log) Check(topo *cluster.Topology, w *workload.Workload) error {
	jobs := make(map[string]*workload.Job, len(w.Jobs))
	for i := range w.Jobs {
		jobs[w.Jobs[i].ID] = &w.Jobs[i]
	}
	for i := range lg.Records {
		r := &lg.Records[i]
		j, ok := jobs[r.Job]
		if !ok {
			return fmt.Errorf("%s:%d: job %q is not in the workload", lg.File, r.Line, r.Job)
		}
		if r.Stage >= len(j.Stages) {
			return fmt.Errorf("%s:%d: job %s has no stage %d (it has %d)", lg.File, r.Line, r.Job, r.Stage, len(j.Stages))
		}
		if k := j.Stages[r.Stage].Kind; k != r.Kind {
			return fmt.Errorf("%s:%d: stage %d of job %s is a %s stage, recorded as %s", lg.File, r.Line, r.Stage, r.Job, k, r.Kind)
		}
		if int(r.Host) >= len(topo.Hosts) {
			return fmt.Errorf("%s:%d: host %d is not in the cluster (hosts 0 to %d)", lg.File, r.Line, r.Host, len(topo.Hosts)-1)
		}
		if r.Source.Host >= 0 {
			if int(r.Source.Host) >= len(topo.Hosts) {
				return fmt.Errorf("%s:%d: source host %d is not in the cluster (hosts 0 to %d)", lg.File, r.Line, r.Source.Host, len(topo.Hosts)-1)
			}
			if _, ok := topo.Hosts[r.Source.Host].Tier(r.Source.Tier); !ok {
				return fmt.Errorf("%s:%d: source host %s has no %s tier", lg.File, r.Line, topo.Hosts[r.Source.Host].Name, r.Source.Tier)
			}
		}
	}
	return nil
}
