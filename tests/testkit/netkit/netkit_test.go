package netkit_test

import (
	"errors"
	"net"
	"net/http/httptest"
	"syscall"
	"testing"

	"github.com/driftgardener/gardener/tests/testkit/netkit"
)

// TestRefusedAddrStaysRefused: a connection to the address is refused, and listeners started
// after it never get its port.
func TestRefusedAddrStaysRefused(t *testing.T) {
	addr := netkit.RefusedAddr(t)
	for range 50 {
		srv := httptest.NewServer(nil)
		if srv.Listener.Addr().String() == addr {
			t.Fatalf("a server was given the refused address %s", addr)
		}
		srv.Close()
	}
	_, err := net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dialing %s: %v, want connection refused", addr, err)
	}
}
