package campaign

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// SameRuns reports whether two campaign files describe the same runs:
// equal once their headlines are left out, and their comments and layout
// with them. The headlines are the table a reproduction checks finished
// runs against; they change no run. A result directory made by one file
// therefore holds the results of the other, and correcting a paper's
// table (a figure, a note, a row's wording) does not cost its hours of
// runs. Anything else that differs, down to a comment-free value, is
// another campaign.
func SameRuns(a, b []byte) bool {
	ra, err := runsPart(a)
	if err != nil {
		return false
	}
	rb, err := runsPart(b)
	if err != nil {
		return false
	}
	return reflect.DeepEqual(ra, rb)
}

// runsPart is a campaign file's values less its headlines.
func runsPart(src []byte) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal(src, &m); err != nil {
		return nil, err
	}
	delete(m, "headlines")
	return m, nil
}
