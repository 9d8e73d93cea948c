package replay_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy/replay"
	"github.com/racklab/racklab/internal/fuzzseed"
)

// An attempts.csv of any content is read or refused with an error that
// names the file; nothing panics. The seeds are the scenarios' records.
func FuzzParse(f *testing.F) {
	fuzzseed.Files(f, "testdata/records/*.csv")
	f.Add([]byte(header + "j,0,0,0,map,h0,0,1,done,false,mem,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := replay.Parse("a.csv", bytes.NewReader(data)); err != nil && !strings.Contains(err.Error(), "a.csv") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
