package traffic

import "fmt"

// Band is a row of the priority table: a DSCP codepoint, and the HTB leaf
// of a shaped group that the codepoint selects (the leaf's HTB prio is the
// Band, so Band 0 borrows the group's rate first). Bands are ordered
// highest first.
type Band int

// The bands, highest first.
const (
	BandJob0       Band = iota // engine priority 0: CS5
	BandJob1                   // engine priority 1: CS4
	BandJob2                   // engine priority 2: CS3
	BandJob3                   // engine priority 3 and every larger one: CS2
	BandBestEffort             // CS0, the unmarked traffic, and any DSCP not in this table
	BandReserved               // CS1: the reserved lowest band of job traffic
	BandBackground             // LE (RFC 8622): background traffic
	NumBands
)

// NumJobBands is the number of bands engine priorities map to, one each:
// priorities from NumJobBands on share the last, BandJob3.
const NumJobBands = int(BandJob3) + 1

// table is the priority table. A row's index is its Band; for the job
// bands it is also the engine priority. Codepoints are distinct, and only
// best effort's may stand for codepoints not listed.
var table = [NumBands]struct {
	name string
	dscp uint8
}{
	BandJob0:       {"job0", dscpCS5},
	BandJob1:       {"job1", dscpCS4},
	BandJob2:       {"job2", dscpCS3},
	BandJob3:       {"job3", dscpCS2},
	BandBestEffort: {"best-effort", 0},
	BandReserved:   {"reserved", dscpCS1},
	BandBackground: {"background", dscpLE},
}

func (b Band) String() string {
	if b >= 0 && b < NumBands {
		return table[b].name
	}
	return fmt.Sprintf("band(%d)", int(b))
}

// ParseBand turns a band name ("job0", "best-effort", ...) into a Band.
func ParseBand(s string) (Band, error) {
	for b := range NumBands {
		if table[b].name == s {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown priority band %q", s)
}

// DSCP returns the codepoint that selects b (best effort's for a Band
// outside the table).
func (b Band) DSCP() uint8 {
	if b < 0 || b >= NumBands {
		return table[BandBestEffort].dscp
	}
	return table[b].dscp
}

// BandOfDSCP returns the band a codepoint selects: best effort for one
// that is not in the table.
func BandOfDSCP(dscp uint8) Band {
	for b := range NumBands {
		if table[b].dscp == dscp {
			return b
		}
	}
	return BandBestEffort
}

// PriorityBand returns the band of an engine network priority (0 is the
// highest); priorities past the last job band share it.
func PriorityBand(p uint8) Band {
	return Band(min(int(p), NumJobBands-1))
}

// PriorityDSCP returns the codepoint of an engine network priority.
func PriorityDSCP(p uint8) uint8 { return PriorityBand(p).DSCP() }

// DSCPPriority returns the engine priority a codepoint stands for, and
// false for a codepoint outside the job bands.
func DSCPPriority(dscp uint8) (uint8, bool) {
	b := BandOfDSCP(dscp)
	if b >= Band(NumJobBands) {
		return 0, false
	}
	return uint8(b), true
}
