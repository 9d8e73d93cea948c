package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A campaign file of any content is read or refused with an error that
// names the file; nothing panics. The seeds are the repository's
// campaigns.
func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob("../../campaigns/*.yaml")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no campaign to seed from: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nworkload: {file: w.yaml}\nruns: [{policy: fifo}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("c.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "c.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if c.Name == "" || len(c.Runs) == 0 {
			t.Fatalf("accepted a campaign without a name or runs: %+v", c)
		}
	})
}
