package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/racklab/racklab/internal/traffic"
)

// TierInfo describes one storage tier of a worker.
type TierInfo struct {
	Kind     string  `json:"kind"` // mem, ssd, hdd
	ReadBps  float64 `json:"read_bps"`
	WriteBps float64 `json:"write_bps"`
	Capacity int64   `json:"capacity"`
}

// HostFacts are what a worker tells about its machine.
type HostFacts struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Kernel   string `json:"kernel"`
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model"`
	MemBytes uint64 `json:"mem_bytes"`
}

// Register is a worker's request to join a run.
type Register struct {
	Host       string     `json:"host"` // the topology's host name
	Rack       string     `json:"rack"`
	Slots      int        `json:"slots"`
	Tiers      []TierInfo `json:"tiers"`
	DataAddr   string     `json:"data_addr"`   // host:port of its data server
	MemberAddr string     `json:"member_addr"` // host:port of its memberlist agent
	Pid        int        `json:"pid"`
	Facts      HostFacts  `json:"facts"`
}

// Validate checks the fields a coordinator relies on.
func (m *Register) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	if m.Slots <= 0 {
		return fmt.Errorf("host %s: slots %d must be positive", m.Host, m.Slots)
	}
	if m.DataAddr == "" {
		return fmt.Errorf("host %s: no data address", m.Host)
	}
	return nil
}

// Registered answers a Register.
type Registered struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Run   string `json:"run,omitempty"`
	// Members are memberlist addresses to join.
	Members []string `json:"members,omitempty"`
	// Racks names the topology's racks in order: a rack's index is the
	// class number a shaping worker gives it, the same on every host.
	Racks []string `json:"racks,omitempty"`
}

// Heartbeat is a worker's periodic report.
type Heartbeat struct {
	Host    string  `json:"host"`
	Seq     uint64  `json:"seq"`
	Running []int64 `json:"running"` // attempt ids
	// Data NIC counters, cumulative.
	TxBytes uint64 `json:"tx_bytes"`
	RxBytes uint64 `json:"rx_bytes"`
	// Payload bytes this worker received from other racks, cumulative, by
	// source rack, from its own accounting.
	CrossRxByRack map[string]uint64 `json:"cross_rx_by_rack,omitempty"`
	// Shaper class counters by destination rack (host shaping only).
	Shaped map[string]Counter `json:"shaped,omitempty"`
	// Members is the worker's memberlist view: host name to rack.
	Members map[string]string `json:"members,omitempty"`
	// Progress has one entry per running attempt (noop attempts aside).
	Progress []AttemptProgress `json:"progress,omitempty"`
}

// Validate checks the host name and the progress counts.
func (m *Heartbeat) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	for _, p := range m.Progress {
		if p.Received < 0 {
			return fmt.Errorf("host %s: attempt %d: negative bytes received %d", m.Host, p.Attempt, p.Received)
		}
	}
	return nil
}

// AttemptProgress is how far a running attempt has got with its input.
type AttemptProgress struct {
	Attempt int64 `json:"attempt"`
	// Received is the input bytes read (a map's block) or fetched (a
	// shuffling attempt's partitions) so far, counted as they arrive. The
	// partial bytes of a fetch that fails are taken out again, so it may
	// go down; it never counts a byte twice towards the input.
	Received int64 `json:"received"`
	// InputDone says the attempt has all its input: it is computing or
	// writing. It turns true with the attempt's InputDone event.
	InputDone bool `json:"input_done"`
}

// InputDone is a worker's report that an attempt has all its input: a map
// has read its whole block (at once for a map without input), a reduce or
// generic attempt has fetched every partition of a complete source list.
// It is sent once per attempt, before the attempt computes and writes, and
// before its AttemptEnded; a killed or failed read sends none.
type InputDone struct {
	Host    string `json:"host"`
	Attempt int64  `json:"attempt"`
	// Run is the launch's Run.
	Run string `json:"run,omitempty"`
	// Bytes is the attempt's input, as received (Progress.Received then).
	Bytes int64 `json:"bytes"`
	// At is the worker's wall clock at the moment; Seconds is the time
	// from the attempt's start on the worker, which needs no synchronized
	// clocks.
	At      time.Time `json:"at"`
	Seconds float64   `json:"seconds"`
}

// Validate checks the host name and the counts.
func (m *InputDone) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	if m.Bytes < 0 || m.Seconds < 0 {
		return fmt.Errorf("host %s: attempt %d: negative bytes %d or seconds %g", m.Host, m.Attempt, m.Bytes, m.Seconds)
	}
	if m.At.IsZero() {
		return fmt.Errorf("host %s: attempt %d: no time", m.Host, m.Attempt)
	}
	return nil
}

