package reproduce

import (
	"strings"
	"testing"
)

// A row's found: one text for every mode, or a text per mode; errors name
// the line.
func TestParseFound(t *testing.T) {
	tb, err := parseText(t, campaignText+`      found: >
        the cluster is idle
        between jobs
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower, found: {sim: only in simulation}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Rows[0].FoundIn("sim"); got != "the cluster is idle between jobs" {
		t.Errorf("row 1 found %q", got)
	}
	if got := tb.Rows[1].FoundIn("sim"); got != "only in simulation" {
		t.Errorf("row 2 found in sim %q", got)
	}
	if got := tb.Rows[1].FoundIn("local"); got != "" {
		t.Errorf("row 2 found in local %q, want none", got)
	}
	for _, c := range []struct{ found, want string }{
		{`""`, `c.yaml:21: headlines row 1: found says what was found when the row did not reproduce: give the text`},
		{`{}`, `c.yaml:21: headlines row 1: found is an empty mapping`},
		{`{local: x}`, `c.yaml:21: headlines row 1: found says what was found in mode local, and the row is not checked in that mode`},
		{`{emulated: x}`, `c.yaml:21: headlines row 1 found: unknown field "emulated"`},
		{`{sim: ""}`, `c.yaml:21: headlines row 1 found: found's sim text is empty`},
		{`[x]`, `c.yaml:21: headlines row 1 found: want a mapping`},
	} {
		_, err := parseText(t, campaignText+"      found: "+c.found+"\n")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("found: %s: error %v, want it to start with %q", c.found, err, c.want)
		}
	}
}

// The found text is shown beside a row that does not reproduce, in the
// text, the report and the page; a row that reproduces shows instead
// that its recorded reason is to be looked at again.
func TestFoundShownWhileNotReproduced(t *testing.T) {
	text := strings.Replace(threeRows, `paper: "-10%"}`, `paper: "-10%", found: "fair's gain is its own"}`, 1)
	text = strings.Replace(text, "      paper: +12pp\n", "      paper: +12pp\n      found: kept from before\n", 1)
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeRuns(t, dir, run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), run("fair", 2, 0.8, 11))
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	// row 1 reproduces (+15 pp against +12), row 2 does not (-50% against -10%), row 3 has none
	want := []string{"reproduces now: the reason recorded for it not reproducing (found:, line 13 of the campaign) is to be looked at again", "fair's gain is its own", ""}
	for i, w := range want {
		if got := ch.Results[i].FoundText("sim"); got != w {
			t.Errorf("row %d found %q, want %q", i+1, got, w)
		}
	}
	var b strings.Builder
	if err := ch.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "   found:    fair's gain is its own\n") {
		t.Errorf("the text lacks row 2's found:\n%s", b.String())
	}
	h := ch.ForReport()
	if last := h.Columns[len(h.Columns)-1]; last != "found (when not reproduced)" || h.Rows[1][len(h.Rows[1])-1] != "fair's gain is its own" || h.Rows[2][len(h.Rows[2])-1] != "" {
		t.Errorf("report table: columns %q, rows %q", h.Columns, h.Rows)
	}
	for _, row := range h.Rows {
		if len(row) != len(h.Columns) {
			t.Errorf("row %q has %d cells for %d columns", row, len(row), len(h.Columns))
		}
	}
}

// Per mode, the page names each mode's text when they differ, and gives
// one when they agree.
func TestFoundCell(t *testing.T) {
	for _, c := range []struct {
		found []modeText
		want  string
	}{
		{nil, ""},
		{[]modeText{{"sim", "a"}}, "a"},
		{[]modeText{{"sim", "a"}, {"local", "a"}}, "a"},
		{[]modeText{{"sim", "a"}, {"local", "b"}}, modeName("sim") + ": a " + modeName("local") + ": b"},
	} {
		if got := foundCell(c.found); got != c.want {
			t.Errorf("%v: %q, want %q", c.found, got, c.want)
		}
	}
}
