package stallnet

import (
	"net"
	"testing"
)

// Listen starts a stalling peer on loopback and returns its address. At
// the end of the test it stops accepting and closes what it accepted.
func Listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 16)
	acceptor := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-acceptor // nothing is accepted after this
		close(accepted)
		for conn := range accepted {
			conn.Close()
		}
	})
	go func() {
		defer close(acceptor)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case accepted <- conn:
			default: // more than a test needs
				conn.Close()
			}
		}
	}()
	return ln.Addr().String()
}
