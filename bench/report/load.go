package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/engine"
)

// InputError is a problem with an input file, at a line of it (0 when it
// concerns the whole file).
type InputError struct {
	File string
	Line int
	Err  error
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

func inputErr(file string, line int, format string, args ...any) error {
	return &InputError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// Modes are the result-set subdirectories of a campaign, in report order.
var Modes = []string{"sim", "local", "remote"}

// Run is one run of a result set: a row of summary.csv.
type Run struct {
	Policy string
	Seed   uint64
	// Line is the run's line in summary.csv.
	Line int
	// Values holds the row's numeric columns by header name: those of
	// metrics.SummaryHeader (NaN for an empty cell of a column that may be
	// empty, metrics.MayBeEmpty), and any other column whose value is a
	// finite number (a newer racklab's).
	Values map[string]float64
	// Dir is the run's record directory, <policy>-seed<seed>.
	Dir string
}

// ResultSet is the runs of one directory's summary.csv.
type ResultSet struct {
	Dir string
	// Policies in the order of their first run in summary.csv.
	Policies []string
	Runs     []Run
	// Columns is summary.csv's header.
	Columns []string
}

// Has says whether summary.csv has a column, and every run a number in
// it.
func (s *ResultSet) Has(column string) bool {
	if !slices.Contains(s.Columns, column) {
		return false
	}
	for _, r := range s.Runs {
		if _, ok := r.Values[column]; !ok {
			return false
		}
	}
	return true
}

// RunsOf lists the repetitions of a policy, in summary.csv order.
func (s *ResultSet) RunsOf(policy string) []Run {
	var out []Run
	for _, r := range s.Runs {
		if r.Policy == policy {
			out = append(out, r)
		}
	}
	return out
}

// csvFile reads a CSV file whose header must name some columns.
type csvFile struct {
	path string
	f    *os.File
	r    *csv.Reader
	col  map[string]int
	head []string
}

func openCSV(path string, need []string) (*csvFile, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, inputErr(path, 0, "missing file")
		}
		return nil, err
	}
	c := &csvFile{path: path, f: f, r: csv.NewReader(f), col: map[string]int{}}
	c.r.ReuseRecord = true
	head, err := c.r.Read()
	if err == io.EOF {
		f.Close()
		return nil, inputErr(path, 1, "empty file: expected a header with columns %s", strings.Join(need, ","))
	}
	if err != nil {
		f.Close()
		return nil, c.wrap(err)
	}
	c.head = append([]string(nil), head...)
	for i, h := range c.head {
		h = strings.TrimSpace(h)
		if _, dup := c.col[h]; dup {
			f.Close()
			return nil, inputErr(path, 1, "bad header: column %q appears twice", h)
		}
		c.col[h] = i
	}
	for _, n := range need {
		if _, ok := c.col[n]; !ok {
			f.Close()
			return nil, inputErr(path, 1, "bad header: no column %q (header: %s)", n, strings.Join(c.head, ","))
		}
	}
	return c, nil
}

func (c *csvFile) Close() error { return c.f.Close() }

func (c *csvFile) wrap(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: c.path, Line: pe.Line, Err: pe.Err}
	}
	return &InputError{File: c.path, Err: err}
}

// next reads a record and its line; io.EOF at the end.
func (c *csvFile) next() ([]string, int, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, c.wrap(err)
	}
	line, _ := c.r.FieldPos(0)
	return rec, line, nil
}

func (c *csvFile) num(rec []string, line int, name string) (float64, error) {
	s := strings.TrimSpace(rec[c.col[name]])
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, inputErr(c.path, line, "column %s: %q is not a number", name, s)
	}
	return x, c.checkFinite(line, name, x)
}

func (c *csvFile) str(rec []string, name string) string {
	return strings.TrimSpace(rec[c.col[name]])
}

// LoadResultSet reads dir/summary.csv. The run directories are read later,
// by what needs them.
func LoadResultSet(dir string) (*ResultSet, error) {
	path := filepath.Join(dir, "summary.csv")
	// columns added since the first release may be missing: an older
	// file's value stands for them
	c, err := openCSV(path, metrics.SummaryRequired())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	set := &ResultSet{Dir: dir}
	// columns beyond the known ones are read when they hold numbers, so
	// that a summary.csv with more columns than this racklab knows still
	// loads, and its figures can use them
	var extra []string
	for _, h := range c.head {
		h = strings.TrimSpace(h)
		set.Columns = append(set.Columns, h)
		if !slices.Contains(metrics.SummaryHeader, h) {
			extra = append(extra, h)
		}
	}
	seen := map[string]int{}
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r := Run{Policy: c.str(rec, "policy"), Line: line, Values: map[string]float64{}}
		if r.Policy == "" {
			return nil, inputErr(path, line, "column policy: empty")
		}
		seed := c.str(rec, "seed")
		if r.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return nil, inputErr(path, line, "column seed: %q is not a seed", seed)
		}
		for _, name := range metrics.SummaryHeader {
			if name == "policy" || name == "seed" {
				continue
			}
			if _, ok := c.col[name]; !ok {
				r.Values[name] = metrics.SummaryAdded[name]
				continue
			}
			if metrics.MayBeEmpty(name) && c.str(rec, name) == "" {
				// the run has no value (a Fair run has no decision notes):
				// NaN, which the tables show as n/a
				r.Values[name] = math.NaN()
				continue
			}
			if r.Values[name], err = c.num(rec, line, name); err != nil {
				return nil, err
			}
		}
		for _, name := range extra {
			if x, err := strconv.ParseFloat(c.str(rec, name), 64); err == nil && finite(x) {
				r.Values[name] = x
			}
		}
		key := fmt.Sprintf("%s-seed%d", r.Policy, r.Seed)
		if prev, dup := seen[key]; dup {
			return nil, inputErr(path, line, "policy %s seed %d already has a run on line %d", r.Policy, r.Seed, prev)
		}
		seen[key] = line
		r.Dir = filepath.Join(dir, key)
		if len(set.RunsOf(r.Policy)) == 0 {
			set.Policies = append(set.Policies, r.Policy)
		}
		set.Runs = append(set.Runs, r)
	}
	if len(set.Runs) == 0 {
		return nil, inputErr(path, 0, "no runs")
	}
	return set, nil
}

