package swim

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Sample picks n of a trace's jobs at random (seeded) and returns them as
// a trace of their own, in trace order, as Shadow's evaluation takes "50
// jobs chosen at random" from the FB-2010 trace with "the original
// inter-arrival times kept" (shadow.md §5.2): each job keeps its own gap
// (field 3) to the job before it, and the submit times (field 2) are the
// running sum of the kept gaps, so the sample arrives as densely as the
// trace does rather than spread over the trace's whole day. name is the
// file name for error messages; the lines are checked by Import.
func Sample(r io.Reader, name string, n int, seed uint64) (io.Reader, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%s: sample must be positive (got %d)", name, n)
	}
	type line struct {
		no     int
		fields []string
	}
	var lines []line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for no := 1; sc.Scan(); no++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		lines = append(lines, line{no, strings.Split(text, "\t")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n > len(lines) {
		return nil, fmt.Errorf("%s: sample of %d jobs from a trace of %d", name, n, len(lines))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a3c))
	pick := rng.Perm(len(lines))[:n]
	sort.Ints(pick)
	var b strings.Builder
	submit := 0.0
	for _, i := range pick {
		l := lines[i]
		if len(l.fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want at least 3 tab-separated fields, got %d", name, l.no, len(l.fields))
		}
		gap, err := strconv.ParseFloat(strings.TrimSpace(l.fields[2]), 64)
		if err != nil || gap < 0 {
			return nil, fmt.Errorf("%s:%d: gap (field 3): %q is not a non-negative number of seconds", name, l.no, l.fields[2])
		}
		submit += gap
		f := append([]string(nil), l.fields...)
		f[1] = strconv.FormatFloat(submit, 'f', -1, 64)
		b.WriteString(strings.Join(f, "\t"))
		b.WriteByte('\n')
	}
	return strings.NewReader(b.String()), nil
}
