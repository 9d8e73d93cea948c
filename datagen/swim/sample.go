package swim

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
)

// Sample picks n of a trace's jobs at random (seeded) and returns them as
// a trace of their own, in trace order, as Shadow's evaluation takes "50
// jobs chosen at random" from the FB-2010 trace with "the original
// inter-arrival times kept" (shadow.md §5.2): each job keeps its own gap
// (field 3) to the job before it, and the submit times (field 2) are the
// running sum of the kept gaps, so the sample arrives as densely as the
// trace does rather than spread over the trace's whole day. name is the
// file name for error messages; the lines are checked by Import, and keep
// their line numbers in the sample (blank lines stand for those left out).
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
	no := 1 // the line read next
	for ; sc.Scan(); no++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		lines = append(lines, line{no, strings.Split(text, "\t")})
	}
	if err := sc.Err(); err != nil {
		// the line that could not be read, as Import says it
		return nil, fmt.Errorf("%s:%d: %w", name, no, err)
	}
	if n > len(lines) {
		return nil, fmt.Errorf("%s: sample of %d jobs from a trace of %d", name, n, len(lines))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a3c))
	pick := rng.Perm(len(lines))[:n]
	sort.Ints(pick)
	var b strings.Builder
	submit := 0.0
	at := 1 // the line the sample is at: blank lines keep the trace's numbers
	for _, i := range pick {
		l := lines[i]
		if len(l.fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want at least 3 tab-separated fields, got %d", name, l.no, len(l.fields))
		}
		gap, err := strconv.ParseFloat(strings.TrimSpace(l.fields[2]), 64)
		if err != nil || !(gap >= 0) || math.IsInf(gap, 0) {
			return nil, fmt.Errorf("%s:%d: gap (field 3): %q is not a non-negative number of seconds", name, l.no, l.fields[2])
		}
		// field 2 is the sampler's, not the file's: check the sum here,
		// where the line that takes it past the limit is known
		if submit += gap; submit > workload.MaxArrivalS {
			return nil, fmt.Errorf("%s:%d: gap (field 3): the sample's gaps add up to %g s here, above the limit of %g s", name, l.no, submit, workload.MaxArrivalS)
		}
		f := append([]string(nil), l.fields...)
		f[1] = strconv.FormatFloat(submit, 'f', -1, 64)
		b.WriteString(strings.Repeat("\n", l.no-at))
		b.WriteString(strings.Join(f, "\t"))
		b.WriteByte('\n')
		at = l.no + 1
	}
	return strings.NewReader(b.String()), nil
}
