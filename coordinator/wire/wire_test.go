package wire

import (
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	in := Launch{Attempt: 7, Job: "j", Stage: "map", Kind: KindMap, Class: "input", DSCP: 10,
		Input: &Range{Object: Object{Host: "r0h0", Addr: "10.0.0.1:1", Tier: "mem", Key: "ds/x/000001"}, Length: 64}}
	var out Launch
	if err := Decode(MustEncode(TypeLaunch, &in), TypeLaunch, &out); err != nil {
		t.Fatal(err)
	}
	if out.Attempt != 7 || out.Input == nil || out.Input.Key != "ds/x/000001" {
		t.Fatalf("decoded %+v", out)
	}
}

func TestBadMessagesAreErrors(t *testing.T) {
	cases := map[string]struct {
		data string
		want string
	}{
		"not json":        {`{"type":`, "malformed envelope"},
		"unknown type":    {`{"type":"explode","v":3,"body":{}}`, "unknown message type"},
		"old version":     {`{"type":"kill","v":0,"body":{}}`, "protocol version"},
		"version 1":       {`{"type":"kill","v":1,"body":{}}`, "protocol version"},
		"version 2":       {`{"type":"kill","v":2,"body":{}}`, "protocol version"},
		"wrong type":      {`{"type":"kill","v":3,"body":{}}`, "expected"},
		"unknown field":   {`{"type":"launch","v":3,"body":{"attempt":1,"kind":"map","bogus":1}}`, "unknown field"},
		"bad kind":        {`{"type":"launch","v":3,"body":{"attempt":1,"kind":"explode"}}`, "unknown kind"},
		"negative range":  {`{"type":"launch","v":3,"body":{"attempt":1,"kind":"reduce","sources":[{"task":"m0","offset":-1}]}}`, "bad source range"},
		"body not object": {`{"type":"launch","v":3,"body":[1,2]}`, "malformed launch body"},
	}
	for name, c := range cases {
		var l Launch
		err := Decode([]byte(c.data), TypeLaunch, &l)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, c.want)
		}
	}
}

// The messages of per-attempt progress and replica moves survive a round
// trip with every field, under their snake_case names.
func TestProgressAndMoveRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 23, 11, 0, 0, 123456789, time.UTC)
	hb := Heartbeat{Host: "r0h0", Running: []int64{3, 4},
		Progress: []AttemptProgress{{Attempt: 3, Received: 1 << 20}, {Attempt: 4, Received: 5, InputDone: true}}}
	data := MustEncode(TypeHeartbeat, &hb)
	for _, field := range []string{`"progress":[`, `"received":1048576`, `"input_done":true`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("heartbeat %s lacks %s", data, field)
		}
	}
	var hbOut Heartbeat
	if err := Decode(data, TypeHeartbeat, &hbOut); err != nil {
		t.Fatal(err)
	}
	if len(hbOut.Progress) != 2 || hbOut.Progress[0] != hb.Progress[0] || hbOut.Progress[1] != hb.Progress[1] {
		t.Fatalf("progress decoded as %+v", hbOut.Progress)
	}

	in := InputDone{Host: "r0h1", Attempt: 9, Bytes: 64 << 20, At: at, Seconds: 1.5}
	var inOut InputDone
	if err := Decode(MustEncode(TypeInputDone, &in), TypeInputDone, &inOut); err != nil {
		t.Fatal(err)
	}
	if inOut != in {
		t.Fatalf("input-done decoded as %+v, sent %+v", inOut, in)
	}

	mv := MoveReplica{Request: 12, Key: "ds/logs/000001", From: "mem", To: "hdd"}
	var mvOut MoveReplica
	if err := Decode(MustEncode(TypeMoveReplica, &mv), TypeMoveReplica, &mvOut); err != nil {
		t.Fatal(err)
	}
	if mvOut != mv {
		t.Fatalf("move-replica decoded as %+v, sent %+v", mvOut, mv)
	}

	rm := ReplicaMoved{Host: "r0h1", Request: 12, Key: mv.Key, From: "mem", To: "hdd", OK: false, Error: "tier hdd is full", Bytes: 10, Seconds: 0.25}
	var rmOut ReplicaMoved
	if err := Decode(MustEncode(TypeReplicaMoved, &rm), TypeReplicaMoved, &rmOut); err != nil {
		t.Fatal(err)
	}
	if rmOut != rm {
		t.Fatalf("replica-moved decoded as %+v, sent %+v", rmOut, rm)
	}
}

