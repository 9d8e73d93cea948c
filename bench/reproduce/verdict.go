package reproduce

import "math"

// Outcome is a row's verdict.
type Outcome int

// The outcomes.
const (
	Reproduced Outcome = iota
	WrongDirection
	TooSmall
	TooLarge
	NotMeasured
	// OutOfBound is a value on the wrong side of the paper's bound.
	OutOfBound
)

func (o Outcome) String() string {
	switch o {
	case Reproduced:
		return "reproduced"
	case WrongDirection:
		return "not reproduced: wrong direction"
	case TooSmall:
		return "not reproduced: too small"
	case TooLarge:
		return "not reproduced: too large"
	case OutOfBound:
		return "not reproduced: outside the paper's bound"
	}
	return "not measured"
}

// The bounds of a reproduced effect, as multiples of the paper's.
const (
	lowestRatio  = 0.5
	highestRatio = 2
	// ratioSlack is the relative margin the bounds are kept with: an
	// effect of exactly ½× or 2× is reproduced, and the difference of two
	// means computes to an ulp or so off it (0.29 − 0.23 is
	// 0.05999999999999997, a mean of 1.15 against 1 is +14.999999999999991%)
	ratioSlack = 1e-9
)

// Judge gives the verdict on a measured effect against the paper's:
// paper is the paper's effect (NaN when it gives only a direction),
// direction its sign (+1 or -1), measured the effect in the same unit
// (NaN when it could not be measured). A measured effect of exactly 0 has
// no direction, so it is the wrong one.
func Judge(paper float64, direction int, measured float64) Outcome {
	switch {
	case math.IsNaN(measured) || math.IsInf(measured, 0):
		return NotMeasured
	case measured == 0 || (measured > 0) != (direction > 0):
		return WrongDirection
	case math.IsNaN(paper):
		return Reproduced
	}
	ratio := measured / paper
	switch {
	case ratio < lowestRatio*(1-ratioSlack):
		return TooSmall
	case ratio > highestRatio*(1+ratioSlack):
		return TooLarge
	}
	return Reproduced
}

// JudgeBound gives the verdict on a policy's value against the paper's
// bound: reproduced when measured is at most paper (bound -1) or at
// least paper (bound +1), the bound itself included (with ratioSlack:
// three runs of 0.95 have a mean of 0.9499999999999998); NaN is not
// measured.
func JudgeBound(paper float64, bound int, measured float64) Outcome {
	slack := math.Abs(paper) * ratioSlack
	switch {
	case math.IsNaN(measured) || math.IsInf(measured, 0):
		return NotMeasured
	case bound < 0 && measured > paper+slack, bound > 0 && measured < paper-slack:
		return OutOfBound
	}
	return Reproduced
}
