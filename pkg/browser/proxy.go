package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// gateProxy is the browser's only way to the network. Chromium is started with --proxy-server
// pointing at the browser-wide one and every lane's browser context gets one of its own (see
// lane), with the loopback bypass that Chromium adds by default removed, so every request of
// every target in the context -- tabs, popups, iframes, dedicated, shared and service workers,
// WebSockets, beacons, preconnects -- reaches it and nothing else. It forwards a request only
// when the gate of the replay that holds the lane allows its origin; with no replay (gate nil)
// it refuses everything. It dials nothing for a refused request, so a refused origin sees not
// even a TCP connection.
type gateProxy struct {
	ln   net.Listener
	srv  *http.Server
	gate atomic.Pointer[originGate]
	fwd  *httputil.ReverseProxy
	out  *http.Transport // the proxy's connections to allowed origins

	mu      sync.Mutex
	tunnels map[net.Conn]bool // open CONNECT tunnels and upgraded connections, both ends
	// unreachable maps what the proxy could not connect to (a URL, or host:port for a
	// tunnel) to the network error Chromium would have named, had it connected itself.
	unreachable map[string]string
}

// proxyDialTimeout bounds the proxy's connection to an allowed origin.
const proxyDialTimeout = 30 * time.Second

// errRefusedAddr is the dialer's refusal of an address no replay may reach.
var errRefusedAddr = errors.New("address refused")

// safeDialer dials only addresses that are not link-local, cloud metadata or unspecified, after
// name resolution: an allowed host name that resolves to the metadata address is refused too.
var safeDialer = &net.Dialer{
	Timeout: proxyDialTimeout,
	Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", errRefusedAddr, address)
		}
		if ip := net.ParseIP(host); ip == nil || refusedIP(ip) != "" {
			return fmt.Errorf("%w: %s", errRefusedAddr, address)
		}
		return nil
	},
}

// startProxy listens on a loopback port of its own.
func startProxy() (*gateProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the browser's network proxy: %w", err)
	}
	p := &gateProxy{ln: ln, tunnels: map[net.Conn]bool{}, unreachable: map[string]string{}}
	transport := &http.Transport{
		Proxy:                 nil, // never the environment's proxy: the gate decides, not HTTP_PROXY
		DialContext:           safeDialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	p.out = transport
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// A proxied request carries the absolute URL; forward it as it is.
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Del("Proxy-Connection")
			pr.Out.Header.Del("Proxy-Authorization")
		},
		Transport: transport,
		// An origin that cannot be reached fails as it would without a proxy, as a network
		// error rather than an HTTP answer the app never gave.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.noteUnreachable(r.URL.String(), err)
			hangUp(w)
		},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// url is what Chromium's --proxy-server and a browser context's proxyServer name.
func (p *gateProxy) url() string { return "http://" + p.ln.Addr().String() }

// use makes g the gate of the requests from now on; nil refuses all of them, and also closes
// every tunnel still open, so no WebSocket or stream of one replay outlives it.
func (p *gateProxy) use(g *originGate) {
	p.gate.Store(g)
	if g != nil {
		return
	}
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.tunnels))
	for c := range p.tunnels {
		conns = append(conns, c)
	}
	clear(p.unreachable)
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

func (p *gateProxy) close() {
	_ = p.srv.Close()
	p.use(nil)
	p.out.CloseIdleConnections()
}

// refuse answers a request the gate refused, without a connection anywhere: the tab's own
// interception reports what a replay's steps navigate to, so the proxy only says no.
func (p *gateProxy) refuse(w http.ResponseWriter, what, why string) {
	w.Header().Set("Connection", "close")
	http.Error(w, "blocked by the replay's origin gate: "+what+": "+why, http.StatusForbidden)
}

