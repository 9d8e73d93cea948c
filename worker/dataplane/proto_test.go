package dataplane

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

func TestRequestRoundTrip(t *testing.T) {
	for _, q := range []request{
		{Op: opGet, Class: Shuffle, DSCP: 18, Tier: cluster.SSD, Key: "ds/logs/000017", Off: 5, Len: -1},
		{Op: opPut, Class: Output, DSCP: 34, Tier: cluster.HDD, Key: "out/a1234", Len: 1 << 40},
		{Op: opRemark, Class: Control, DSCP: 63},
		{Op: opData, Len: MaxDataFrame},
		{Op: opGet, Key: strings.Repeat("k", MaxKeyLen), Len: 0},
		{Op: opPipe, Class: Output, DSCP: 10, Tier: cluster.Mem, Key: "out/p1", Len: 9, Hops: []Hop{
			{Addr: "10.0.0.2:7000", Tier: cluster.SSD, Key: "out/p1"}, {Addr: strings.Repeat("a", MaxAddrLen), Tier: cluster.HDD, Key: strings.Repeat("k", MaxKeyLen)}}},
	} {
		b := appendRequest(nil, &q)
		got, err := parseRequest(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v: %+v, %v", q, got, err)
		}
	}
	r := response{Status: StatusNoSpace, Len: 7, Msg: strings.Repeat("m", maxMsgLen+10)}
	got, err := parseResponse(bytes.NewReader(appendResponse(nil, &r)))
	if err != nil || got.Status != r.Status || got.Len != 7 || len(got.Msg) != maxMsgLen {
		t.Errorf("response round trip: %+v, %v", got, err)
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, q := range []request{
		{Op: opGet, Class: Shuffle, DSCP: 18, Tier: cluster.SSD, Key: "ds/logs/000017", Off: 5, Len: -1},
		{Op: opPut, Class: Output, DSCP: 34, Tier: cluster.HDD, Key: "out/a1234", Len: 100},
		{Op: opRemark, DSCP: 46},
		{Op: opData, Len: 4},
		{Op: opPipe, Class: Output, Tier: cluster.HDD, Key: "out/p", Len: 5, Hops: []Hop{{Addr: "h:1", Tier: cluster.HDD, Key: "out/p"}}},
	} {
		f.Add(appendRequest(nil, &q))
	}
	f.Add([]byte("RLDP"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte("RLDP\x01\x01\x00\x00\x00\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		q, err := parseRequest(r)
		if err != nil {
			var pe *protoError
			if !errors.As(err, &pe) && err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		used := data[:len(data)-r.Len()]
		if enc := appendRequest(nil, &q); !bytes.Equal(enc, used) {
			t.Fatalf("parsed %+v from %x, which encodes as %x", q, used, enc)
		}
		if q.Class >= NumClasses || q.DSCP > MaxDSCP || int(q.Tier) >= cluster.NumTierKinds || len(q.Key) > MaxKeyLen {
			t.Fatalf("accepted an invalid request %+v", q)
		}
		if checkHops(q.Hops) != nil || (q.Op == opPipe) != (len(q.Hops) > 0) {
			t.Fatalf("accepted an invalid hop list %+v", q)
		}
	})
}
