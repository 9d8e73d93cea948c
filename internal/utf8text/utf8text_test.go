package utf8text

import "testing"

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		text      string
		line, col int
		b         byte
		valid     bool
	}{
		{text: "plain\nlines\n", valid: true},
		{text: "", valid: true},
		{text: "ab\xffc", line: 1, col: 3, b: 0xff},
		{text: "one\ntwo é\xc3", line: 2, col: 6, b: 0xc3}, // a cut-off character
		{text: "ééé\xe9", line: 1, col: 4, b: 0xe9},        // columns count characters, not bytes
	} {
		got := Check([]byte(tc.text))
		if tc.valid {
			if got != nil {
				t.Errorf("%q: %v, want valid", tc.text, got)
			}
			continue
		}
		if got == nil || got.Line != tc.line || got.Column != tc.col || got.Byte != tc.b {
			t.Errorf("%q: %+v, want line %d column %d byte %#x", tc.text, got, tc.line, tc.col, tc.b)
		}
	}
	if e := CheckLine("x\x80"); e == nil || e.Error() != "column 2: byte 0x80 is not UTF-8 text" {
		t.Errorf("CheckLine: %v", e)
	}
}
