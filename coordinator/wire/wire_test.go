package wire

import (
	"strings"
	"testing"
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
		"unknown type":    {`{"type":"explode","v":1,"body":{}}`, "unknown message type"},
		"old version":     {`{"type":"kill","v":0,"body":{}}`, "protocol version"},
		"wrong type":      {`{"type":"kill","v":1,"body":{}}`, "expected"},
		"unknown field":   {`{"type":"launch","v":1,"body":{"attempt":1,"kind":"map","bogus":1}}`, "unknown field"},
		"bad kind":        {`{"type":"launch","v":1,"body":{"attempt":1,"kind":"explode"}}`, "unknown kind"},
		"negative range":  {`{"type":"launch","v":1,"body":{"attempt":1,"kind":"reduce","sources":[{"task":"m0","offset":-1}]}}`, "bad source range"},
		"body not object": {`{"type":"launch","v":1,"body":[1,2]}`, "malformed launch body"},
	}
	for name, c := range cases {
		var l Launch
		err := Decode([]byte(c.data), TypeLaunch, &l)
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
	f.Add([]byte(`{"type":"heartbeat","v":1,"body":{"host":"x"}}`))
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
		default:
			return
		}
		_ = Decode(data, typ, body)
	})
}
