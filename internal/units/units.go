package units

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

var multipliers = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "ti": 1 << 40, "tib": 1 << 40,
	"p": 1e15, "pb": 1e15, "pi": 1 << 50, "pib": 1 << 50,
	"e": 1e18, "eb": 1e18, "ei": 1 << 60, "eib": 1 << 60,
}

// ParseBytes reads a size such as "128MiB", "1.5 GB" or "4096". Units are
// case-insensitive. A fractional result is rounded to the nearest byte.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" || num == "." || strings.Count(num, ".") > 1 || len(num) > 40 {
		return 0, fmt.Errorf("bad size %q: want a number and a unit such as 128MiB or 1GB", s)
	}
	mul, ok := multipliers[unit]
	if !ok {
		return 0, fmt.Errorf("bad size %q: unknown unit %q (want B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, ...)", s, t[i:])
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("bad size %q", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(mul))
	// Round half up to a whole byte.
	q := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Mul(r.Num(), big.NewInt(2)), r.Denom()), new(big.Int).Mul(r.Denom(), big.NewInt(2)))
	if !q.IsInt64() {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return q.Int64(), nil
}

// FormatBytes writes n exactly, with the largest binary unit that divides
// it: 134217728 is "128MiB", 1000 is "1000B".
func FormatBytes(n int64) string {
	if n == 0 {
		return "0B"
	}
	for _, u := range []struct {
		name string
		size int64
	}{{"EiB", 1 << 60}, {"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Human writes n approximately with a decimal unit and three significant
// digits: 26886497357605 is "26.9 TB".
func Human(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"}
	i := 0
	a := math.Abs(n)
	for a >= 999.5 && i < len(units)-1 {
		n /= 1000
		a /= 1000
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', -1, 64) + " B"
	}
	return strconv.FormatFloat(n, 'g', 3, 64) + " " + units[i]
}

// Bytes is a size flag value (it implements pflag.Value and flag.Value).
type Bytes int64

// String is the exact size in the largest binary unit that divides it.
func (b *Bytes) String() string { return FormatBytes(int64(*b)) }

// Set parses a size such as 128MiB.
func (b *Bytes) Set(s string) error {
	v, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*b = Bytes(v)
	return nil
}

// Type names the flag's value type in help text.
func (b *Bytes) Type() string { return "size" }

// Positive checks that a named factor is a finite number above zero.
func Positive(name string, x float64) error {
	if !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("%s must be positive (got %g)", name, x)
	}
	return nil
}

// NonNegative checks that a named factor is a finite number, zero or more.
func NonNegative(name string, x float64) error {
	if !(x >= 0) || math.IsInf(x, 0) {
		return fmt.Errorf("%s must not be negative (got %g)", name, x)
	}
	return nil
}
