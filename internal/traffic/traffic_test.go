package traffic

import (
	"strings"
	"testing"
)

func TestClassNamesParse(t *testing.T) {
	for c := range NumClasses {
		got, err := ParseClass(c.String())
		if err != nil || got != c {
			t.Errorf("ParseClass(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if _, err := ParseClass("bulk"); err == nil || !strings.Contains(err.Error(), `"bulk"`) {
		t.Errorf("ParseClass(bulk): %v, want an error naming it", err)
	}
	if s := NumClasses.String(); s != "class(7)" {
		t.Errorf("String of an unknown class = %q", s)
	}
	if NumClasses.DSCP() != 0 {
		t.Error("an unknown class is not best effort")
	}
}

func TestBandNamesParse(t *testing.T) {
	seen := map[string]bool{}
	for b := range NumBands {
		if seen[b.String()] {
			t.Errorf("band name %q used twice", b)
		}
		seen[b.String()] = true
		got, err := ParseBand(b.String())
		if err != nil || got != b {
			t.Errorf("ParseBand(%q) = %v, %v; want %v", b.String(), got, err, b)
		}
	}
	if _, err := ParseBand("urgent"); err == nil {
		t.Error("ParseBand(urgent) succeeded")
	}
}

// Codepoints are distinct 6-bit values, and each selects its own band.
func TestBandDSCPRoundTrip(t *testing.T) {
	seen := map[uint8]Band{}
	for b := range NumBands {
		d := b.DSCP()
		if d > 63 {
			t.Errorf("%v: DSCP %d is not 6 bits", b, d)
		}
		if o, dup := seen[d]; dup {
			t.Errorf("%v and %v share DSCP %d", o, b, d)
		}
		seen[d] = b
		if got := BandOfDSCP(d); got != b {
			t.Errorf("BandOfDSCP(%d) = %v, want %v", d, got, b)
		}
	}
	for _, d := range []uint8{46, 63, 34} { // EF, the top codepoint, AF41: not in the table
		if BandOfDSCP(d) != BandBestEffort {
			t.Errorf("BandOfDSCP(%d) = %v, want best effort", d, BandOfDSCP(d))
		}
	}
	if Band(-1).DSCP() != 0 || NumBands.DSCP() != 0 {
		t.Error("a band outside the table is not best effort")
	}
}

// A higher priority (a smaller number) never lands in a lower band, the
// job priorities each get a band of their own, and the rest share the last.
func TestPriorityTableMonotone(t *testing.T) {
	prev := Band(-1)
	for p := 0; p <= 255; p++ {
		b := PriorityBand(uint8(p))
		if b < prev {
			t.Fatalf("priority %d: band %v above priority %d's %v", p, b, p-1, prev)
		}
		if p < NumJobBands && b != Band(p) {
			t.Errorf("priority %d: band %v, want its own job band", p, b)
		}
		if p >= NumJobBands && b != BandJob3 {
			t.Errorf("priority %d: band %v, want the lowest job band", p, b)
		}
		if b >= BandBestEffort {
			t.Errorf("priority %d falls out of the job bands, into %v", p, b)
		}
		prev = b
	}
	if !(BandJob3 < BandBestEffort && BandBestEffort < BandReserved && BandReserved < BandBackground) {
		t.Error("bands below the job bands are out of order")
	}
}

func TestDSCPPriorityRoundTrip(t *testing.T) {
	for p := range uint8(NumJobBands) {
		got, ok := DSCPPriority(PriorityDSCP(p))
		if !ok || got != p {
			t.Errorf("DSCPPriority(PriorityDSCP(%d)) = %d, %v", p, got, ok)
		}
	}
	if got, ok := DSCPPriority(PriorityDSCP(200)); !ok || got != uint8(NumJobBands-1) {
		t.Errorf("priority 200 reads back as %d, %v; want the lowest job priority", got, ok)
	}
	for _, b := range []Band{BandBestEffort, BandReserved, BandBackground} {
		if p, ok := DSCPPriority(b.DSCP()); ok {
			t.Errorf("%v's DSCP reads as engine priority %d", b, p)
		}
	}
}

// The class defaults that are in the table land where the comments say.
func TestClassDefaultBands(t *testing.T) {
	want := map[Class]Band{Duplicate: BandReserved, Background: BandBackground, Input: BandBestEffort, Control: BandBestEffort}
	for c, b := range want {
		if got := BandOfDSCP(c.DSCP()); got != b {
			t.Errorf("%v's default DSCP %d selects %v, want %v", c, c.DSCP(), got, b)
		}
	}
}
