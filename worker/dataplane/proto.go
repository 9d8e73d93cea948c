package dataplane

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/store"
)

// Protocol constants.
const (
	reqMagic     = "RLDP"
	respMagic    = "RLDR"
	protoVersion = 1

	reqFixed  = 11 // magic, version, op, class, dscp, tier, keylen
	reqTail   = 16 // off, len
	respFixed = 15 // magic, status, len, msglen

	// MaxKeyLen is the longest key a request may carry.
	MaxKeyLen = store.MaxKeyLen
	// MaxDataFrame is the largest DATA frame payload.
	MaxDataFrame = 4 << 20
	// maxMsgLen is the longest error message in a response.
	maxMsgLen = 4096
	// MaxHops is the most replicas a PIPE forwards to after its server's
	// own: all but one of the most an output may have.
	MaxHops = workload.MaxReplicas - 1
	// MaxAddrLen is the longest address a hop may name.
	MaxAddrLen = 255
)

// op is a request's operation.
type op uint8

const (
	opGet    op = 1
	opPut    op = 2
	opRemark op = 3
	opData   op = 4
	// opPipe is a PUT whose server also forwards the bytes, as it writes
	// them, to the next replica of its hop list, which forwards them to
	// the one after: HDFS's write pipeline. It answers once every replica
	// has the object.
	opPipe op = 5
	// opDelete removes an object, and keeps any PUT or PIPE of the same
	// key that is still under way from committing it: a failed writer's
	// clean-up of the copies it sent, which may land before or after the
	// last replica of its pipeline commits.
	opDelete op = 6
)

func (o op) String() string {
	switch o {
	case opGet:
		return "GET"
	case opPut:
		return "PUT"
	case opRemark:
		return "REMARK"
	case opData:
		return "DATA"
	case opPipe:
		return "PIPE"
	case opDelete:
		return "DELETE"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// request is one client-to-server frame header.
type request struct {
	Op    op
	Class Class
	DSCP  uint8
	Tier  cluster.TierKind
	Key   string
	Off   int64
	Len   int64 // GET: -1 = to the end; PUT, PIPE: object size; DATA: payload size
	// Hops are a PIPE's next replicas, in pipeline order.
	Hops []Hop
}

// Hop is a replica a PIPE's bytes go on to: a worker's data address, and
// the tier and key the object is stored under there.
type Hop struct {
	Addr string
	Tier cluster.TierKind
	Key  string
}

// appendRequest appends the encoding of r to b.
func appendRequest(b []byte, r *request) []byte {
	b = append(b, reqMagic...)
	b = append(b, protoVersion, byte(r.Op), byte(r.Class), r.DSCP, byte(r.Tier))
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Key)))
	b = append(b, r.Key...)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Off))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Len))
	if r.Op != opPipe {
		return b
	}
	// a PIPE's hop list: count, then per hop its address, tier and key
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Hops)))
	for _, h := range r.Hops {
		b = append(b, byte(len(h.Addr)))
		b = append(b, h.Addr...)
		b = append(b, byte(h.Tier))
		b = binary.BigEndian.AppendUint16(b, uint16(len(h.Key)))
		b = append(b, h.Key...)
	}
	return b
}

// protoError is a malformed request: the server answers it with
// StatusBadRequest and closes the connection.
type protoError struct{ msg string }

func (e *protoError) Error() string { return "bad request: " + e.msg }

func badRequest(format string, args ...any) error {
	return &protoError{fmt.Sprintf(format, args...)}
}

// parseRequest reads and validates one frame header. Errors are either a
// *protoError (malformed frame) or the reader's error (io.EOF at a frame
// boundary, io.ErrUnexpectedEOF inside a frame, ...).
func parseRequest(r io.Reader) (request, error) {
	var h [reqFixed]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return request{}, err
	}
	if string(h[:4]) != reqMagic {
		return request{}, badRequest("bad magic %q", h[:4])
	}
	if h[4] != protoVersion {
		return request{}, badRequest("unsupported protocol version %d", h[4])
	}
	q := request{Op: op(h[5]), Class: Class(h[6]), DSCP: h[7], Tier: cluster.TierKind(h[8])}
	keyLen := int(binary.BigEndian.Uint16(h[9:]))
	switch {
	case q.Op < opGet || q.Op > opDelete:
		return request{}, badRequest("unknown op %d", h[5])
	case q.Class >= NumClasses:
		return request{}, badRequest("unknown class %d", h[6])
	case q.DSCP > MaxDSCP:
		return request{}, badRequest("dscp %d out of range", q.DSCP)
	case int(q.Tier) >= cluster.NumTierKinds:
		return request{}, badRequest("unknown tier %d", h[8])
	case keyLen > MaxKeyLen:
		return request{}, badRequest("key of %d bytes (at most %d)", keyLen, MaxKeyLen)
	case keyLen > 0 && (q.Op == opRemark || q.Op == opData):
		return request{}, badRequest("%s with a key", q.Op)
	case keyLen == 0 && q.Op == opDelete:
		return request{}, badRequest("DELETE without a key")
	}
	rest := make([]byte, keyLen+reqTail)
	if _, err := io.ReadFull(r, rest); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return request{}, err
	}
	q.Key = string(rest[:keyLen])
	q.Off = int64(binary.BigEndian.Uint64(rest[keyLen:]))
	q.Len = int64(binary.BigEndian.Uint64(rest[keyLen+8:]))
	switch q.Op {
	case opGet:
		if q.Off < 0 || q.Len < -1 {
			return request{}, badRequest("GET range [%d, +%d)", q.Off, q.Len)
		}
	case opPut, opPipe:
		if q.Off != 0 || q.Len < 0 {
			return request{}, badRequest("%s offset %d length %d", q.Op, q.Off, q.Len)
		}
	case opRemark, opDelete:
		if q.Off != 0 || q.Len != 0 {
			return request{}, badRequest("%s with offset or length", q.Op)
		}
	case opData:
		if q.Off != 0 || q.Len < 0 || q.Len > MaxDataFrame {
			return request{}, badRequest("DATA offset %d length %d", q.Off, q.Len)
		}
	}
	if q.Op == opPipe {
		hops, err := parseHops(r)
		if err != nil {
			return request{}, err
		}
		q.Hops = hops
	}
	return q, nil
}

