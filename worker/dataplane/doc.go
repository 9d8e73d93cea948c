// Package dataplane moves a worker's bytes over TCP: each worker runs one
// Server that serves byte ranges of objects in its store (GET: input blocks,
// shuffle partitions) and accepts objects pushed to it (PUT: output
// replicas), and fetches from its peers with a Client.
//
// Every socket carries the DSCP of its traffic class (see [Class] and
// [DSCP]), so that the network can prioritise, say, shuffle over background
// traffic. The sockets of one task attempt form a [Group]; re-marking the
// group (Group.SetDSCP) re-marks all of its open sockets at both ends while
// they transfer: the client sets its own socket and sends a re-mark frame so
// that the server re-marks its side, which carries a GET's bulk data.
//
// Wire protocol (all integers big-endian). Each client-to-server frame is a
// 27-byte header followed by a key and, for DATA, a payload:
//
//	"RLDP" version(1) op class dscp tier keylen(u16) key off(i64) len(i64)
//
// op is GET (send len bytes of key from off; len -1 = to the end), PUT
// (store len bytes, which follow as DATA frames of at most 4 MiB, under key;
// committed only when all have arrived), PIPE (a PUT whose header is
// followed by a hop list, count(u16) then per hop addrlen(u8) addr tier(u8)
// keylen(u16) key: the server forwards the bytes to the first hop as a PIPE
// of the rest as it stores them, HDFS's write pipeline, and commits and
// answers once the hops have; a server takes it only with a client to
// forward with, Server.ForwardWith), DELETE (remove key from tier, and
// keep a PUT or PIPE of it still under way, or arriving later, from
// committing: a failed writer's clean-up of its output's copies; off and
// len are 0), REMARK (set this connection's
// server-side DSCP to dscp; allowed at any time, also between DATA frames
// and while a GET's data is flowing; a PIPE's server re-marks its forward
// too) or DATA. The server answers GET, PUT, PIPE and DELETE with
//
//	"RLDR" status(u8) len(i64) msglen(u16) msg
//
// followed, for a successful GET, by len bytes of data. GET and PUT also set
// the server's socket to the request's dscp. A bad request (bad magic,
// version, op, class, dscp or tier, a key longer than 1024 bytes, a range
// outside the object, ...) gets an error response, is logged, and the
// server closes the connection; successful connections are kept and reused
// by the client. Ranges of unpaced tiers are sent with sendfile(2).
//
// The server counts the bytes it serves and receives per class
// (Server.Stats), the client those it fetches and pushes (Client.Stats).
package dataplane
