package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/internal/safefile"
)

// RecordFile is a file a finished run wrote, as done.json lists it.
type RecordFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// doneMarker is done.json: the run's summary and the files it wrote.
// Digest is the sha256 of the rest, so that a marker edited by hand (or
// cut short) is not taken for a finished run.
type doneMarker struct {
	Summary summaryJSON  `json:"summary"`
	Files   []RecordFile `json:"files"`
	Digest  string       `json:"digest"`
}

func (m *doneMarker) digest() (string, error) {
	b, err := json.Marshal(struct {
		Summary summaryJSON  `json:"summary"`
		Files   []RecordFile `json:"files"`
	}{m.Summary, m.Files})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// markDone writes r's done.json: its summary, and the name, size and
// sha256 of every file in its directory.
func markDone(r Run, sum metrics.Summary) error {
	// the records are on disk before the marker that vouches for them
	if err := safefile.SyncDir(r.Dir); err != nil {
		return fmt.Errorf("run %s: %w", r.ID(), err)
	}
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return err
	}
	m := doneMarker{Summary: summaryJSON{sum}}
	for _, e := range entries {
		// hidden files are the temporary ones of replaced files
		if e.Name() == doneFile || strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		f, err := hashFile(filepath.Join(r.Dir, e.Name()))
		if err != nil {
			return err
		}
		f.Name = e.Name()
		m.Files = append(m.Files, f)
	}
	for _, name := range metrics.RecordFiles {
		if !slices.ContainsFunc(m.Files, func(f RecordFile) bool { return f.Name == name }) {
			return fmt.Errorf("run %s: no %s in %s", r.ID(), name, r.Dir)
		}
	}
	if m.Digest, err = m.digest(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(r.Dir, doneFile), append(b, '\n'), 0o644)
}

func hashFile(path string) (RecordFile, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return RecordFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return RecordFile{}, err
	}
	return RecordFile{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// CheckDone reports whether a run finished in an earlier invocation and
// its records are as it left them, and returns its summary. The error
// says why a run with a done.json is not taken as done (errors.Is
// fs.ErrNotExist: it has none): done.json is malformed, empty, edited,
// of another run, or a record file it lists is missing, of another size
// or content.
func CheckDone(r Run) (metrics.Summary, error) {
	path := filepath.Join(r.Dir, doneFile)
	f, err := safefile.Open(path)
	if err != nil {
		return metrics.Summary{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if err != nil {
		return metrics.Summary{}, err
	}
	var m doneMarker
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return metrics.Summary{}, fmt.Errorf("%s is malformed: %w", path, err)
	}
	if dec.More() {
		return metrics.Summary{}, fmt.Errorf("%s is malformed: text after its object", path)
	}
	if len(m.Files) == 0 || m.Digest == "" {
		return metrics.Summary{}, fmt.Errorf("%s lists no record files or has no digest (empty, or of an older racklab)", path)
	}
	if want, err := m.digest(); err != nil || want != m.Digest {
		return metrics.Summary{}, fmt.Errorf("%s was edited after the run: its digest does not match its content", path)
	}
	s := m.Summary.Summary
	if s.Policy != r.Policy.String() || s.Seed != r.Seed {
		return metrics.Summary{}, fmt.Errorf("%s is of run %s seed %d, not of %s", path, s.Policy, s.Seed, r.ID())
	}
	for _, name := range metrics.RecordFiles {
		if !slices.ContainsFunc(m.Files, func(f RecordFile) bool { return f.Name == name }) {
			return metrics.Summary{}, fmt.Errorf("%s does not list %s", path, name)
		}
	}
	for _, want := range m.Files {
		if want.Name != filepath.Base(want.Name) || strings.HasPrefix(want.Name, ".") || want.Name == doneFile {
			return metrics.Summary{}, fmt.Errorf("%s lists %q, not a record file of the run", path, want.Name)
		}
		got, err := hashFile(filepath.Join(r.Dir, want.Name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return metrics.Summary{}, fmt.Errorf("%s is missing", want.Name)
		case err != nil:
			return metrics.Summary{}, err
		case got.Size != want.Size:
			return metrics.Summary{}, fmt.Errorf("%s is %d bytes, done.json says %d", want.Name, got.Size, want.Size)
		case got.SHA256 != want.SHA256:
			return metrics.Summary{}, fmt.Errorf("%s has changed since the run (its sha256 differs from done.json's)", want.Name)
		}
	}
	return s, nil
}

// Done reports whether a run finished in an earlier invocation with its
// records intact (see CheckDone), and its summary.
func Done(r Run) (metrics.Summary, bool) {
	s, err := CheckDone(r)
	return s, err == nil
}

// PlannedRuns is how many runs the campaign of result directory dir plans
// (modes × workloads × policies × repetitions), from its campaign.yaml; 0
// when dir holds none.
func PlannedRuns(dir string) (int, error) {
	c, err := resultDirCampaign(dir)
	if c == nil || err != nil {
		return 0, err
	}
	return len(c.Matrix(dir)), nil
}

// ResultDirWorkloads lists the named workloads of the campaign of result
// directory dir in its file's order, from its campaign.yaml; nil when dir
// holds none or the campaign has one workload.
func ResultDirWorkloads(dir string) ([]string, error) {
	c, err := resultDirCampaign(dir)
	if c == nil || err != nil {
		return nil, err
	}
	return c.WorkloadNames(), nil
}

// ResultDirSets lists the result sets the campaign of result directory
// dir plans, as paths under dir with slashes ("sim", "sim/ml",
// "local-small"), in campaign order; nil when dir holds no campaign.
func ResultDirSets(dir string) ([]string, error) {
	c, err := resultDirCampaign(dir)
	if c == nil || err != nil {
		return nil, err
	}
	var out []string
	for _, set := range c.resultSets() {
		out = append(out, filepath.ToSlash(filepath.Join(set.runSet, set.workload)))
	}
	return out, nil
}

// ResultDirProblems lists, for the campaign of result directory dir, the
// runs whose records are not as the run left them (CheckDone: a record
// file since cut short, edited or removed), and the summary.csv rows the
// report would read that are not a finished run's summary (a row left by
// a crash while its run was redone by an older racklab, a run whose
// done.json is gone, a figure edited by hand), one line each; nil when
// dir holds no campaign or all is as the runs left it. A run that has
// not finished (no done.json) and has no row is not a problem: the
// report says the campaign is partial.
func ResultDirProblems(dir string) ([]string, error) {
	c, err := resultDirCampaign(dir)
	if c == nil || err != nil {
		return nil, err
	}
	var out []string
	type result struct {
		run Run
		sum metrics.Summary
		err error
	}
	sets := map[string]map[string]result{} // summary.csv path → run ID in it → its state
	var order []string
	for _, r := range c.Matrix(dir) {
		s, err := CheckDone(r)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			out = append(out, fmt.Sprintf("run %s: %v", r.ID(), err))
		}
		path := filepath.Join(SetDir(dir, r.Set.Dir(), r.Workload), "summary.csv")
		if sets[path] == nil {
			sets[path] = map[string]result{}
			order = append(order, path)
		}
		sets[path][fmt.Sprintf("%s-seed%d", r.Policy, r.Seed)] = result{r, s, err}
	}
	for _, path := range order {
		rows, err := readSummaryRows(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			key := row.cells["policy"] + "-seed" + row.cells["seed"]
			res, ok := sets[path][key]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s:%d: %s is not a run of the campaign", path, row.line, key))
			case errors.Is(res.err, fs.ErrNotExist):
				out = append(out, fmt.Sprintf("%s:%d: run %s has not finished (no %s; cut off while it ran again?): the row is not its figures", path, row.line, res.run.ID(), doneFile))
			case res.err != nil:
				// its records are said to have changed, above
			default:
				want := res.sum.Row()
				for i, col := range metrics.SummaryHeader {
					if got, has := row.cells[col]; has && got != want[i] {
						out = append(out, fmt.Sprintf("%s:%d: run %s's %s is %s, its done.json says %s", path, row.line, res.run.ID(), col, got, want[i]))
						break
					}
				}
			}
		}
	}
	return out, nil
}

// summaryRow is a summary.csv row by column name, with its line.
type summaryRow struct {
	line  int
	cells map[string]string
}

// readSummaryRows reads a summary.csv as written (metrics.WriteSummaries),
// cell by cell.
func readSummaryRows(path string) ([]summaryRow, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := csv.NewReader(io.LimitReader(f, 64<<20))
	rd.FieldsPerRecord = -1
	head, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rows []summaryRow
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := rd.FieldPos(0)
		row := summaryRow{line: line, cells: map[string]string{}}
		for i, h := range head {
			if i < len(rec) {
				row.cells[strings.TrimSpace(h)] = strings.TrimSpace(rec[i])
			}
		}
		rows = append(rows, row)
	}
}

