package replay_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/policy/replay"
)

// An attempts.csv of any content is read or refused with an error that
// names the file; nothing panics. The seeds are the scenarios' records.
func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob("testdata/records/*.csv")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no records to seed from: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(header + "j,0,0,0,map,h0,0,1,done,false,mem,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := replay.Parse("a.csv", bytes.NewReader(data)); err != nil && !strings.Contains(err.Error(), "a.csv") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
