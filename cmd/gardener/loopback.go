package main

import (
	"net"
	"net/http"
	"time"
)

// loopback is an HTTP server on a free port of 127.0.0.1: what this process serves to itself
// and to the person at this machine (the demo shop, the demo's API), never to the network.
type loopback struct {
	URL string
	srv *http.Server
}

// serveLoopback serves h on a free loopback port until Close. The header timeout keeps a
// client that never finishes its request from holding a connection for ever.
func serveLoopback(h http.Handler) (*loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	// Serve returns only when the server is closed or the listener fails; either way there is
	// nothing left to serve, and a request to it fails where it is made.
	go func() { _ = srv.Serve(ln) }()
	return &loopback{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops the server and closes its connections, an open event stream's included: what it
// served ends with the command.
func (s *loopback) Close() { _ = s.srv.Close() }
