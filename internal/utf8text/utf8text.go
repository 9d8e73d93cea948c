package utf8text

import (
	"fmt"
	"unicode/utf8"
)

// Invalid is the first byte of a text that is not UTF-8: its line and
// column (both from 1, the column in characters) and its value.
type Invalid struct {
	Line, Column int
	Byte         byte
}

func (e *Invalid) Error() string {
	return fmt.Sprintf("column %d: byte 0x%02x is not UTF-8 text", e.Column, e.Byte)
}

// Check returns where text first fails to be UTF-8, nil if it is.
func Check(text []byte) *Invalid {
	if utf8.Valid(text) {
		return nil
	}
	line, col := 1, 1
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		if r == utf8.RuneError && size <= 1 {
			return &Invalid{Line: line, Column: col, Byte: text[0]}
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		text = text[size:]
	}
	return nil
}

// CheckLine is Check of one line, whose number the caller knows.
func CheckLine(line string) *Invalid {
	if utf8.ValidString(line) {
		return nil
	}
	return Check([]byte(line))
}
