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
