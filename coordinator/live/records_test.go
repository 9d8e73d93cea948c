package live

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// A record the journal cannot write is not lost unsaid: close returns
// the first failure, naming the file. Before, write dropped every error
// and close returned only its own flush's.
func TestJournalKeepsTheFirstWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "attempts.jsonl")
	j, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j.write(map[string]int{"ok": 1})
	j.write(math.Inf(1)) // JSON has no infinity
	if err := j.close(); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "float64") {
		t.Fatalf("close after an unwritable record: %v, want an error naming %s and the record", err, path)
	}

	j, err = openJournal(filepath.Join(t.TempDir(), "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	j.f.Close() // as a disk that fails under the journal
	j.write(map[string]int{"lost": 1})
	if err := j.close(); err == nil || !strings.Contains(err.Error(), "events.jsonl") {
		t.Fatalf("close after a failed write: %v, want an error naming the file", err)
	}
}
