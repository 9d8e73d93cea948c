package mix

import (
	"bytes"
	"strings"
	"testing"
)

// A mix file of any content is read or refused with an error that names
// the file; nothing panics. The seeds are the presets.
func FuzzParseMix(f *testing.F) {
	entries, err := presets.ReadDir("presets")
	if err != nil || len(entries) == 0 {
		f.Fatalf("no preset to seed from: %v", err)
	}
	for _, e := range entries {
		data, err := presets.ReadFile("presets/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMix(bytes.NewReader(data), "m.mix")
		if err != nil {
			if !strings.Contains(err.Error(), "m.mix") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if m.Jobs() < 0 {
			t.Fatalf("accepted a mix of %d jobs", m.Jobs())
		}
	})
}
