package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/racklab/racklab/internal/safefile"
)

// journal appends JSON lines and flushes each, so that a crash of the
// coordinator keeps every record written before it. A record it could
// not write (a full disk, an I/O error) is kept as the journal's error,
// which close returns: the run fails rather than end with records lost
// unsaid.
type journal struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error // the first record that could not be written
}

func openJournal(path string) (*journal, error) {
	f, err := safefile.Create(path, 0o644) // a new file, never a link found in the run directory
	if err != nil {
		return nil, err
	}
	return &journal{f: f, w: bufio.NewWriter(f)}, nil
}

func (j *journal) write(rec any) {
	if j == nil {
		return
	}
	b, err := json.Marshal(rec)
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		j.fail(fmt.Errorf("a record of %T: %w", rec, err))
		return
	}
	j.w.Write(b) // bufio keeps the first error: Flush returns it
	j.w.WriteByte('\n')
	if err := j.w.Flush(); err != nil {
		j.fail(err)
	}
}

func (j *journal) fail(err error) {
	if j.err == nil {
		j.err = fmt.Errorf("%s: %w", j.f.Name(), err)
	}
}

func (j *journal) close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.w.Flush(); err != nil {
		j.fail(err)
	}
	if err := j.f.Close(); err != nil {
		j.fail(err)
	}
	return j.err
}

// Event is one line of events.jsonl: what happened to the run, beside the
// attempt and job records.
type Event struct {
	Time   float64 `json:"t"` // seconds since the run started (negative: before)
	Wall   string  `json:"wall"`
	Kind   string  `json:"kind"`
	Host   string  `json:"host,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

func newEvent(t float64, kind, host, detail string) Event {
	return Event{Time: t, Wall: time.Now().UTC().Format(time.RFC3339Nano), Kind: kind, Host: host, Detail: detail}
}
