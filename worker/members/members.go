package members

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// Roles of members.
const (
	RoleWorker      = "worker"
	RoleCoordinator = "coordinator"
)

// Meta is what each member gossips about itself.
type Meta struct {
	Role     string `json:"role"`
	Rack     string `json:"rack,omitempty"`
	DataAddr string `json:"data,omitempty"`
}

// check refuses metadata that is not a member's as racklab gossips it:
// an unknown role, a worker without a rack or a data address, a data
// address that is not IP:port. Peers gossip their own metadata, so any
// process that reaches memberlist's port can claim anything.
func (m Meta) check() error {
	switch m.Role {
	case RoleWorker:
		if strings.TrimSpace(m.Rack) == "" {
			return fmt.Errorf("worker with rack %q: a worker needs a rack", m.Rack)
		}
		if m.DataAddr == "" {
			return errors.New("worker without a data address")
		}
	case RoleCoordinator:
	default:
		return fmt.Errorf("role %q, want %q or %q", m.Role, RoleWorker, RoleCoordinator)
	}
	if m.DataAddr != "" {
		host, port, err := net.SplitHostPort(m.DataAddr)
		if err != nil {
			return fmt.Errorf("data address %q: %w", m.DataAddr, err)
		}
		if net.ParseIP(host) == nil {
			return fmt.Errorf("data address %q: %q is not an IP address", m.DataAddr, host)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return fmt.Errorf("data address %q: port %q, want 1..65535", m.DataAddr, port)
		}
	}
	return nil
}

// parseMeta decodes and checks a member's gossiped metadata.
func parseMeta(b []byte) (Meta, error) {
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("metadata %.64q: %w", b, err)
	}
	if err := m.check(); err != nil {
		return Meta{}, fmt.Errorf("metadata %.64q: %w", b, err)
	}
	return m, nil
}

// Peer is a live member as this agent sees it.
type Peer struct {
	Name string
	Addr string // memberlist address
	Meta
}