// parseHops reads a PIPE's hop list.
func parseHops(r io.Reader) ([]Hop, error) {
	var b [2]byte
	read := func(p []byte) error {
		_, err := io.ReadFull(r, p)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if err := read(b[:2]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint16(b[:2]))
	if n < 1 || n > MaxHops {
		return nil, badRequest("PIPE with %d hops (1 to %d)", n, MaxHops)
	}
	hops := make([]Hop, n)
	for i := range hops {
		if err := read(b[:1]); err != nil {
			return nil, err
		}
		addr := make([]byte, b[0])
		if len(addr) == 0 {
			return nil, badRequest("PIPE hop %d without an address", i)
		}
		if err := read(addr); err != nil {
			return nil, err
		}
		if err := read(b[:1]); err != nil {
			return nil, err
		}
		tier := cluster.TierKind(b[0])
		if int(tier) >= cluster.NumTierKinds {
			return nil, badRequest("PIPE hop %d: unknown tier %d", i, b[0])
		}
		if err := read(b[:2]); err != nil {
			return nil, err
		}
		keyLen := int(binary.BigEndian.Uint16(b[:2]))
		if keyLen == 0 || keyLen > MaxKeyLen {
			return nil, badRequest("PIPE hop %d: key of %d bytes (1 to %d)", i, keyLen, MaxKeyLen)
		}
		key := make([]byte, keyLen)
		if err := read(key); err != nil {
			return nil, err
		}
		hops[i] = Hop{Addr: string(addr), Tier: tier, Key: string(key)}
	}
	return hops, nil
}

// Status is a response's status.
type Status uint8

// Response statuses.
const (
	StatusOK Status = iota
	StatusBadRequest
	StatusNotFound
	StatusNoTier
	StatusRange
	StatusNoSpace
	StatusBadKey
	StatusInternal
)

var statusNames = [...]string{"ok", "bad request", "not found", "no such tier", "range out of bounds", "no space", "bad key", "internal error"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// statusOf maps a server-side error to a status.
func statusOf(err error) Status {
	var pe *protoError
	switch {
	case err == nil:
		return StatusOK
	case errors.As(err, &pe):
		return StatusBadRequest
	case errors.Is(err, store.ErrNoTier):
		return StatusNoTier
	case errors.Is(err, store.ErrBadKey):
		return StatusBadKey
	case errors.Is(err, fs.ErrNotExist):
		return StatusNotFound
	case errors.Is(err, store.ErrRange):
		return StatusRange
	case errors.Is(err, store.ErrNoSpace):
		return StatusNoSpace
	}
	return StatusInternal
}

// RemoteError is an error response from a server. errors.Is matches it
// against fs.ErrNotExist and the store's ErrNoTier, ErrBadKey, ErrRange and
// ErrNoSpace according to its status.
type RemoteError struct {
	Status Status
	Msg    string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("server: %s: %s", e.Status, e.Msg) }

// Is reports whether the status corresponds to target.
func (e *RemoteError) Is(target error) bool {
	switch e.Status {
	case StatusNotFound:
		return target == fs.ErrNotExist
	case StatusNoTier:
		return target == store.ErrNoTier
	case StatusBadKey:
		return target == store.ErrBadKey
	case StatusRange:
		return target == store.ErrRange
	case StatusNoSpace:
		return target == store.ErrNoSpace
	}
	return false
}

type response struct {
	Status Status
	Len    int64
	Msg    string
}

func appendResponse(b []byte, r *response) []byte {
	msg := r.Msg
	if len(msg) > maxMsgLen {
		msg = msg[:maxMsgLen]
	}
	b = append(b, respMagic...)
	b = append(b, byte(r.Status))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Len))
	b = binary.BigEndian.AppendUint16(b, uint16(len(msg)))
	return append(b, msg...)
}

func parseResponse(r io.Reader) (response, error) {
	var h [respFixed]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return response{}, err
	}
	if string(h[:4]) != respMagic {
		return response{}, fmt.Errorf("bad response magic %q", h[:4])
	}
	p := response{Status: Status(h[4]), Len: int64(binary.BigEndian.Uint64(h[5:]))}
	n := int(binary.BigEndian.Uint16(h[13:]))
	if n > maxMsgLen {
		return response{}, fmt.Errorf("response message of %d bytes", n)
	}
	if n > 0 {
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			return response{}, err
		}
		p.Msg = string(msg)
	}
	if p.Status == StatusOK && p.Len < 0 {
		return response{}, fmt.Errorf("response length %d", p.Len)
	}
	return p, nil
}
