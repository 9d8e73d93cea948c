package units

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{
		"128MiB": 128 << 20, "1GiB": 1 << 30, "256MiB": 256 << 20, "4096": 4096, "1.5GB": 1.5e9,
		"1 kb": 1000, "2K": 2000, "1.5KiB": 1536, "0.5B": 1, "10b": 10, "1TiB": 1 << 40, "3 ti": 3 << 40,
		"7EiB": 7 << 60, " 12 MB ": 12e6, ".5M": 5e5, "0": 0,
	} {
		got, err := ParseBytes(s)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "MiB", "1.2.3GB", "-1GB", "1 GiBs", "8EiB", "1e9", "12 parsecs", "1,5GB", "9999999999999999999999"} {
		if got, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", s, got)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 134217728: "128MiB", 1 << 30: "1GiB", 1000: "1000B", 1536: "1536B", 3 << 10: "3KiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseBytes(FormatBytes(n)); err != nil || back != n {
			t.Errorf("ParseBytes(FormatBytes(%d)) = %d, %v", n, back, err)
		}
	}
	for n, want := range map[float64]string{26886497357605: "26.9 TB", 999: "999 B", 1000: "1 kB", 1082621755403831: "1.08 PB"} {
		if got := Human(n); got != want {
			t.Errorf("Human(%v) = %q, want %q", n, got, want)
		}
	}
	var b Bytes
	if err := b.Set("64MiB"); err != nil || b != 64<<20 || b.String() != "64MiB" || b.Type() != "size" {
		t.Errorf("Bytes flag: %v %v", b, err)
	}
	if err := b.Set("lots"); err == nil || !strings.Contains(err.Error(), "lots") {
		t.Errorf("Bytes.Set(lots): %v", err)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"128MiB", "1.5GB", "0", ".5k", "99999999999999EiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
	})
}
