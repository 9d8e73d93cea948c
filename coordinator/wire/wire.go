package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Version is the protocol version; both sides must speak the same one.
// Version 2 gave every worker its own registration, heartbeat, event and
// reply-inbox subjects (see Subjects), so that a worker's NATS user can be
// limited to its own. Version 3 has launches name their run (Launch.Run)
// and the reports about an attempt carry it back: a worker of version 2
// would leave it out, and the coordinator would take every report of its
// for another run's.
const Version = 3

// MaxMessageBytes bounds what a receiver decodes.
const MaxMessageBytes = 8 << 20

// Subjects of one cluster. Prefix keeps clusters sharing a NATS server
// apart.
type Subjects struct{ Prefix string }

// NewSubjects returns the subjects of a cluster named name ("racklab"
// by default). Names are NATS tokens: no dots, spaces or wildcards.
func NewSubjects(name string) (Subjects, error) {
	if name == "" {
		name = "racklab"
	}
	if err := checkToken(name); err != nil {
		return Subjects{}, fmt.Errorf("cluster name: %w", err)
	}
	return Subjects{Prefix: "racklab." + name}, nil
}

// A worker publishes only on subjects that end in its own host name, and
// the server lets each worker's user publish on its own only: the
// coordinator thus knows who sent a message from its subject, and a body
// that claims another host is a lie it refuses.

// Register is the subject host sends its Register requests to.
func (s Subjects) Register(host string) string { return s.Prefix + ".register." + host }

// Heartbeat is the subject of host's heartbeats.
func (s Subjects) Heartbeat(host string) string { return s.Prefix + ".heartbeat." + host }

// Events is the subject of host's events (attempt ends, input done,
// replica moves, materialization, problems).
func (s Subjects) Events(host string) string { return s.Prefix + ".events." + host }

// Inbox is the prefix of host's reply inboxes: the answers to its
// registrations come there, and only host may hear them.
func (s Subjects) Inbox(host string) string { return s.Prefix + ".inbox." + host }

// Reports are the wildcards the coordinator hears every worker's
// registrations, heartbeats and events on.
func (s Subjects) Reports() []string {
	return []string{s.Register("*"), s.Heartbeat("*"), s.Events("*")}
}

// Sender is the host a worker's report came from, read from the
// subject it was published on (Register, Heartbeat or Events), or "" if
// subject is none of those.
func (s Subjects) Sender(subject string) string {
	for _, kind := range []string{".register.", ".heartbeat.", ".events."} {
		if rest, ok := strings.CutPrefix(subject, s.Prefix+kind); ok && checkToken(rest) == nil {
			return rest
		}
	}
	return ""
}

// Hello is the subject a coordinator announces itself on, so that
// workers that outlived an earlier run register again.
func (s Subjects) Hello() string { return s.Prefix + ".hello" }

// Worker is the subject a worker receives commands on.
func (s Subjects) Worker(host string) string { return s.Prefix + ".worker." + host }

// WorkerWildcard matches every worker's command subject.
func (s Subjects) WorkerWildcard() string { return s.Prefix + ".worker.*" }

func checkToken(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if strings.ContainsAny(s, ". \t\r\n*>") {
		return fmt.Errorf("%q may not contain dots, blanks, '*' or '>'", s)
	}
	return nil
}

// CheckHostName reports whether a host name can be part of a subject
// and of a file name: its credentials file is worker-HOST.json (see
// WorkerFile), so a slash would put it in a directory of its own, and a
// control character is no part of any name.
func CheckHostName(name string) error {
	if err := checkToken(name); err != nil {
		return fmt.Errorf("host name: %w", err)
	}
	for _, r := range name {
		if r == '/' || r == '\\' || unicode.IsControl(r) {
			return fmt.Errorf("host name: %q may not contain %q", name, r)
		}
	}
	return nil
}

// CoordinatorUser is the coordinator's NATS user, which may do anything.
const CoordinatorUser = "coordinator"

