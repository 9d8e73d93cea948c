package policy

import (
	"fmt"
	"strings"
)

// Spec says which policy a run uses and how: a registered policy's name,
// its args (nil: the defaults), and the label its results go by. Two
// specs of one policy with different args and labels compare as two
// policies.
type Spec struct {
	Name  string
	Label string
	Args  map[string]any
}

// String is the spec's label: Label, or the policy's name when Label is
// empty. Result directories, summary rows and reports use it.
func (s Spec) String() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// Specs makes a spec with default args for each name.
func Specs(names ...string) []Spec {
	out := make([]Spec, len(names))
	for i, n := range names {
		out[i] = Spec{Name: n}
	}
	return out
}

// CheckLabel says whether a label can name a result directory and a
// summary row: letters, digits, '.', '_' and '-', not starting with '.'.
func CheckLabel(label string) error {
	if label == "" {
		return fmt.Errorf("empty label")
	}
	if label[0] == '.' {
		return fmt.Errorf("label %q starts with '.'", label)
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return fmt.Errorf("label %q has %q: use letters, digits, '.', '_' and '-'", label, r)
		}
	}
	return nil
}

// CheckSet checks the specs of one run set: each names a known policy
// with valid args and a valid label, and no two share a label (their
// results would land in one place).
func CheckSet(specs []Spec) error {
	seen := map[string]int{}
	for i, s := range specs {
		if err := CheckLabel(s.String()); err != nil {
			return err
		}
		if j, dup := seen[s.String()]; dup {
			return fmt.Errorf("policies %d and %d have the same label %q: give one a label of its own", j+1, i+1, s.String())
		}
		seen[s.String()] = i
		if _, err := Build(s); err != nil {
			return err
		}
	}
	return nil
}