func TestBadProgressAndMoveMessagesAreErrors(t *testing.T) {
	cases := map[string]struct {
		typ  string
		body any
		data string
		want string
	}{
		"negative progress":    {TypeHeartbeat, &Heartbeat{}, `{"type":"heartbeat","v":3,"body":{"host":"h","progress":[{"attempt":1,"received":-1}]}}`, "negative bytes received"},
		"progress extra field": {TypeHeartbeat, &Heartbeat{}, `{"type":"heartbeat","v":3,"body":{"host":"h","progress":[{"attempt":1,"total":5}]}}`, "unknown field"},
		"input-done no host":   {TypeInputDone, &InputDone{}, `{"type":"input-done","v":3,"body":{"attempt":1,"bytes":1,"at":"2026-11-23T11:00:00Z"}}`, "host name"},
		"input-done no time":   {TypeInputDone, &InputDone{}, `{"type":"input-done","v":3,"body":{"host":"h","attempt":1,"bytes":1}}`, "no time"},
		"input-done negative":  {TypeInputDone, &InputDone{}, `{"type":"input-done","v":3,"body":{"host":"h","attempt":1,"bytes":-1,"at":"2026-11-23T11:00:00Z"}}`, "negative bytes"},
		"input-done bad time":  {TypeInputDone, &InputDone{}, `{"type":"input-done","v":3,"body":{"host":"h","attempt":1,"at":"yesterday"}}`, "malformed input-done body"},
		"input-done extra":     {TypeInputDone, &InputDone{}, `{"type":"input-done","v":3,"body":{"host":"h","attempt":1,"at":"2026-11-23T11:00:00Z","rate":3}}`, "unknown field"},
		"move no key":          {TypeMoveReplica, &MoveReplica{}, `{"type":"move-replica","v":3,"body":{"request":1,"from":"mem","to":"hdd"}}`, "empty key"},
		"move no tier":         {TypeMoveReplica, &MoveReplica{}, `{"type":"move-replica","v":3,"body":{"request":1,"key":"k","from":"mem"}}`, "tier is missing"},
		"move in place":        {TypeMoveReplica, &MoveReplica{}, `{"type":"move-replica","v":3,"body":{"request":1,"key":"k","from":"hdd","to":"hdd"}}`, "both"},
		"move extra field":     {TypeMoveReplica, &MoveReplica{}, `{"type":"move-replica","v":3,"body":{"request":1,"key":"k","from":"mem","to":"hdd","size":4}}`, "unknown field"},
		"moved silent failure": {TypeReplicaMoved, &ReplicaMoved{}, `{"type":"replica-moved","v":3,"body":{"host":"h","request":1,"key":"k","ok":false}}`, "must say why"},
		"moved negative":       {TypeReplicaMoved, &ReplicaMoved{}, `{"type":"replica-moved","v":3,"body":{"host":"h","request":1,"ok":true,"bytes":-3}}`, "negative bytes"},
		"moved as input-done":  {TypeInputDone, &InputDone{}, `{"type":"replica-moved","v":3,"body":{"host":"h","ok":true}}`, "expected"},
	}
	for name, c := range cases {
		err := Decode([]byte(c.data), c.typ, c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, c.want)
		}
	}
}

func TestSubjectsRefuseWildcards(t *testing.T) {
	if _, err := NewSubjects("a.b"); err == nil {
		t.Fatal("a dotted cluster name was accepted")
	}
	if err := CheckHostName("r0h0"); err != nil {
		t.Fatal(err)
	}
	if err := CheckHostName("*"); err == nil {
		t.Fatal("a wildcard host name was accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(MustEncode(TypeLaunch, &Launch{Attempt: 1, Kind: KindNoop})))
	f.Add([]byte(`{"type":"heartbeat","v":3,"body":{"host":"x"}}`))
	f.Add([]byte(`{"type":"heartbeat","v":3,"body":{"host":"x","progress":[{"attempt":1,"received":10,"input_done":true}]}}`))
	f.Add(MustEncode(TypeInputDone, &InputDone{Host: "x", Attempt: 1, Bytes: 10, At: time.Unix(1, 0).UTC(), Seconds: 0.5}))
	f.Add(MustEncode(TypeMoveReplica, &MoveReplica{Request: 1, Key: "ds/a/1", From: "mem", To: "hdd"}))
	f.Add(MustEncode(TypeReplicaMoved, &ReplicaMoved{Host: "x", Request: 1, Key: "ds/a/1", From: "mem", To: "hdd", OK: true, Bytes: 4}))
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, err := Peek(data)
		if err != nil {
			return
		}
		var body any
		switch typ {
		case TypeLaunch:
			body = &Launch{}
		case TypeHeartbeat:
			body = &Heartbeat{}
		case TypeAttemptEnded:
			body = &AttemptEnded{}
		case TypeSources:
			body = &Sources{}
		case TypeInputDone:
			body = &InputDone{}
		case TypeMoveReplica:
			body = &MoveReplica{}
		case TypeReplicaMoved:
			body = &ReplicaMoved{}
		default:
			return
		}
		_ = Decode(data, typ, body)
	})
}