// ServeHTTP gates and forwards one proxied request: a CONNECT tunnel (HTTPS, and WebSockets,
// which Chromium tunnels through an HTTP proxy whatever their scheme) or a plain HTTP request,
// an upgrade included.
func (p *gateProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g := p.gate.Load()
	if r.Method == http.MethodConnect {
		if g == nil {
			p.refuse(w, "CONNECT "+r.Host, "no replay holds the browser context")
			return
		}
		if why := g.refuseHostPort(r.Host); why != "" {
			p.refuse(w, "CONNECT "+r.Host, why)
			return
		}
		p.tunnel(w, r)
		return
	}
	if r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "https") {
		http.Error(w, "this is the replay's network proxy; it serves proxied requests only", http.StatusBadRequest)
		return
	}
	if g == nil {
		p.refuse(w, r.Method+" "+r.URL.String(), "no replay holds the browser context")
		return
	}
	if why := g.refuse(r.URL.String()); why != "" {
		p.refuse(w, r.Method+" "+r.URL.String(), why)
		return
	}
	// A service worker outlives its page and its replay and answers for the origin from then
	// on; replays run without them, so its script is refused (the page goes on without one).
	if r.Header.Get("Service-Worker") == "script" {
		p.refuse(w, r.Method+" "+r.URL.String(), "service workers are off in replays")
		return
	}
	if strings.EqualFold(r.Header.Get("Connection"), "upgrade") || r.Header.Get("Upgrade") != "" {
		w = &trackedWriter{ResponseWriter: w, p: p}
	}
	p.fwd.ServeHTTP(w, r)
}

// tunnel answers a CONNECT the gate allowed: it dials the target and copies both ways until
// either end closes or the replay ends.
func (p *gateProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), proxyDialTimeout)
	up, err := safeDialer.DialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		p.noteUnreachable(r.Host, err)
		hangUp(w)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "tunnels are not supported here", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if !p.track(down, up) {
		return
	}
	defer p.untrack(down, up)
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// What the client sent after the CONNECT line and that the server read ahead.
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			_, _ = up.Write(b)
		}
		_, _ = io.Copy(up, down)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(down, up)
		done <- struct{}{}
	}()
	<-done
}

// maxUnreachable bounds what the proxy remembers of failed connections in one replay.
const maxUnreachable = 1000

func (p *gateProxy) noteUnreachable(key string, err error) {
	p.mu.Lock()
	if len(p.unreachable) < maxUnreachable {
		p.unreachable[key] = netErrorName(err)
	}
	p.mu.Unlock()
}

// whyUnreachable names the network error of a request the proxy could not forward, "" when
// it did not fail to connect.
func (p *gateProxy) whyUnreachable(rawURL string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if why, ok := p.unreachable[rawURL]; ok {
		return why
	}
	if u, err := url.Parse(rawURL); err == nil && (u.Scheme == "https" || u.Scheme == "wss") {
		h, port := hostPortOf(u)
		return p.unreachable[net.JoinHostPort(h, port)]
	}
	return ""
}

// netErrorName names a dial error as Chromium names the same failure of its own connections.
func netErrorName(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, errRefusedAddr):
		return "net::ERR_ADDRESS_INVALID (a link-local, metadata or unspecified address)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "net::ERR_CONNECTION_REFUSED"
	case errors.Is(err, syscall.ECONNRESET):
		return "net::ERR_CONNECTION_RESET"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "net::ERR_ADDRESS_UNREACHABLE"
	case errors.As(err, &dns):
		return "net::ERR_NAME_NOT_RESOLVED"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "net::ERR_CONNECTION_TIMED_OUT"
	}
	return "net::ERR_CONNECTION_FAILED (" + err.Error() + ")"
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = c.Close()
		return
	}
	panic(http.ErrAbortHandler)
}

// track registers the ends of a tunnel, unless the replay ended meanwhile.
func (p *gateProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate.Load() == nil {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = true
	}
	return true
}

func (p *gateProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	for _, c := range conns {
		delete(p.tunnels, c)
		_ = c.Close()
	}
	p.mu.Unlock()
}

// trackedWriter hands the proxy the client side of an upgraded connection (a WebSocket over
// plain HTTP), so the replay's end closes it.
type trackedWriter struct {
	http.ResponseWriter
	p *gateProxy
}

func (t *trackedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := t.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the connection cannot be taken over")
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if !t.p.track(c) {
		return nil, nil, errors.New("the replay ended")
	}
	return &untrackOnClose{Conn: c, p: t.p}, rw, nil
}

// untrackOnClose forgets a tracked connection when it closes.
type untrackOnClose struct {
	net.Conn
	p    *gateProxy
	once sync.Once
}

func (u *untrackOnClose) Close() error {
	u.once.Do(func() {
		u.p.mu.Lock()
		delete(u.p.tunnels, u.Conn)
		u.p.mu.Unlock()
	})
	return u.Conn.Close()
}

// hostPortOf splits an authority into host and port, the port defaulted for scheme.
func hostPortOf(u *url.URL) (string, string) {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https", "wss":
			port = "443"
		default:
			port = "80"
		}
	}
	return strings.ToLower(u.Hostname()), port
}
