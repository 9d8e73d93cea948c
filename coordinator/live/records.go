package live

import (
	"bufio"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/racklab/racklab/internal/safefile"
)

// journal appends JSON lines and flushes each, so that a crash of the
// coordinator keeps every record written before it.
type journal struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
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
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.w.Write(b)
	j.w.WriteByte('\n')
	j.w.Flush()
}

func (j *journal) close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.w.Flush(); err != nil {
		j.f.Close()
		return err
	}
	return j.f.Close()
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