// Counter is a kernel byte and packet count.
type Counter struct {
	Bytes   uint64 `json:"bytes"`
	Packets uint64 `json:"packets"`
}

// HeaderBytes is what one packet of a bulk IPv4 TCP transfer adds to its
// payload in the kernel's counters: Ethernet, IPv4, and TCP with
// timestamps.
const HeaderBytes = 14 + 20 + 32

// Payload is the TCP payload the count stands for, headers taken out, so
// that it compares with the bytes the engine and the workers account.
// It is never negative: a link that carried only packets smaller than
// the headers (neighbour discovery on an idle rack link) carried no
// payload.
func (c Counter) Payload() float64 {
	return max(0, float64(c.Bytes)-float64(c.Packets)*HeaderBytes)
}

// The namespaces of the objects racklab stores in a tier directory:
// dataset blocks and attempt outputs. Nothing else there is racklab's.
const (
	DatasetObjects = "ds"
	OutputObjects  = "out"
)

// Object is a stored object on some worker.
type Object struct {
	Host string `json:"host"`
	Rack string `json:"rack"`
	Addr string `json:"addr"` // its data server
	Tier string `json:"tier"`
	Key  string `json:"key"`
}

// Range is part of an object to fetch.
type Range struct {
	Object
	// Task names the upstream task whose output this is; a newer range for
	// the same task replaces an older one (its output was recomputed).
	Task   string `json:"task"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// Launch starts an attempt on a worker.
type Launch struct {
	Attempt int64 `json:"attempt"`
	// Run names the run that launched it (the coordinator's run tag); the
	// worker's reports about the attempt carry it back, so that the
	// reports of an attempt an earlier coordinator launched (attempt IDs
	// start at 0 every run) are not taken for this run's.
	Run   string `json:"run,omitempty"`
	Job   string `json:"job"`
	Stage string `json:"stage"`
	Index int    `json:"index"`
	Kind  string `json:"kind"` // map, reduce, generic, or noop
	// Class is the traffic class of its reads; DSCP the mark its sockets
	// start with.
	Class string `json:"class"`
	DSCP  uint8  `json:"dscp"`
	// ComputeNsPerByte is the CPU time to burn per input byte read.
	ComputeNsPerByte float64 `json:"compute_ns_per_byte"`
	// Input is a map's block (nil for maps without input and for
	// shuffling stages).
	Input      *Range `json:"input,omitempty"`
	InputBytes int64  `json:"input_bytes"`
	// Sources are the partitions available so far (shuffling stages);
	// Complete says no more will come.
	Sources  []Range `json:"sources,omitempty"`
	Complete bool    `json:"complete"`
	// Output is written locally under OutputKey on OutputTier and sent to
	// the replicas after the first as it is written: each from the writer,
	// or, with Pipeline, as HDFS's write pipeline, the writer sending to
	// the second replica, which forwards to the third, and so on.
	OutputKey   string   `json:"output_key"`
	OutputTier  string   `json:"output_tier"`
	OutputBytes int64    `json:"output_bytes"`
	Replicas    []Object `json:"replicas,omitempty"`
	Pipeline    bool     `json:"pipeline,omitempty"`
}

// Kinds of attempts.
const (
	KindMap     = "map"
	KindReduce  = "reduce"
	KindGeneric = "generic"
	KindNoop    = "noop"
)

// Validate checks a launch for what would make it unrunnable.
func (m *Launch) Validate() error {
	switch m.Kind {
	case KindMap, KindReduce, KindGeneric, KindNoop:
	default:
		return fmt.Errorf("attempt %d: unknown kind %q", m.Attempt, m.Kind)
	}
	if m.ComputeNsPerByte < 0 || m.OutputBytes < 0 || m.InputBytes < 0 {
		return fmt.Errorf("attempt %d: negative size or time", m.Attempt)
	}
	if m.Input != nil && (m.Input.Offset < 0 || m.Input.Length < 0) {
		return fmt.Errorf("attempt %d: bad input range", m.Attempt)
	}
	for _, s := range m.Sources {
		if s.Offset < 0 || s.Length < 0 {
			return fmt.Errorf("attempt %d: bad source range of %s", m.Attempt, s.Task)
		}
	}
	return nil
}

// Sources tells a running shuffling attempt of newly available partitions.
type Sources struct {
	Attempt  int64   `json:"attempt"`
	Sources  []Range `json:"sources"`
	Complete bool    `json:"complete"`
	// InputBytes is the attempt's total input once Complete.
	InputBytes  int64 `json:"input_bytes"`
	OutputBytes int64 `json:"output_bytes"`
}

// Validate checks the ranges and sizes.
func (m *Sources) Validate() error {
	if m.InputBytes < 0 || m.OutputBytes < 0 {
		return fmt.Errorf("attempt %d: negative size (input %d, output %d bytes)", m.Attempt, m.InputBytes, m.OutputBytes)
	}
	for _, s := range m.Sources {
		if s.Offset < 0 || s.Length < 0 {
			return fmt.Errorf("attempt %d: bad source range of %s", m.Attempt, s.Task)
		}
	}
	return nil
}

// Kill ends a running attempt.
type Kill struct {
	Attempt int64  `json:"attempt"`
	Reason  string `json:"reason"`
}

// Priority re-marks a running attempt's sockets.
type Priority struct {
	Attempt int64 `json:"attempt"`
	DSCP    uint8 `json:"dscp"`
}

// Validate checks the DSCP fits its six bits.
func (m *Priority) Validate() error {
	if m.DSCP > 63 {
		return fmt.Errorf("attempt %d: DSCP %d out of range", m.Attempt, m.DSCP)
	}
	return nil
}

// Block is one object to generate on a worker's tier.
type Block struct {
	Key  string `json:"key"`
	Tier string `json:"tier"`
	Size int64  `json:"size"`
}

// Materialize asks a worker to write dataset blocks, generated from Seed.
type Materialize struct {
	Seed   uint64  `json:"seed"`
	Blocks []Block `json:"blocks"`
}

// Validate checks the sizes.
func (m *Materialize) Validate() error {
	for _, b := range m.Blocks {
		if b.Size < 0 || b.Key == "" {
			return fmt.Errorf("block %q: bad size %d or empty key", b.Key, b.Size)
		}
	}
	return nil
}

// Materialized reports a Materialize's progress (Done false, about once a
// second) and outcome (Done true).
type Materialized struct {
	Host    string  `json:"host"`
	Blocks  int     `json:"blocks"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	Done    bool    `json:"done"`
	Error   string  `json:"error,omitempty"`
	// Checksums of the blocks as read back from their files (Done only).
	Checksums map[string]uint64 `json:"checksums,omitempty"`
}