// A Sources with a negative size is refused when decoded, as a Launch's
// is: the worker would generate an output of that size.
func TestSourcesRefuseNegativeSizes(t *testing.T) {
	for _, m := range []*Sources{{Attempt: 3, Complete: true, OutputBytes: -1}, {Attempt: 3, Complete: true, InputBytes: -1}} {
		var got Sources
		if err := Decode(MustEncode(TypeSources, m), TypeSources, &got); err == nil || !strings.Contains(err.Error(), "attempt 3: negative size") {
			t.Errorf("%+v: err %v, want a negative size refused", m, err)
		}
	}
}

// An attempt's byte counts are refused when negative or of a class the
// engine does not know: they add up into the run's totals. Before, a
// report of -2^40 bytes made the workers' cross-rack total negative, and
// a misspelt class was dropped without a word.
func TestAttemptEndedRefusesBadByteCounts(t *testing.T) {
	for _, c := range []struct {
		bytes map[string][NumLevels]int64
		want  string
	}{
		{map[string][NumLevels]int64{"input": {0, 0, -1 << 40}}, "attempt 3: bytes of class input: negative count"},
		{map[string][NumLevels]int64{"inptu": {0, 0, 1}}, `attempt 3: bytes: unknown traffic class "inptu"`},
	} {
		var got AttemptEnded
		err := Decode(MustEncode(TypeAttemptEnded, &AttemptEnded{Attempt: 3, Host: "r0h0", OK: true, Bytes: c.bytes}), TypeAttemptEnded, &got)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.bytes, err, c.want)
		}
	}
	var got AttemptEnded
	if err := Decode(MustEncode(TypeAttemptEnded, &AttemptEnded{Attempt: 3, Host: "r0h0", OK: true, Bytes: map[string][NumLevels]int64{"shuffle": {1, 2, 3}}}), TypeAttemptEnded, &got); err != nil {
		t.Errorf("a good report: %v", err)
	}
}

// A row of an attempt's byte counts must have one count per level: into
// the array, a row of four counts lost its last without a word, and a row
// of one was read as a single local count.
func TestAttemptEndedRefusesRowsOfAnotherLength(t *testing.T) {
	for row, want := range map[string]string{
		`[1,2,3,4]`: "attempt 3: bytes of class input: 4 counts, want 3",
		`[5]`:       "attempt 3: bytes of class input: 1 counts, want 3",
		`null`:      "attempt 3: bytes of class input: 0 counts, want 3",
	} {
		data := `{"type":"attempt-ended","v":3,"body":{"attempt":3,"host":"r0h0","ok":true,"bytes":{"input":` + row + `}}}`
		var got AttemptEnded
		if err := Decode([]byte(data), TypeAttemptEnded, &got); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("row %s: err %v (decoded %v), want %q", row, err, got.Bytes, want)
		}
	}
	// a good row, and the strictness the method must keep
	var got AttemptEnded
	good := `{"type":"attempt-ended","v":3,"body":{"attempt":3,"host":"r0h0","ok":true,"bytes":{"input":[1,2,3]}}}`
	if err := Decode([]byte(good), TypeAttemptEnded, &got); err != nil || got.Bytes["input"] != [NumLevels]int64{1, 2, 3} || got.Attempt != 3 || got.Host != "r0h0" {
		t.Errorf("a good report: %v, decoded %+v", err, got)
	}
	bogus := `{"type":"attempt-ended","v":3,"body":{"attempt":3,"host":"r0h0","ok":true,"bogus":1}}`
	if err := Decode([]byte(bogus), TypeAttemptEnded, &got); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("an unknown field: %v", err)
	}
}