// WorkerUser is host's NATS user, which the embedded server lets publish
// only on host's Register, Heartbeat and Events subjects and hear only
// host's commands, replies and the coordinator's hello.
func WorkerUser(host string) string { return "worker-" + host }

// Message types.
const (
	TypeRegister      = "register"
	TypeRegistered    = "registered"
	TypeHeartbeat     = "heartbeat"
	TypeLaunch        = "launch"
	TypeKill          = "kill"
	TypePriority      = "priority"
	TypeSources       = "sources"
	TypeMaterialize   = "materialize"
	TypeStop          = "stop"
	TypeHello         = "hello"
	TypeReset         = "reset"
	TypeAttemptEnded  = "attempt-ended"
	TypeMaterialized  = "materialized"
	TypeWorkerProblem = "worker-problem"
	TypeInputDone     = "input-done"
	TypeMoveReplica   = "move-replica"
	TypeReplicaMoved  = "replica-moved"
)

type envelope struct {
	Type string          `json:"type"`
	V    int             `json:"v"`
	Body json.RawMessage `json:"body"`
}

// Encode wraps a message body in its envelope.
func Encode(typ string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", typ, err)
	}
	return json.Marshal(envelope{Type: typ, V: Version, Body: b})
}

// MustEncode is Encode for bodies that always marshal (the package's own
// types); it panics only on a programming error.
func MustEncode(typ string, body any) []byte {
	b, err := Encode(typ, body)
	if err != nil {
		panic(err)
	}
	return b
}

// Peek returns a message's type without decoding its body.
func Peek(data []byte) (string, error) {
	env, err := openEnvelope(data)
	if err != nil {
		return "", err
	}
	return env.Type, nil
}

// openEnvelope parses and checks a message's envelope: its version, its
// type, no field but type, v and body (a misspelt "body" would leave an
// empty one), and a body that is there and not null (which would decode
// as a message of zeros: a Kill of attempt 0).
func openEnvelope(data []byte) (envelope, error) {
	var env envelope
	if len(data) > MaxMessageBytes {
		return env, fmt.Errorf("message of %d bytes exceeds %d", len(data), MaxMessageBytes)
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return env, fmt.Errorf("malformed envelope: %w", err)
	}
	// the version first: another version's envelope may have other fields
	if env.V != Version {
		return env, fmt.Errorf("protocol version %d, want %d", env.V, Version)
	}
	if _, ok := known[env.Type]; !ok {
		return env, fmt.Errorf("unknown message type %q", env.Type)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&envelope{}); err != nil {
		return env, fmt.Errorf("malformed %s envelope: %w", env.Type, err)
	}
	if len(env.Body) == 0 || string(env.Body) == "null" {
		return env, fmt.Errorf("%s message without a body", env.Type)
	}
	return env, nil
}

// Decode checks the envelope and decodes the body of a message whose type
// must be want into body. Unknown body fields are an error.
func Decode(data []byte, want string, body any) error {
	env, err := openEnvelope(data)
	if err != nil {
		return err
	}
	typ := env.Type
	if typ != want {
		return fmt.Errorf("got a %q message where %q was expected", typ, want)
	}
	dec := json.NewDecoder(bytes.NewReader(env.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(body); err != nil {
		return fmt.Errorf("malformed %s body: %w", typ, err)
	}
	if v, ok := body.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("invalid %s: %w", typ, err)
		}
	}
	return nil
}

var known = map[string]struct{}{
	TypeRegister: {}, TypeRegistered: {}, TypeHeartbeat: {}, TypeLaunch: {},
	TypeKill: {}, TypePriority: {}, TypeSources: {}, TypeMaterialize: {},
	TypeStop: {}, TypeAttemptEnded: {}, TypeMaterialized: {}, TypeWorkerProblem: {},
	TypeHello: {}, TypeReset: {}, TypeInputDone: {}, TypeMoveReplica: {}, TypeReplicaMoved: {},
}