// DataIP is the peer's data address without the port.
func (p Peer) DataIP() net.IP {
	host, _, err := net.SplitHostPort(p.DataAddr)
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

// EventKind says what happened to a peer.
type EventKind uint8

// Event kinds.
const (
	Joined EventKind = iota
	Left             // died or left
	Updated
)

func (k EventKind) String() string {
	if names := [...]string{"joined", "left", "updated"}; int(k) < len(names) {
		return names[k]
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// Event is a change of membership.
type Event struct {
	Kind EventKind
	Peer Peer
}

// Config configures an agent.
type Config struct {
	Name     string
	Meta     Meta
	BindAddr string // address to bind and advertise
	BindPort int    // 0 picks a free port
	// Failure detection for a LAN or one machine: a dead peer is declared
	// within a few seconds. Zero takes the default.
	ProbeInterval time.Duration // default 1 s
	Logger        *log.Logger   // default: discard
}

// Agent is one memberlist member.
type Agent struct {
	list   *memberlist.Memberlist
	events chan Event
	meta   []byte
	name   string
	logger *log.Logger

	mu    sync.Mutex
	peers map[string]Peer
	// left is set by Leave: memberlist panics on a second Leave, and a
	// shut-down member can still dial, so that Join would succeed
	left bool
	// onMessage gets each user message (see Send); nil drops them
	onMessage func([]byte)
}

// Start creates the member; it is alone until Join.
func Start(cfg Config) (*Agent, error) {
	if cfg.Name == "" {
		return nil, errors.New("members: a name is required")
	}
	// the others would refuse it (see Meta.check): say so here
	if err := cfg.Meta.check(); err != nil {
		return nil, fmt.Errorf("members: %s: %w", cfg.Name, err)
	}
	if cfg.ProbeInterval < 0 {
		return nil, fmt.Errorf("members: %s: probe interval %v is negative", cfg.Name, cfg.ProbeInterval)
	}
	meta, err := json.Marshal(cfg.Meta)
	if err != nil {
		return nil, err
	}
	if len(meta) > memberlist.MetaMaxSize {
		return nil, fmt.Errorf("members: metadata of %d bytes exceeds memberlist's %d", len(meta), memberlist.MetaMaxSize)
	}
	a := &Agent{events: make(chan Event, 1024), meta: meta, name: cfg.Name, peers: map[string]Peer{}}
	mc := memberlist.DefaultLocalConfig()
	mc.Name = cfg.Name
	mc.BindAddr = cfg.BindAddr
	mc.BindPort = cfg.BindPort
	mc.AdvertisePort = cfg.BindPort
	mc.ProbeInterval = cfg.ProbeInterval
	if mc.ProbeInterval == 0 {
		mc.ProbeInterval = time.Second
	}
	// Workers burn CPU on purpose and an emulated cluster packs many on
	// few cores: give a busy peer time to answer before suspecting it.
	mc.ProbeTimeout = 500 * time.Millisecond
	mc.SuspicionMult = 3
	// A worker that crashed and restarts under the same name comes back
	// on another port (--member-port 0): once its old self is declared
	// dead, let the name move to the new address at once, not after
	// memberlist forgets the dead (GossipToTheDeadTime, 15 s), during
	// which the new one would be refused as a conflict.
	mc.DeadNodeReclaimTime = time.Nanosecond
	// Small clusters: a broadcast is retransmitted only about
	// RetransmitMult*log10(n+1) times, to random members, so with few
	// members a join can miss someone until the next push-pull. Send more,
	// and push-pull often.
	mc.RetransmitMult = 4
	mc.PushPullInterval = 2 * time.Second
	mc.Delegate = (*delegate)(a)
	mc.Events = (*eventDelegate)(a)
	if cfg.Logger != nil {
		mc.Logger = cfg.Logger
	} else {
		mc.Logger = log.New(io.Discard, "", 0)
	}
	a.logger = mc.Logger
	list, err := memberlist.Create(mc)
	if err != nil {
		return nil, fmt.Errorf("members: start %s on %s:%d: %w", cfg.Name, cfg.BindAddr, cfg.BindPort, err)
	}
	a.list = list
	return a, nil
}

// Addr is this agent's memberlist address.
func (a *Agent) Addr() string {
	n := a.list.LocalNode()
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// Join contacts existing members; it succeeds if any answers.
func (a *Agent) Join(addrs []string) error {
	if a.hasLeft() {
		return fmt.Errorf("members: %s has left: it cannot join %v", a.name, addrs)
	}
	if len(addrs) == 0 {
		return nil
	}
	if _, err := a.list.Join(addrs); err != nil {
		return fmt.Errorf("members: join %v: %w", addrs, err)
	}
	return nil
}

// Events delivers membership changes. Events are dropped, never blocking
// gossip, if nobody reads them; Peers is always current.
func (a *Agent) Events() <-chan Event { return a.events }

// Peers lists the live members other than this one, by name.
func (a *Agent) Peers() []Peer {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Peer, 0, len(a.peers))
	for _, p := range a.peers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Leave announces departure and stops the agent. Leaving again does
// nothing.
func (a *Agent) Leave(timeout time.Duration) error {
	a.mu.Lock()
	left := a.left
	a.left = true
	a.mu.Unlock()
	if left {
		return nil
	}
	err := a.list.Leave(timeout)
	if serr := a.list.Shutdown(); err == nil {
		err = serr
	}
	return err
}

func (a *Agent) hasLeft() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.left
}

func (a *Agent) peerOf(n *memberlist.Node) (Peer, error) {
	p := Peer{Name: n.Name, Addr: net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))}
	var err error
	p.Meta, err = parseMeta(n.Meta)
	return p, err
}

func (a *Agent) note(kind EventKind, n *memberlist.Node) {
	if n.Name == a.name {
		return
	}
	p, err := a.peerOf(n)
	a.mu.Lock()
	old, known := a.peers[n.Name]
	switch {
	case err != nil:
		// not one of ours, or no longer: if it was a peer, it is gone
		// (its leaving, with this metadata, would be refused too)
		if kind != Left {
			a.logger.Printf("[WARN] members: member %s at %s refused: %v", p.Name, p.Addr, err)
		}
		if !known {
			a.mu.Unlock()
			return
		}
		kind, p = Left, old
		delete(a.peers, p.Name)
	case kind == Left:
		delete(a.peers, p.Name)
	default:
		if !known {
			kind = Joined // its metadata was refused until now
		}
		a.peers[p.Name] = p
	}
	a.mu.Unlock()
	select {
	case a.events <- Event{Kind: kind, Peer: p}:
	default:
	}
}

type eventDelegate Agent

func (d *eventDelegate) NotifyJoin(n *memberlist.Node)   { (*Agent)(d).note(Joined, n) }
func (d *eventDelegate) NotifyLeave(n *memberlist.Node)  { (*Agent)(d).note(Left, n) }
func (d *eventDelegate) NotifyUpdate(n *memberlist.Node) { (*Agent)(d).note(Updated, n) }

// maxDatagram is the largest message Send puts in one UDP packet
// (memberlist's UDPBufferSize, 1400, less its headers); larger ones go
// over TCP.
const maxDatagram = 1200

// Send sends msg to every live member that want selects, directly (one
// hop, so it arrives within a network round trip, unlike memberlist's
// gossip queue, which reaches only a few random members per round), as
// one best-effort UDP packet, or over TCP if it is too large for one.
// Errors name the members that could not be sent to.
func (a *Agent) Send(msg []byte, want func(Peer) bool) error {
	if a.hasLeft() {
		return fmt.Errorf("members: %s has left: not sending", a.name)
	}
	var errs []error
	for _, n := range a.list.Members() {
		if n.Name == a.name {
			continue
		}
		p, err := a.peerOf(n)
		if err != nil || (want != nil && !want(p)) {
			continue
		}
		if len(msg) <= maxDatagram {
			err = a.list.SendBestEffort(n, msg)
		} else {
			err = a.list.SendReliable(n, msg)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("members: send to %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

// OnMessage sets the function that gets each message other members Send
// to this one (nil: drop them). It is called from memberlist's receiving
// goroutine, with a copy of the message it may keep, and must not block.
func (a *Agent) OnMessage(f func(msg []byte)) {
	a.mu.Lock()
	a.onMessage = f
	a.mu.Unlock()
}

type delegate Agent

func (d *delegate) NodeMeta(limit int) []byte {
	if len(d.meta) > limit {
		return nil
	}
	return d.meta
}
func (d *delegate) NotifyMsg(b []byte) {
	d.mu.Lock()
	f := d.onMessage
	d.mu.Unlock()
	if f != nil && len(b) > 0 {
		// memberlist reuses b after we return
		f(append([]byte(nil), b...))
	}
}
func (d *delegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d *delegate) LocalState(join bool) []byte                { return nil }
func (d *delegate) MergeRemoteState(buf []byte, join bool)     {}