// Validate checks the host name and the counts: the coordinator adds
// up the bytes of every host into its progress report.
func (m *Materialized) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	if m.Blocks < 0 || m.Bytes < 0 || m.Seconds < 0 {
		return fmt.Errorf("host %s: negative blocks %d, bytes %d or seconds %g", m.Host, m.Blocks, m.Bytes, m.Seconds)
	}
	return nil
}

// MoveReplica asks a worker to move a stored object from one of its tiers
// to another: it copies the bytes through both tiers' paced reader and
// writer, checks the copy, and only then removes the source. The worker
// answers every MoveReplica it can decode with a ReplicaMoved of the same
// Request.
type MoveReplica struct {
	// Request is the coordinator's id for the move, echoed in the answer.
	Request uint64 `json:"request"`
	Key     string `json:"key"`
	From    string `json:"from"` // tier kind: mem, ssd, hdd
	To      string `json:"to"`
}

// Validate checks that the move names an object and two distinct tiers.
// Whether the worker has those tiers and the object is the worker's to
// say, in its ReplicaMoved.
func (m *MoveReplica) Validate() error {
	if m.Key == "" {
		return fmt.Errorf("move %d: empty key", m.Request)
	}
	if m.From == "" || m.To == "" {
		return fmt.Errorf("move %d of %q: a tier is missing (from %q, to %q)", m.Request, m.Key, m.From, m.To)
	}
	if m.From == m.To {
		return fmt.Errorf("move %d of %q: from and to are both %q", m.Request, m.Key, m.From)
	}
	return nil
}

