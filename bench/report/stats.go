package report

import "math"

// Stat summarises the repetitions of one metric for one policy.
type Stat struct {
	N    int     // repetitions
	Mean float64 // arithmetic mean
	SD   float64 // sample standard deviation (n-1); 0 for n < 2
	// HalfWidth is the half-width of the 95% confidence interval of the
	// mean, t(0.975, n-1)·SD/√n; NaN when there is no interval (n < 2 or
	// a value is not finite).
	HalfWidth float64
	// Values are the repetitions' values, in the order given.
	Values []float64
}

// MinCIRepetitions is the fewest repetitions the report draws a confidence
// interval for. With two, the t quantile is 12.7 and the interval spans
// the metric's whole range (below zero, or above 1 for a fraction): it
// says nothing the two values do not, so the report shows the values.
const MinCIRepetitions = 3

// HasCI tells whether the statistic has a confidence interval.
func (s Stat) HasCI() bool { return !math.IsNaN(s.HalfWidth) }

// ShowCI tells whether the report shows the statistic's confidence
// interval: it has one, from at least MinCIRepetitions repetitions.
func (s Stat) ShowCI() bool { return s.HasCI() && s.N >= MinCIRepetitions }

// Lo and Hi are the bounds of the 95% confidence interval.
func (s Stat) Lo() float64 { return s.Mean - s.HalfWidth }

// Hi is the upper bound of the 95% confidence interval.
func (s Stat) Hi() float64 { return s.Mean + s.HalfWidth }

// Summarise computes the mean and the 95% confidence interval of xs.
func Summarise(xs []float64) Stat {
	s := Stat{N: len(xs), HalfWidth: math.NaN(), Values: append([]float64(nil), xs...)}
	if s.N == 0 {
		s.Mean = math.NaN()
		return s
	}
	finite := true
	for _, x := range xs {
		s.Mean += x
		finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	s.Mean /= float64(s.N)
	if s.N < 2 || !finite {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.HalfWidth = TQuantile(0.975, float64(s.N-1)) * s.SD / math.Sqrt(float64(s.N))
	return s
}

// TQuantile is the p-quantile of Student's t distribution with dof
// degrees of freedom.
func TQuantile(p, dof float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(dof) || dof <= 0 || p <= 0 || p >= 1:
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, dof)
	}
	// bisection on the CDF: monotone, and 200 halvings reach float64
	// precision from any bracket
	lo, hi := 0.0, 1.0
	for TCDF(hi, dof) < p {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if TCDF(mid, dof) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TCDF is the cumulative distribution function of Student's t
// distribution with dof degrees of freedom.
func TCDF(t, dof float64) float64 {
	if math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := 0.5 * regIncBeta(dof/2, 0.5, dof/(dof+t*t))
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// regIncBeta is the regularised incomplete beta function I_x(a, b).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	// the continued fraction converges fast for x < (a+1)/(a+b+2)
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the incomplete beta function
// by the modified Lentz method.
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 1000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

// RelChange is (x - base)/|base|; ok is false when it is undefined (a zero
// baseline under a non-zero value, or a value that is not finite).
func RelChange(x, base float64) (rel float64, ok bool) {
	if math.IsNaN(x) || math.IsNaN(base) || math.IsInf(x, 0) || math.IsInf(base, 0) {
		return math.NaN(), false
	}
	if base == 0 {
		if x == 0 {
			return 0, true
		}
		return math.NaN(), false
	}
	return (x - base) / math.Abs(base), true
}

// WelchInterval is the 95% confidence interval of the difference of two
// means, a − b, by Welch's t (the two may have different variances). Its
// bounds are NaN when either side has fewer than two values or a
// non-finite one; with no spread on either side it is the difference
// itself.
func WelchInterval(a, b Stat) (lo, hi float64) {
	if a.N < 2 || b.N < 2 || math.IsNaN(a.SD) || math.IsNaN(b.SD) {
		return math.NaN(), math.NaN()
	}
	d := a.Mean - b.Mean
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	if va+vb == 0 {
		return d, d
	}
	dof := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	hw := TQuantile(0.975, dof) * math.Sqrt(va+vb)
	return d - hw, d + hw
}