// An envelope without a body, with a null one, or with a field besides
// type, v and body is refused: a null body decoded as a message of
// zeros (a Kill of attempt 0), and a misspelt "body" was reported as EOF.
func TestEnvelopeWithoutBodyOrWithUnknownFieldsIsRefused(t *testing.T) {
	for data, want := range map[string]string{
		`{"type":"kill","v":3,"body":null}`:                   "kill message without a body",
		`{"type":"kill","v":3,"body" :  null }`:               "kill message without a body",
		`{"type":"kill","v":3}`:                               "kill message without a body",
		`{"type":"kill","v":3,"bdy":{"attempt":2}}`:           `malformed kill envelope: json: unknown field "bdy"`,
		`{"type":"kill","v":3,"body":{"attempt":2},"id":9}`:   `malformed kill envelope: json: unknown field "id"`,
		`{"type":"kill","v":4,"body":{"attempt":2},"id":9}`:   "protocol version 4, want 3",
		`{"type":"kill","v":3,"body":{"attempt":2},"v":2}`:    "protocol version 2, want 3",
		`{"type":"stop","v":3,"body":null,"type":"kill"}`:     "kill message without a body",
		`{"type":"kill","v":3,"body":{"attempt":2}} trailer`:  "malformed envelope",
		`{"type":"kill","v":3,"body":{"attempt":2,"x":true}}`: `unknown field "x"`,
	} {
		var k Kill
		if err := Decode([]byte(data), TypeKill, &k); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v (decoded %+v), want %q", data, err, k, want)
		}
		if _, err := Peek([]byte(data)); err == nil && !strings.Contains(want, "unknown field \"x\"") {
			t.Errorf("%s: Peek took it", data)
		}
	}
	var k Kill
	if err := Decode([]byte(`{"type":"kill","v":3,"body":{"attempt":2}}`), TypeKill, &k); err != nil || k.Attempt != 2 {
		t.Errorf("a good kill: %v, %+v", err, k)
	}
}

// Negative times and counts in the reports the coordinator records or
// adds up are refused, as InputDone's and ReplicaMoved's are.
func TestReportsRefuseNegativeTimesAndCounts(t *testing.T) {
	for name, c := range map[string]struct {
		typ  string
		body any
		want string
	}{
		"read seconds":  {TypeAttemptEnded, &AttemptEnded{Attempt: 3, Host: "r0h0", OK: true, ReadSeconds: -5}, "attempt 3: negative phase time (read -5"},
		"write seconds": {TypeAttemptEnded, &AttemptEnded{Attempt: 3, Host: "r0h0", Reason: "x", WriteSeconds: -1}, "attempt 3: negative phase time"},
		"bytes written": {TypeAttemptEnded, &AttemptEnded{Attempt: 3, Host: "r0h0", OK: true, BytesWritten: -1 << 40}, "bytes written -1099511627776"},
		"materialized":  {TypeMaterialized, &Materialized{Host: "r0h0", Bytes: -1 << 40}, "host r0h0: negative blocks 0, bytes -1099511627776"},
		"mat. blocks":   {TypeMaterialized, &Materialized{Host: "r0h0", Blocks: -1}, "negative blocks -1"},
		"mat. seconds":  {TypeMaterialized, &Materialized{Host: "r0h0", Seconds: -1}, "seconds -1"},
	} {
		data := MustEncode(c.typ, c.body)
		var err error
		switch c.typ {
		case TypeAttemptEnded:
			err = Decode(data, c.typ, &AttemptEnded{})
		case TypeMaterialized:
			err = Decode(data, c.typ, &Materialized{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	if err := Decode(MustEncode(TypeMaterialized, &Materialized{Host: "r0h0", Blocks: 2, Bytes: 10, Seconds: 1}), TypeMaterialized, &Materialized{}); err != nil {
		t.Errorf("a good materialized: %v", err)
	}
}

// A host name is also part of a file name (its credentials file): a
// slash or a control character in it is refused.
func TestHostNamesMustBeFileNames(t *testing.T) {
	for _, name := range []string{"a/b", `a\b`, "a\x00b", "a\x7fb"} {
		if err := CheckHostName(name); err == nil {
			t.Errorf("host name %q accepted", name)
		}
		var hb Heartbeat
		if err := Decode(MustEncode(TypeHeartbeat, &Heartbeat{Host: name}), TypeHeartbeat, &hb); err == nil {
			t.Errorf("a heartbeat of host %q accepted", name)
		}
	}
	if err := CheckHostName("r0-h0_x"); err != nil {
		t.Error(err)
	}
}
