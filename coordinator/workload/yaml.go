package workload

// The workload file format:
//
//	jobs:
//	  - id: job0
//	    arrival_s: 49            # seconds from the start; default 0
//	    queue: default           # optional
//	    recurring: etl-daily     # optional
//	    parents: [job-a]         # optional: submitted when these jobs finish
//	    stages:
//	      - {name: map, kind: map, input: in-job0, selectivity: 3.1, compute_ns_per_byte: 5}
//	      - {name: reduce, kind: reduce, tasks: 3, after: [map], output_bytes: 627471, skew: 0.5, output_replicas: 1}
//	      - {name: join, kind: generic, tasks: 3, after: [reduce], shares: [3, 1, 1]}
//
// Stage fields: name and kind (map, reduce or generic) are required;
// tasks, input ("@job" reads a parent job's output), after, selectivity,
// output_bytes, compute_ns_per_byte, skew and output_replicas are as in
// Stage and default to zero. shares lists one positive relative weight per
// task of a reduce or generic stage (Stage.Shares), instead of skew.
//
// The datasets file format:
//
//	block_size_bytes: 134217728  # optional defaults for unplaced datasets
//	replication: 3
//	datasets:
//	  - {name: in-job0, size_bytes: 740773}          # unplaced
//	  - {name: in-job1, size_bytes: 1, block_size_bytes: 67108864, replication: 2}
//	  - name: tbl                                    # placed
//	    blocks:
//	      - {size_bytes: 134217728, replicas: ["r0h0:hdd", "r1h2:ssd"]}
//
// A replica is "host:tier" with a host name of the topology. An unplaced
// dataset needs size_bytes and a block size (its own or the file's); a
// placed one may give size_bytes, which must then be the sum of its blocks.
// The top-level block_size_bytes and replication apply to unplaced datasets
// only.
//
// Unknown fields are errors, numbers are held to the limits of limits.go
// (MaxBytes, MaxTasksPerStage, MaxArrivalS, ...), and every error names
// the file, the line and the field.

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// LoadWorkload reads a workload file; see ParseWorkload.
func LoadWorkload(path string) (*Workload, error) {
	return LoadWorkloadFor(path, nil)
}

// LoadWorkloadFor reads a workload file and checks it against its
// datasets; see ParseWorkloadFor.
func LoadWorkloadFor(path string, ds *Datasets) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWorkloadFor(path, data, ds)
}

