package wire

import "testing"

func TestPayloadIsNeverNegative(t *testing.T) {
	for _, tc := range []struct {
		c    Counter
		want float64
	}{
		{Counter{Bytes: 1066, Packets: 1}, 1000},
		{Counter{Bytes: 0, Packets: 0}, 0},
		// four 50-byte frames (shorter than the headers): no TCP payload
		{Counter{Bytes: 4 * 50, Packets: 4}, 0},
	} {
		if got := tc.c.Payload(); got != tc.want {
			t.Errorf("%+v: payload %v, want %v", tc.c, got, tc.want)
		}
	}
}
