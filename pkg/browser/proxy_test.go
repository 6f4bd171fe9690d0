package browser

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGateProxy drives the proxy as Chromium does, without a browser: it forwards what the gate
// allows, refuses the rest without connecting anywhere (a canary counts accepted connections),
// tunnels CONNECT only to allowed host:ports, refuses service worker scripts, and refuses
// everything once no replay holds it.
func TestGateProxy(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "app") }))
	defer app.Close()
	canaryLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepts atomic.Int64
	go func() {
		for {
			c, err := canaryLn.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	defer canaryLn.Close()
	canary := "http://" + canaryLn.Addr().String()

	p, err := startProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	gate, err := newOriginGate(app.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.use(gate)
	proxyURL, _ := url.Parse(p.url())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	get := func(u string, header ...string) int {
		req, _ := http.NewRequest("GET", u, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := get(app.URL + "/x"); got != 200 {
		t.Errorf("an allowed origin answered %d through the proxy", got)
	}
	for _, u := range []string{canary + "/", "http://0.0.0.0:" + strings.Split(canary, ":")[2] + "/", "http://[::ffff:169.254.169.254]/", "http://169.254.169.254/latest/meta-data/", "http://[64:ff9b::a9fe:a9fe]/"} {
		if got := get(u); got != http.StatusForbidden {
			t.Errorf("GET %s through the proxy: %d, want 403", u, got)
		}
	}
	if got := get(app.URL+"/sw.js", "Service-Worker", "script"); got != http.StatusForbidden {
		t.Errorf("a service worker script was fetched: %d", got)
	}
	connect := func(hostport string) string {
		c, err := net.Dial("tcp", proxyURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.TrimSpace(line)
	}
	if got := connect(strings.TrimPrefix(canary, "http://")); !strings.Contains(got, "403") {
		t.Errorf("CONNECT to the canary: %q, want 403", got)
	}
	if got := connect(strings.TrimPrefix(app.URL, "http://")); !strings.Contains(got, "200") {
		t.Errorf("CONNECT to the allowed origin: %q, want 200", got)
	}
	p.use(nil)
	if got := get(app.URL + "/x"); got != http.StatusForbidden {
		t.Errorf("with no replay holding the proxy, the allowed origin of the last one answered %d", got)
	}
	if n := accepts.Load(); n != 0 {
		t.Errorf("the canary accepted %d connections", n)
	}
	if _, err := safeDialer.Dial("tcp", "169.254.169.254:80"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("the proxy's dialer reached for the metadata address: %v", err)
	}
}
