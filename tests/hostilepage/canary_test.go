package hostilepage

import (
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// canary is a server on loopback ports that no replay is allowed to reach: it counts every TCP
// connection it accepts (on IPv4 and, where the machine has it, IPv6 loopback), every HTTP
// request that arrives on them, and every UDP datagram on the same IPv4 port (a STUN probe).
// A gate that holds leaves all of them at zero.
type canary struct {
	port     int
	accepts  atomic.Int64
	datagram atomic.Int64
	mu       sync.Mutex
	requests []string // "METHOD /path?b=behaviour"
	closers  []func()
}

func startCanary(t testing.TB) *canary {
	t.Helper()
	c := &canary{}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("canary: %v", err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	c.serve(ln)
	// The same port on IPv6 loopback, for the [::1] and mapped forms; absent on a host
	// without IPv6, where those forms cannot connect anywhere anyway.
	if ln6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", c.port)); err == nil {
		c.serve(ln6)
	}
	if pc, err := net.ListenPacket("udp4", fmt.Sprintf("127.0.0.1:%d", c.port)); err == nil {
		c.closers = append(c.closers, func() { _ = pc.Close() })
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, _, err := pc.ReadFrom(buf); err != nil {
					return
				}
				c.datagram.Add(1)
			}
		}()
	}
	t.Cleanup(c.close)
	return c
}

func (c *canary) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.requests = append(c.requests, r.Method+" "+r.URL.RequestURI())
		c.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "canary")
	})}
	go func() { _ = srv.Serve(&countingListener{Listener: ln, n: &c.accepts}) }()
	c.closers = append(c.closers, func() { _ = srv.Close() })
}

func (c *canary) close() {
	for _, f := range c.closers {
		f()
	}
}

// origin is the canary's URL origin on IPv4 loopback.
func (c *canary) origin() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// seen says what reached the canary, "" when nothing did.
func (c *canary) seen() string {
	c.mu.Lock()
	reqs := append([]string(nil), c.requests...)
	c.mu.Unlock()
	n, d := c.accepts.Load(), c.datagram.Load()
	if n == 0 && d == 0 && len(reqs) == 0 {
		return ""
	}
	sort.Strings(reqs)
	return fmt.Sprintf("%d TCP connections, %d UDP datagrams, %d requests: %s", n, d, len(reqs), strings.Join(reqs, "; "))
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}
