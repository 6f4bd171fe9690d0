package main

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// loopback is an HTTP server on a port of a loopback address: what this process serves to itself
// and to the person at this machine (the demo shop, the demo's API), never to the network.
type loopback struct {
	URL string
	srv *http.Server
}

// serveLoopback serves h on ln until Close. The header timeout keeps a client that never
// finishes its request from holding a connection for ever.
func serveLoopback(ln net.Listener, h http.Handler) *loopback {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	// Serve returns only when the server is closed or the listener fails; either way there is
	// nothing left to serve, and a request to it fails where it is made.
	go func() { _ = srv.Serve(ln) }()
	return &loopback{URL: "http://" + ln.Addr().String(), srv: srv}
}

// Close stops the server and closes its connections, an open event stream's included: what it
// served ends with the command.
func (s *loopback) Close() { _ = s.srv.Close() }

// listenLoopback listens on addr, the value of flag name, which must be a loopback address
// (127.0.0.1, [::1], localhost); port 0 picks a free port. Its error names the flag, for the
// command's usage.
func listenLoopback(name, addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v (give HOST:PORT, e.g. 127.0.0.1:8080; port 0 picks a free one)", name, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%s %q: only a loopback address (127.0.0.1, [::1], localhost) is served: nothing here authenticates a caller from the network", name, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", name, addr, err)
	}
	return ln, nil
}
