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

func (k EventKind) String() string { return [...]string{"joined", "left", "updated"}[k] }

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

	mu    sync.Mutex
	peers map[string]Peer
	// onMessage gets each user message (see Send); nil drops them
	onMessage func([]byte)
}

// Start creates the member; it is alone until Join.
func Start(cfg Config) (*Agent, error) {
	if cfg.Name == "" {
		return nil, errors.New("members: a name is required")
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

// Leave announces departure and stops the agent.
func (a *Agent) Leave(timeout time.Duration) error {
	err := a.list.Leave(timeout)
	if serr := a.list.Shutdown(); err == nil {
		err = serr
	}
	return err
}

func (a *Agent) peerOf(n *memberlist.Node) (Peer, bool) {
	p := Peer{Name: n.Name, Addr: net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))}
	if err := json.Unmarshal(n.Meta, &p.Meta); err != nil {
		return p, false
	}
	return p, true
}

func (a *Agent) note(kind EventKind, n *memberlist.Node) {
	if n.Name == a.name {
		return
	}
	p, ok := a.peerOf(n)
	if !ok {
		return // not one of ours: bad metadata
	}
	a.mu.Lock()
	if kind == Left {
		delete(a.peers, p.Name)
	} else {
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
	var errs []error
	for _, n := range a.list.Members() {
		if n.Name == a.name {
			continue
		}
		p, ok := a.peerOf(n)
		if !ok || (want != nil && !want(p)) {
			continue
		}
		var err error
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
