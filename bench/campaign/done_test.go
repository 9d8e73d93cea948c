package campaign

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// A summary goes through done.json whole, non-finite numbers included; a
// field added since done.json first held summaries is left out at its
// zero value, so that a done.json written before it (which lacks it)
// reads back, and writes back to the same bytes (its digest).
func TestSummaryInDoneJSON(t *testing.T) {
	s := metrics.Summary{Policy: "fair", Seed: 3, Jobs: 4, LinkSkew: math.Inf(1), ShuffleSkewMean: math.NaN(), HostsLost: 2}
	b, err := json.Marshal(summaryJSON{s})
	if err != nil {
		t.Fatal(err)
	}
	var back summaryJSON
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.HostsLost != 2 || back.Jobs != 4 || !math.IsInf(back.LinkSkew, 1) || !math.IsNaN(back.ShuffleSkewMean) {
		t.Fatalf("round trip: %+v", back.Summary)
	}
	s.HostsLost = 0
	if b, err = json.Marshal(summaryJSON{s}); err != nil || strings.Contains(string(b), "HostsLost") {
		t.Fatalf("a summary that lost no host writes HostsLost (%v): %s", err, b)
	}
	if err := json.Unmarshal(b, &back); err != nil || back.HostsLost != 0 {
		t.Fatalf("a summary without HostsLost: %v %+v", err, back.Summary)
	}
	// a field that is not an added one is still required
	old := strings.Replace(string(b), `"Jobs":4,`, "", 1)
	if err := json.Unmarshal([]byte(old), &back); err == nil || !strings.Contains(err.Error(), "no field Jobs") {
		t.Fatalf("a summary without Jobs: %v", err)
	}
}