// ReplicaMoved answers a MoveReplica. OK means the object is now on To and
// no longer on From; a failed move leaves it where it was (on From, if it
// was there) and says why.
type ReplicaMoved struct {
	Host    string `json:"host"`
	Request uint64 `json:"request"`
	Key     string `json:"key"`
	From    string `json:"from"`
	To      string `json:"to"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	// Bytes is the size of the object moved; Seconds how long the move
	// took on the worker.
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// Validate checks the host name, the counts, and that a failure says why.
func (m *ReplicaMoved) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	if m.Bytes < 0 || m.Seconds < 0 {
		return fmt.Errorf("host %s: move %d: negative bytes %d or seconds %g", m.Host, m.Request, m.Bytes, m.Seconds)
	}
	if !m.OK && m.Error == "" {
		return fmt.Errorf("host %s: move %d: a failed move must say why", m.Host, m.Request)
	}
	return nil
}

// Hello announces a coordinator that is waiting for registrations.
type Hello struct {
	Run string `json:"run"`
}

// Reset asks a worker that stays up between runs to end its attempts and
// remove every object it stored.
type Reset struct {
	Reason string `json:"reason"`
}

// Stop asks a worker to exit.
type Stop struct {
	Reason string `json:"reason"`
}

// Levels of bytes read, in AttemptEnded.Bytes.
const (
	LevelLocal = iota
	LevelRack
	LevelCross
	NumLevels
)

// AttemptEnded is a worker's report of an attempt's end.
type AttemptEnded struct {
	Attempt int64 `json:"attempt"`
	// Run is the launch's Run.
	Run    string `json:"run,omitempty"`
	Host   string `json:"host"`
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	// Bytes read by class name, each [local, in-rack, cross-rack].
	Bytes map[string][NumLevels]int64 `json:"bytes"`
	// Phase times in seconds.
	ReadSeconds    float64 `json:"read_seconds"`
	ComputeSeconds float64 `json:"compute_seconds"`
	WriteSeconds   float64 `json:"write_seconds"`
	BytesWritten   int64   `json:"bytes_written"`
}

// UnmarshalJSON decodes an AttemptEnded, refusing a row of Bytes that
// has not one count per level: into the array, a row of four counts
// would lose its last and a row of one read as a single local count.
func (m *AttemptEnded) UnmarshalJSON(data []byte) error {
	type plain AttemptEnded // without this method
	var rows struct {
		*plain
		Bytes map[string][]int64 `json:"bytes"`
	}
	rows.plain = (*plain)(m)
	// Decode's decoder does not pass its strictness on to this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return err
	}
	m.Bytes = nil
	if rows.Bytes != nil {
		m.Bytes = make(map[string][NumLevels]int64, len(rows.Bytes))
	}
	for name, row := range rows.Bytes {
		if len(row) != NumLevels {
			return fmt.Errorf("attempt %d: bytes of class %s: %d counts, want %d (local, in-rack, cross-rack)", m.Attempt, name, len(row), NumLevels)
		}
		m.Bytes[name] = [NumLevels]int64(row)
	}
	return nil
}

// Validate checks the host name, the byte counts: a class the engine
// knows, no negative count (they add up into the run's totals), and the
// phase times and bytes written, none negative.
func (m *AttemptEnded) Validate() error {
	if err := CheckHostName(m.Host); err != nil {
		return err
	}
	if !m.OK && m.Reason == "" {
		return errors.New("a failed attempt must say why")
	}
	if m.ReadSeconds < 0 || m.ComputeSeconds < 0 || m.WriteSeconds < 0 || m.BytesWritten < 0 {
		return fmt.Errorf("attempt %d: negative phase time (read %g, compute %g, write %g s) or bytes written %d",
			m.Attempt, m.ReadSeconds, m.ComputeSeconds, m.WriteSeconds, m.BytesWritten)
	}
	for name, row := range m.Bytes {
		if _, err := traffic.ParseClass(name); err != nil {
			return fmt.Errorf("attempt %d: bytes: %w", m.Attempt, err)
		}
		for _, n := range row {
			if n < 0 {
				return fmt.Errorf("attempt %d: bytes of class %s: negative count %d", m.Attempt, name, n)
			}
		}
	}
	return nil
}

// WorkerProblem is a worker's report of something it refused or could not
// do outside any attempt (a malformed command, a lost peer).
type WorkerProblem struct {
	Host    string `json:"host"`
	Problem string `json:"problem"`
}

// Validate checks the host name.
func (m *WorkerProblem) Validate() error { return CheckHostName(m.Host) }

// A Report is a message a worker sends about itself: Host names it, and
// must be the host whose subject it came on (see Subjects.Sender).
type Report interface{ SentBy() string }

// SentBy is the host the registration is for.
func (m *Register) SentBy() string { return m.Host }

// SentBy is the host that sent the heartbeat.
func (m *Heartbeat) SentBy() string { return m.Host }

// SentBy is the host that read the input.
func (m *InputDone) SentBy() string { return m.Host }

// SentBy is the host that wrote the blocks.
func (m *Materialized) SentBy() string { return m.Host }

// SentBy is the host that moved the replica.
func (m *ReplicaMoved) SentBy() string { return m.Host }

// SentBy is the host that ran the attempt.
func (m *AttemptEnded) SentBy() string { return m.Host }

// SentBy is the host that had the problem.
func (m *WorkerProblem) SentBy() string { return m.Host }
