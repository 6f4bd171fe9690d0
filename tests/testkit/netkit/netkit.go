// Package netkit holds what tests need of the network and nothing else, so that any test package
// may import it (the browser's own tests included, which the rest of testkit imports).
package netkit

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusedAddr is a loopback address whose connections are refused for the whole test: a socket
// is bound to it and never listens, so nothing else (an httptest server started next, say) can
// take the port. A port found by listening and closing again may be handed to the very next
// listener, and a request "to a server that is down" then reaches a live one.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("a socket bound to 127.0.0.1 has address %v", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in.Port)
}
