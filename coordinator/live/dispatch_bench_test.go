package live

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/wire"
)

// BenchmarkDispatchNoop9Workers measures the coordinator's dispatch path
// through NATS: an encoded Launch published to one of 9 real worker
// agents (round robin, up to 64 outstanding), the worker's decode and its
// AttemptEnded answer, and the coordinator's decode of it. The engine is
// not in the loop; its decision cost is BenchmarkDecision600Hosts.
func BenchmarkDispatchNoop9Workers(b *testing.B) {
	topo := memTopology(b, 3, 3)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		b.Fatal(err)
	}
	subj, _ := wire.NewSubjects("dispatch")
	srv, err := StartServer("127.0.0.1:0", subj, creds)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	nc, err := nats.Connect(srv.URL(), nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	inbox := make(chan *nats.Msg, 1<<16)
	for _, s := range []string{subj.Register("*"), subj.Events("*")} {
		sub, err := nc.ChanSubscribe(s, inbox)
		if err != nil {
			b.Fatal(err)
		}
		_ = sub.SetPendingLimits(-1, -1)
	}
	startWorkers(b, topo, srv.URL(), creds, "dispatch")
	var hosts []string
	for len(hosts) < len(topo.Hosts) {
		select {
		case m := <-inbox:
			var reg wire.Register
			if wire.Decode(m.Data, wire.TypeRegister, &reg) == nil {
				hosts = append(hosts, reg.Host)
				_ = m.Respond(wire.MustEncode(wire.TypeRegistered, &wire.Registered{OK: true}))
			}
		case <-time.After(20 * time.Second):
			b.Fatalf("only %d of 9 workers registered", len(hosts))
		}
	}
	const window = 64
	b.ResetTimer()
	start := time.Now()
	sent, done := 0, 0
	for done < b.N {
		for sent < b.N && sent-done < window {
			l := wire.Launch{Attempt: int64(sent), Job: "noop", Stage: "s", Index: sent, Kind: wire.KindNoop}
			if err := nc.Publish(subj.Worker(hosts[sent%len(hosts)]), wire.MustEncode(wire.TypeLaunch, &l)); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		select {
		case m := <-inbox:
			var ev wire.AttemptEnded
			if err := wire.Decode(m.Data, wire.TypeAttemptEnded, &ev); err != nil {
				continue // a heartbeat or a late registration
			}
			if !ev.OK {
				b.Fatal(fmt.Errorf("noop attempt %d failed: %s", ev.Attempt, ev.Reason))
			}
			done++
		case <-time.After(10 * time.Second):
			b.Fatalf("%d of %d round trips done; the rest timed out", done, b.N)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "roundtrips/s")
}
