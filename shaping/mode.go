package shaping

import "fmt"

// Mode of the emulated cluster.
type Mode int

const (
	// Switched: rack bridges joined to a core bridge by shaped veth pairs.
	Switched Mode = iota
	// Flat: one bridge; shaping is done by a HostShaper on every host.
	Flat
)

// String returns "switched" or "flat".
func (m Mode) String() string {
	switch m {
	case Switched:
		return "switched"
	case Flat:
		return "flat"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "switched" or "flat".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "switched":
		return Switched, nil
	case "flat":
		return Flat, nil
	}
	return 0, fmt.Errorf("shaping: unknown mode %q (want switched or flat)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) {
	if m != Switched && m != Flat {
		return nil, fmt.Errorf("shaping: invalid mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
