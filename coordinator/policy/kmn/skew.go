package kmn

// lessSkew reports whether a/b < c/d for positive denominators.
func lessSkew(a, b, c, d int64) bool { return a*d < c*b }
