package reproduce

import (
	"math"
	"testing"
)

func TestJudge(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		paper     float64
		direction int
		measured  float64
		want      Outcome
	}{
		{"same as the paper", 0.73, 1, 0.73, Reproduced},
		{"half, the lower bound", 0.40, 1, 0.20, Reproduced},
		{"twice, the upper bound", 0.40, 1, 0.80, Reproduced},
		{"just under half", 0.40, 1, 0.1999, TooSmall},
		{"just over twice", 0.40, 1, 0.8001, TooLarge},
		{"opposite sign", 0.40, 1, -0.40, WrongDirection},
		{"no change", 0.40, 1, 0, WrongDirection},
		{"a decrease within bounds", -0.66, -1, -0.40, Reproduced},
		{"a decrease too small", -0.66, -1, -0.30, TooSmall},
		{"a decrease too large", -0.30, -1, -0.61, TooLarge},
		{"a decrease measured as an increase", -0.34, -1, 0.05, WrongDirection},
		{"points within bounds", 12, 1, 20, Reproduced},
		{"direction only, matched", nan, 1, 46.2, Reproduced},
		{"direction only, lower matched", nan, -1, -0.01, Reproduced},
		{"direction only, wrong", nan, 1, -3, WrongDirection},
		{"direction only, no change", nan, -1, 0, WrongDirection},
		{"not measured", 0.73, 1, nan, NotMeasured},
		{"infinite", 0.73, 1, math.Inf(1), NotMeasured},
	}
	for _, c := range cases {
		if got := Judge(c.paper, c.direction, c.measured); got != c.want {
			t.Errorf("%s: Judge(%g, %d, %g) = %v, want %v", c.name, c.paper, c.direction, c.measured, got, c.want)
		}
	}
}

func TestOutcomeTexts(t *testing.T) {
	want := map[Outcome]string{Reproduced: "reproduced", WrongDirection: "not reproduced: wrong direction",
		TooSmall: "not reproduced: too small", TooLarge: "not reproduced: too large", NotMeasured: "not measured"}
	for o, s := range want {
		if o.String() != s {
			t.Errorf("%d: %q, want %q", o, o.String(), s)
		}
	}
}
