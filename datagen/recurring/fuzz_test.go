package recurring

import (
	"strings"
	"testing"
)

// A predicted-jobs file of any content is read or refused with an error
// that names the file; nothing panics.
func FuzzParsePredicted(f *testing.F) {
	const job = "{id: a, arrival_s: 1, input_bytes: 1, shuffle_bytes: 1, output_bytes: 1, map_tasks: 1, reduce_tasks: 1}"
	f.Add([]byte("jobs:\n  - " + job + "\n"))
	f.Add([]byte("jobs: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParsePredicted("p.yaml", data); err != nil && !strings.Contains(err.Error(), "p.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