// LoadJCTs reads the completion times (jct_s) of a run's jobs that did not
// fail, from jobs.csv in file order; jobs a window left unfinished have
// none.
func LoadJCTs(runDir string) ([]float64, error) {
	c, err := openCSV(filepath.Join(runDir, "jobs.csv"), []string{"job", "state", "jct_s"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out []float64
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if state, err := jobState(c, rec, line); err != nil {
			return nil, err
		} else if state != engine.JobSucceeded {
			continue
		}
		x, err := c.num(rec, line, "jct_s")
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}

// LinkSeries is the rack-link utilisation of a run over time, averaged
// over racks, for uplinks and downlinks.
type LinkSeries struct {
	T, Up, Down []float64
}

// LoadLinks reads a run's links.csv and averages it over racks.
func LoadLinks(runDir string) (*LinkSeries, error) {
	path := filepath.Join(runDir, "links.csv")
	c, err := openCSV(path, []string{"time_s", "direction", "rack", "utilisation"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	type acc struct{ up, down, nUp, nDown float64 }
	at := map[float64]*acc{}
	var times []float64
	// a sample twice would weigh its rack twice in the mean
	seen := map[linkSample]int{}
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := c.num(rec, line, "time_s")
		if err != nil {
			return nil, err
		}
		if _, err := c.num(rec, line, "rack"); err != nil {
			return nil, err
		}
		u, err := c.num(rec, line, "utilisation")
		if err != nil {
			return nil, err
		}
		if err := noRepeat(seen, path, line, t, c.str(rec, "direction"), c.str(rec, "rack")); err != nil {
			return nil, err
		}
		a := at[t]
		if a == nil {
			a = &acc{}
			at[t] = a
			times = append(times, t)
		}
		switch d := c.str(rec, "direction"); d {
		case "up":
			a.up += u
			a.nUp++
		case "down":
			a.down += u
			a.nDown++
		default:
			return nil, inputErr(path, line, "column direction: %q is neither up nor down", d)
		}
	}
	sort.Float64s(times)
	ls := &LinkSeries{}
	mean := func(s, n float64) float64 {
		if n == 0 {
			return math.NaN()
		}
		return s / n
	}
	for _, t := range times {
		a := at[t]
		ls.T = append(ls.T, t)
		ls.Up = append(ls.Up, mean(a.up, a.nUp))
		ls.Down = append(ls.Down, mean(a.down, a.nDown))
	}
	return ls, nil
}

// linkSample names one sample of links.csv: a rack's link in one
// direction at one time.
type linkSample struct {
	t         float64
	direction string
	rack      string
}

// noRepeat refuses a links.csv sample seen before in the file (the
// writers give each link one sample per time), naming both lines.
func noRepeat(seen map[linkSample]int, path string, line int, t float64, direction, rack string) error {
	k := linkSample{t, direction, rack}
	if first, ok := seen[k]; ok {
		return inputErr(path, line, "rack %s's %s link has a sample at %g s already, on line %d", rack, direction, t, first)
	}
	seen[k] = line
	return nil
}

// KV is a key and its value as text.
type KV struct{ Key, Value string }

// LoadMeta reads a JSON object, keeping its keys in file order. String
// values are shown as they are, others as compact JSON.
func LoadMeta(path string) ([]KV, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lineAt := func(off int64) int {
		off = max(0, min(off, int64(len(data))))
		return 1 + bytes.Count(data[:off], []byte{'\n'})
	}
	fail := func(dec *json.Decoder, err error) error {
		var se *json.SyntaxError
		// a decoder's syntax error is at an offset into its current value:
		// find it again in the whole file
		var v any
		if jerr := json.Unmarshal(data, &v); errors.As(jerr, &se) {
			return &InputError{File: path, Line: lineAt(se.Offset), Err: jerr}
		}
		if errors.As(err, &se) {
			return &InputError{File: path, Line: lineAt(se.Offset), Err: err}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return &InputError{File: path, Line: lineAt(int64(len(data))), Err: errors.New("unexpected end of JSON")}
		}
		return &InputError{File: path, Line: lineAt(dec.InputOffset()), Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, inputErr(path, lineAt(dec.InputOffset()), "not a JSON object")
	}
	var kvs []KV
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(dec, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(dec, err)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			var b bytes.Buffer
			if json.Compact(&b, raw) == nil {
				s = b.String()
			} else {
				s = string(raw)
			}
		}
		kvs = append(kvs, KV{key, s})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(dec, err)
	}
	// a second object or garbage after the first (two writers, a bad
	// edit) is no JSON file: showing the first alone would hide the rest
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, inputErr(path, lineAt(int64(len(data)-len(rest))), "data after the JSON object")
	}
	return kvs, nil
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
