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
	case ratio < lowestRatio:
		return TooSmall
	case ratio > highestRatio:
		return TooLarge
	}
	return Reproduced
}

// JudgeBound gives the verdict on a policy's value against the paper's
// bound: reproduced when measured is at most paper (bound -1) or at
// least paper (bound +1), the bound itself included; NaN is not
// measured.
func JudgeBound(paper float64, bound int, measured float64) Outcome {
	switch {
	case math.IsNaN(measured) || math.IsInf(measured, 0):
		return NotMeasured
	case bound < 0 && measured > paper, bound > 0 && measured < paper:
		return OutOfBound
	}
	return Reproduced
}
