package campaign

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/internal/fuzzseed"
)

// A campaign file of any content is read or refused with an error that
// names the file; nothing panics. The seeds are the repository's
// campaigns.
func FuzzParse(f *testing.F) {
	fuzzseed.Files(f, "../../campaigns/*.yaml")
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
