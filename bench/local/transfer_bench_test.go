package local

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
)

// skipLoudly skips b and says why on stderr: go test prints a skipped
// benchmark's reason only with -v, and a comparison that silently prints
// nothing reads as if it ran.
func skipLoudly(b *testing.B, why string) {
	b.Helper()
	fmt.Fprintf(os.Stderr, "%s: skipped: %s\n", b.Name(), why)
	b.Skip(why)
}

// BenchmarkTransferVsIperf3 moves a 1 GiB object from one worker's data
// server to another's client over an unshaped veth pair (two hosts of one
// emulated rack), then runs iperf3 over the same pair for the same time,
// one TCP stream each, and reports the data plane's goodput against
// iperf3's. Needs root and iperf3 (Debian package iperf3).
func BenchmarkTransferVsIperf3(b *testing.B) {
	if _, err := exec.LookPath("iperf3"); err != nil {
		skipLoudly(b, "iperf3 is not installed: install the Debian package iperf3 (apt-get install iperf3) to compare against it")
	}
	if benchBin == "" {
		skipLoudly(b, "needs root for the emulated rack (network namespaces and tc)")
	}
	net1, err := shaping.Up(shaping.ClusterSpec{Prefix: "bx" + strconv.Itoa(int(time.Now().UnixNano()%1000)), Mode: shaping.Switched,
		Racks: []shaping.RackSpec{{Hosts: 2}}})
	if err != nil {
		b.Fatal(err)
	}
	defer net1.Down()
	src, dst := net1.Hosts[0], net1.Hosts[1]
	const size = 1 << 30
	st, err := store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(b.TempDir(), "mem")}})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Wipe()
	if _, err := st.Generate(cluster.Mem, "blob", size, 1); err != nil {
		b.Fatal(err)
	}
	var ln net.Listener
	addr := net.JoinHostPort(src.DataIP.String(), "7100")
	if err := shaping.Do(src.Netns, func() (err error) { ln, err = net.Listen("tcp", addr); return err }); err != nil {
		b.Fatal(err)
	}
	srv := dataplane.NewServer(st, b.Logf)
	go srv.Serve(ln)
	defer srv.Close()
	client := dataplane.NewClient(5 * time.Second)
	defer client.Close()
	g := dataplane.NewGroup(dataplane.Shuffle)

	b.ResetTimer()
	var moved int64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		err := shaping.Do(dst.Netns, func() error {
			n, err := client.Fetch(context.Background(), g, addr, cluster.Mem, "blob", 0, size, io.Discard)
			moved += n
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	ours := float64(moved) / elapsed.Seconds()

	secs := max(2, int(elapsed.Seconds()+0.5))
	server := exec.Command("iperf3", "-s", "-1", "-B", src.DataIP.String(), "-p", "7201")
	if err := shaping.StartIn(src.Netns, server); err != nil {
		b.Fatal(err)
	}
	defer server.Process.Kill()
	time.Sleep(300 * time.Millisecond)
	var out []byte
	err = shaping.Do(dst.Netns, func() (err error) {
		cl := exec.Command("iperf3", "-c", src.DataIP.String(), "-p", "7201", "-t", strconv.Itoa(secs), "-J")
		out, err = cl.Output()
		return err
	})
	if err != nil {
		b.Fatalf("iperf3: %v\n%s", err, out)
	}
	_ = server.Wait()
	var rep struct {
		End struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		b.Fatalf("iperf3 output: %v", err)
	}
	iperf := rep.End.SumReceived.BitsPerSecond / 8
	b.ReportMetric(ours/1e6, "MB/s")
	b.ReportMetric(iperf/1e6, "iperf3-MB/s")
	b.ReportMetric(ours/iperf, "ratio")
	fmt.Printf("data plane %.0f MB/s, iperf3 %.0f MB/s over %d s: ratio %.3f\n", ours/1e6, iperf/1e6, secs, ours/iperf)
}

// Without iperf3 on the PATH, the comparison says that it was skipped and
// which package to install, without -v.
func TestTransferVsIperf3SaysWhenIperf3IsMissing(t *testing.T) {
	if os.Getenv("RACKLAB_IPERF3_CHILD") != "" {
		t.Skip("inside the child run")
	}
	path := t.TempDir() // an empty PATH: no iperf3 (TestMain builds nothing in the child)
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkTransferVsIperf3$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(), "PATH="+path, "RACKLAB_IPERF3_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmark run failed: %v\n%s", err, out)
	}
	if want := "BenchmarkTransferVsIperf3: skipped: iperf3 is not installed: install the Debian package iperf3"; !strings.Contains(string(out), want) {
		t.Fatalf("the benchmark run does not say %q:\n%s", want, out)
	}
}
