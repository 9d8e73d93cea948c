package yamlfile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Emitter writes YAML text. Its error is sticky; Flush reports it.
type Emitter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewEmitter writes to w through a buffer; call Flush at the end.
func NewEmitter(w io.Writer) *Emitter {
	return &Emitter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Raw writes s as it is: keys, indentation and punctuation.
func (e *Emitter) Raw(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// Str writes a string scalar, quoted when it has to be.
func (e *Emitter) Str(s string) {
	if e.err != nil {
		return
	}
	if !utf8.ValidString(s) {
		e.err = fmt.Errorf("string %q is not valid UTF-8", s)
		return
	}
	if plainOK(s) {
		e.Raw(s)
		return
	}
	e.buf = strconv.AppendQuote(e.buf[:0], s)
	_, e.err = e.w.Write(e.buf)
}

// Int writes an integer.
func (e *Emitter) Int(v int64) {
	if e.err == nil {
		e.buf = strconv.AppendInt(e.buf[:0], v, 10)
		_, e.err = e.w.Write(e.buf)
	}
}

// Float writes a finite number in the shortest form that reads back as
// the same float64.
func (e *Emitter) Float(v float64) {
	if e.err != nil {
		return
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		e.err = fmt.Errorf("cannot write %v: numbers must be finite", v)
		return
	}
	e.Raw(FormatFloat(v))
}

// Scaled writes v divided by 10^pow10 as a decimal that ParseScaled reads
// back as exactly v.
func (e *Emitter) Scaled(v float64, pow10 int) {
	if e.err != nil {
		return
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		e.err = fmt.Errorf("cannot write %v: numbers must be finite", v)
		return
	}
	e.Raw(FormatScaled(v, pow10))
}

// Fail records an error of the caller's, unless one is recorded already.
func (e *Emitter) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// Err is the first error met.
func (e *Emitter) Err() error { return e.err }

// Flush writes out the buffer and returns the first error met.
func (e *Emitter) Flush() error {
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// plainOK says whether s can be written unquoted: a word of letters,
// digits and _ . / - starting with a letter or _, that YAML would not
// take for a boolean or null. The rule is strict on purpose; anything else
// is double-quoted, which is always safe.
func plainOK(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/') {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// FormatFloat is the shortest decimal of v that reads back as v, without
// an exponent for everyday magnitudes.
func FormatFloat(v float64) string {
	if a := math.Abs(v); a == 0 || a >= 1e-4 && a < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// FormatScaled writes v/10^pow10 as a decimal string such that
// ParseScaled(s, pow10) == v exactly: it takes the shortest decimal of v
// and moves its point, so no rounding happens on the way.
func FormatScaled(v float64, pow10 int) string {
	s := strconv.FormatFloat(v, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	i := strings.IndexByte(s, 'e')
	exp, _ := strconv.Atoi(s[i+1:])
	digits := strings.Replace(s[:i], ".", "", 1)
	// value = 0.digits × 10^(exp+1), then divided by 10^pow10
	point := exp + 1 - pow10 // position of the decimal point in digits
	var out string
	switch {
	case digits == "0":
		out = "0"
	case point > 21 || point < -6:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		out += "e" + strconv.Itoa(point-1)
	case point <= 0:
		out = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		out = digits + strings.Repeat("0", point-len(digits))
	default:
		out = digits[:point] + "." + digits[point:]
	}
	if neg {
		out = "-" + out
	}
	return out
}