// resultDirCampaign parses dir/campaign.yaml; nil when there is none.
func resultDirCampaign(dir string) (*Campaign, error) {
	path := filepath.Join(dir, "campaign.yaml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// summaryJSON is a summary in done.json. encoding/json cannot write a
// non-finite number, and a summary may hold one (a link skew is +Inf
// when a rack link carried nothing): those are written as strings
// ("+Inf", "-Inf", "NaN"), the others as numbers, under the field names.
type summaryJSON struct{ metrics.Summary }

// summaryFieldsAdded are the metrics.Summary fields added after done.json
// first held summaries: a done.json written before one has no such field
// and stands for its zero value, which is left out when written, so that
// such a done.json's digest still matches and its run stays done.
var summaryFieldsAdded = map[string]bool{"HostsLost": true}

func (s summaryJSON) MarshalJSON() ([]byte, error) {
	v := reflect.ValueOf(s.Summary)
	out := make(map[string]any, v.NumField())
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if summaryFieldsAdded[name] && v.Field(i).IsZero() {
			continue
		}
		out[name] = encodeValue(v.Field(i))
	}
	return json.Marshal(out)
}

func encodeValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = encodeValue(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

func (s *summaryJSON) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	v := reflect.ValueOf(&s.Summary).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		raw, ok := fields[name]
		if !ok && summaryFieldsAdded[name] {
			v.Field(i).SetZero()
			continue
		}
		if !ok {
			return fmt.Errorf("summary: no field %s", name)
		}
		if err := decodeValue(raw, v.Field(i)); err != nil {
			return fmt.Errorf("summary: field %s: %w", name, err)
		}
		delete(fields, name)
	}
	for name := range fields {
		return fmt.Errorf("summary: unknown field %s", name)
	}
	return nil
}

func decodeValue(raw json.RawMessage, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Float64:
		var text string
		if json.Unmarshal(raw, &text) == nil {
			x, err := strconv.ParseFloat(text, 64)
			if err != nil || !(math.IsNaN(x) || math.IsInf(x, 0)) {
				return fmt.Errorf("%s is neither a number nor +Inf, -Inf, NaN", raw)
			}
			v.SetFloat(x)
			return nil
		}
	case reflect.Array:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return err
		}
		if len(elems) != v.Len() {
			return fmt.Errorf("%d values, want %d", len(elems), v.Len())
		}
		for i := range elems {
			if err := decodeValue(elems[i], v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return json.Unmarshal(raw, v.Addr().Interface())
}
