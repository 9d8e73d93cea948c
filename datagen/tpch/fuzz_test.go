package tpch

import (
	"bytes"
	"strings"
	"testing"
)

// A plans file of any content is read or refused with an error that
// names the file; nothing panics. The seed is the embedded plans.txt.
func FuzzParsePlans(f *testing.F) {
	f.Add(builtinPlans)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParsePlans(bytes.NewReader(data), "p.txt"); err != nil && !strings.Contains(err.Error(), "p.txt") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
