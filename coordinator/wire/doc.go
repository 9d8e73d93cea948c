// Package wire is the coordinator–worker protocol: the NATS subjects and
// the messages sent on them, shared by both binaries.
//
// Every message is a JSON envelope {"type", "v", "body"}. Decode checks
// the type against the one the subject carries and the version against
// Version, and refuses unknown fields, so a malformed, unknown or
// misrouted message is an error the receiver logs and drops; it never
// reaches the engine.
package wire