// LoadRunnable reads a workload file to run (LoadWorkloadFor) and
// refuses one without jobs (CheckRunnable), naming the file, before a
// driver sets anything up for it.
func LoadRunnable(path string, ds *Datasets) (*Workload, error) {
	w, err := LoadWorkloadFor(path, ds)
	if err != nil {
		return nil, err
	}
	if err := w.CheckRunnable(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// ParseWorkload reads a workload from YAML text (name is the file name
// for error messages) and validates everything but the existence of the
// datasets its map stages read, which needs the datasets: use
// ParseWorkloadFor, or call Workload.Validate once both are loaded.
func ParseWorkload(name string, data []byte) (*Workload, error) {
	return ParseWorkloadFor(name, data, nil)
}

// ParseWorkloadFor reads a workload and validates it against ds, so that
// an unknown dataset is reported with its line. A nil ds skips that check.
func ParseWorkloadFor(name string, data []byte, ds *Datasets) (*Workload, error) {
	d, top, err := yamlfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	p := workloadParser{d: d, jobIndex: map[string]int{}}
	w := p.parse(top)
	if err := d.Err(); err != nil {
		return nil, err
	}
	if ds == nil {
		ds = &Datasets{}
		for _, j := range w.Jobs {
			for _, s := range j.Stages {
				if s.Kind == Map && s.Input != "" {
					ds.Datasets = append(ds.Datasets, Dataset{Name: s.Input})
				}
			}
		}
	}
	if err := w.Validate(ds); err != nil {
		return nil, p.locate(w, err)
	}
	return w, nil
}

type workloadParser struct {
	d          *yamlfile.Decoder
	jobIndex   map[string]int // job id → index
	jobLines   []int
	stageLines [][]int
}

func (p *workloadParser) parse(top *yaml.Node) *Workload {
	d := p.d
	m := d.Map(top, "")
	m.Known("jobs")
	m.Require("jobs")
	items := m.Seq("jobs")
	w := &Workload{}
	if d.Err() != nil || len(items) == 0 {
		return w
	}
	w.Jobs = make([]Job, 0, len(items))
	p.jobLines = make([]int, 0, len(items))
	p.stageLines = make([][]int, 0, len(items))
	for i, n := range items {
		j := p.job(n, i)
		if d.Err() != nil {
			return w
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w
}

func (p *workloadParser) job(n *yaml.Node, i int) Job {
	d := p.d
	m := d.Map(n, "job #"+strconv.Itoa(i+1))
	var j Job
	j.ID = m.Str("id")
	if j.ID != "" {
		m.Where = "job " + strconv.Quote(j.ID)
	}
	m.Known("id", "arrival_s", "queue", "recurring", "parents", "stages")
	m.Require("id", "stages")
	if d.Err() != nil {
		return j
	}
	if j.ID == "" {
		// said here with the line; Validate could name the job only by
		// its position
		m.Fail("id", "id must not be empty")
		return j
	}
	if first, dup := p.jobIndex[j.ID]; dup {
		m.Fail("id", "job id %q is used twice (first at line %d)", j.ID, p.jobLines[first])
		return j
	}
	p.jobIndex[j.ID] = len(p.jobLines)
	p.jobLines = append(p.jobLines, m.Line)
	j.Arrival = m.Float("arrival_s")
	if j.Arrival < 0 {
		m.Fail("arrival_s", "arrival_s must not be negative")
	} else if j.Arrival > MaxArrivalS {
		m.Fail("arrival_s", "arrival_s must be at most %g (got %g)", float64(MaxArrivalS), j.Arrival)
	}
	j.Queue = m.Str("queue")
	j.Recurring = m.Str("recurring")
	j.Parents = m.Strs("parents")
	items := m.Seq("stages")
	if d.Err() != nil {
		return j
	}
	if len(items) == 0 {
		m.Fail("stages", "stages: the list is empty")
		return j
	}
	j.Stages = make([]Stage, 0, len(items))
	lines := make([]int, 0, len(items))
	// the line of each stage name seen so far: a map, as comparing each
	// name with every earlier one took seconds for a job of 80,000 stages
	nameLines := make(map[string]int, len(items))
	for k, sn := range items {
		s, line := p.stage(m.Where, sn, k, nameLines)
		if d.Err() != nil {
			return j
		}
		j.Stages = append(j.Stages, s)
		lines = append(lines, line)
		nameLines[s.Name] = line
	}
	p.stageLines = append(p.stageLines, lines)
	return j
}

func (p *workloadParser) stage(job string, n *yaml.Node, k int, nameLines map[string]int) (Stage, int) {
	d := p.d
	m := d.Map(n, job+" stage #"+strconv.Itoa(k+1))
	var s Stage
	s.Name = m.Str("name")
	if s.Name != "" {
		m.Where = job + " stage " + strconv.Quote(s.Name)
	}
	m.Known("name", "kind", "tasks", "input", "after", "selectivity", "output_bytes", "compute_ns_per_byte", "skew", "shares", "output_replicas")
	m.Require("name", "kind")
	if d.Err() != nil {
		return s, 0
	}
	if s.Name == "" {
		m.Fail("name", "name must not be empty")
		return s, 0
	}
	if first, dup := nameLines[s.Name]; dup {
		m.Fail("name", "stage name %q is used twice in the job (first at line %d)", s.Name, first)
		return s, 0
	}
	kind, err := ParseStageKind(m.Str("kind"))
	if err != nil {
		m.Fail("kind", "kind: %v", err)
		return s, 0
	}
	s.Kind = kind
	s.Tasks = int(count(m, "tasks", MaxTasksPerStage))
	s.Input = m.Str("input")
	s.After = m.Strs("after")
	s.Selectivity = boundedFloat(m, "selectivity", MaxSelectivity)
	if m.Has("output_bytes") {
		s.OutputBytes = m.Int("output_bytes")
		checkByteField(m, "output_bytes", s.OutputBytes, 0)
	}
	s.ComputeNsPerByte = boundedFloat(m, "compute_ns_per_byte", MaxComputeNsPerByte)
	s.Skew = boundedFloat(m, "skew", math.MaxFloat64)
	s.Shares = p.shares(m)
	s.OutputReplicas = int(count(m, "output_replicas", MaxReplicas))
	return s, m.Line
}

// shares reads a stage's list of partition weights, each a number; their
// count and values are checked by Validate, which names the stage.
func (p *workloadParser) shares(m *yamlfile.Map) []float64 {
	if !m.Has("shares") {
		return nil
	}
	items := m.Seq("shares")
	if p.d.Err() != nil {
		return nil
	}
	if len(items) == 0 {
		m.Fail("shares", "shares: the list is empty (leave it out for shares by skew)")
		return nil
	}
	if len(items) > MaxTasksPerStage {
		m.Fail("shares", "shares: %d weights is above the limit of %d per stage", len(items), MaxTasksPerStage)
		return nil
	}
	out := make([]float64, len(items))
	for i, it := range items {
		if it.Kind != yaml.ScalarNode || it.ShortTag() == "!!null" {
			p.d.Fail(it.Line, m.Where, "shares: weight #%d: want a number", i+1)
			return nil
		}
		v, err := yamlfile.ParseFloat(it.Value)
		if err != nil {
			p.d.Fail(it.Line, m.Where, "shares: weight #%d: %v", i+1, err)
			return nil
		}
		out[i] = v
	}
	return out
}

// count reads a count field that must lie in [0, limit].
func count(m *yamlfile.Map, key string, limit int64) int64 {
	if !m.Has(key) {
		return 0
	}
	v := m.Int(key)
	if v < 0 || v > limit {
		m.Fail(key, "%s must be between 0 and %d (got %d)", key, limit, v)
		return 0
	}
	return v
}

// boundedFloat reads a number field that must lie in [0, limit].
func boundedFloat(m *yamlfile.Map, key string, limit float64) float64 {
	if !m.Has(key) {
		return 0
	}
	v := m.Float(key)
	if v < 0 {
		m.Fail(key, "%s must not be negative", key)
		return 0
	}
	if v > limit {
		m.Fail(key, "%s must be at most %g (got %g)", key, limit, v)
		return 0
	}
	return v
}

// checkByteField fails a byte count outside [lo, MaxBytes].
func checkByteField(m *yamlfile.Map, key string, v, lo int64) {
	switch {
	case v < lo && lo == 0:
		m.Fail(key, "%s must not be negative", key)
	case v < lo:
		m.Fail(key, "%s must be positive", key)
	case v > MaxBytes:
		m.Fail(key, "%s must be at most %s = %d bytes (got %d)", key, maxBytesText, MaxBytes, v)
	}
}

// locate gives a Validate error the line of the job (and stage) it names.
func (p *workloadParser) locate(w *Workload, err error) error {
	msg := err.Error()
	line := 0
	if job, rest, ok := quotedAfter(msg, "job "); ok {
		if i, ok := p.jobIndex[job]; ok && i < len(p.jobLines) && i < len(w.Jobs) {
			line = p.jobLines[i]
			if stage, _, ok := quotedAfter(rest, " stage "); ok && i < len(p.stageLines) {
				for k, s := range w.Jobs[i].Stages {
					if s.Name == stage && k < len(p.stageLines[i]) {
						line = p.stageLines[i][k]
						break
					}
				}
			}
		}
	}
	return &yamlfile.Error{File: p.d.File, Line: line, Msg: msg}
}

// quotedAfter finds the first `prefix"..."` in s and returns the unquoted
// string and what follows it.
func quotedAfter(s, prefix string) (string, string, bool) {
	i := strings.Index(s, prefix+`"`)
	if i < 0 {
		return "", "", false
	}
	rest := s[i+len(prefix):]
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", false
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", "", false
	}
	return v, rest[len(q):], true
}

// WriteWorkload writes w in the format ParseWorkload reads. Fields at
// their zero value are left out, and each stage takes one line.
func WriteWorkload(out io.Writer, w *Workload) error {
	e := yamlfile.NewEmitter(out)
	if len(w.Jobs) == 0 {
		e.Raw("jobs: []\n")
		return e.Flush()
	}
	e.Raw("jobs:\n")
	for i := range w.Jobs {
		j := &w.Jobs[i]
		e.Raw("  - id: ")
		e.Str(j.ID)
		e.Raw("\n    arrival_s: ")
		e.Float(j.Arrival)
		if j.Queue != "" {
			e.Raw("\n    queue: ")
			e.Str(j.Queue)
		}
		if j.Recurring != "" {
			e.Raw("\n    recurring: ")
			e.Str(j.Recurring)
		}
		if len(j.Parents) > 0 {
			e.Raw("\n    parents: ")
			writeList(e, j.Parents)
		}
		e.Raw("\n    stages:\n")
		for k := range j.Stages {
			s := &j.Stages[k]
			if int(s.Kind) >= len(stageKindNames) {
				e.Fail(fmt.Errorf("job %q stage %q: bad kind %d", j.ID, s.Name, s.Kind))
				break
			}
			e.Raw("      - {name: ")
			e.Str(s.Name)
			e.Raw(", kind: ")
			e.Raw(s.Kind.String())
			if s.Tasks != 0 {
				e.Raw(", tasks: ")
				e.Int(int64(s.Tasks))
			}
			if s.Input != "" {
				e.Raw(", input: ")
				e.Str(s.Input)
			}
			if len(s.After) > 0 {
				e.Raw(", after: ")
				writeList(e, s.After)
			}
			if s.Selectivity != 0 {
				e.Raw(", selectivity: ")
				e.Float(s.Selectivity)
			}
			if s.OutputBytes != 0 {
				e.Raw(", output_bytes: ")
				e.Int(s.OutputBytes)
			}
			if s.ComputeNsPerByte != 0 {
				e.Raw(", compute_ns_per_byte: ")
				e.Float(s.ComputeNsPerByte)
			}
			if s.Skew != 0 {
				e.Raw(", skew: ")
				e.Float(s.Skew)
			}
			if len(s.Shares) > 0 {
				e.Raw(", shares: [")
				for i, v := range s.Shares {
					if i > 0 {
						e.Raw(", ")
					}
					e.Float(v)
				}
				e.Raw("]")
			}
			if s.OutputReplicas != 0 {
				e.Raw(", output_replicas: ")
				e.Int(int64(s.OutputReplicas))
			}
			e.Raw("}\n")
		}
		if e.Err() != nil {
			break
		}
	}
	return e.Flush()
}

func writeList(e *yamlfile.Emitter, ss []string) {
	e.Raw("[")
	for i, s := range ss {
		if i > 0 {
			e.Raw(", ")
		}
		e.Str(s)
	}
	e.Raw("]")
}
