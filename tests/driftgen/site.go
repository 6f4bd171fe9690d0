package driftgen

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:embed runtime.js
var runtimeJS string

// The runtime reports to these paths on the app's own origin, so no allowed-origin list has to
// name the generator; the server answers them and never passes them to the app.
const (
	hitPath     = "/__driftgen/hit"
	appliedPath = "/__driftgen/applied"
)

// Hit is one event the page runtime saw on a marked element.
type Hit struct {
	Key  string  `json:"key"`
	Type string  `json:"type"`
	At   float64 `json:"at"`
	Seq  int     `json:"seq"`
}

// Site serves an app with the page runtime injected into every HTML document, and with at most
// one mutation applied. Without a mutation it only marks and reports, as the baseline.
type Site struct {
	app     http.Handler
	targets []Target

	mu      sync.Mutex
	mut     *Mutation
	gen     int // the load's generation: live values, hashes and orders differ between generations
	hits    []Hit
	applied string // the mutated target's XPath after the mutation, as the page reported it
	wasSet  bool   // the page reported the mutation applied
}

// NewSite wraps app, marking targets on its pages.
func NewSite(app http.Handler, targets []Target) *Site {
	return &Site{app: app, targets: targets}
}

// Set applies m from the next request on (nil: none) and forgets what was reported.
func (s *Site) Set(m *Mutation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mut, s.hits, s.applied, s.wasSet = m, nil, "", false
}

// SetGen serves the app's live data of generation n from the next request on: other counts and
// prices, another build's class hashes, another order of a list (generation 0 is the one the
// mutation was first served with). Nothing else changes.
func (s *Site) SetGen(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen = n
}

// TakeHits returns the hits reported since the last call, in the order they happened.
func (s *Site) TakeHits() []Hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.hits
	s.hits = nil
	slices.SortStableFunc(out, func(a, b Hit) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return a.Seq - b.Seq
	})
	return out
}

// Applied reports whether a page applied the mutation, and the target's XPath after it ("" when
// the mutation removed it or made no target of its own).
func (s *Site) Applied() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wasSet, s.applied
}

// ServeHTTP answers the runtime's reports, fails the mutation's request with a 500, and
// injects the runtime into HTML documents.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case hitPath, appliedPath:
		s.report(w, r)
		return
	}
	s.mu.Lock()
	m, gen := s.mut, s.gen
	s.mu.Unlock()
	if m != nil && m.Kind == HTTP500 && r.Method == m.Method && r.URL.Path == m.Path {
		s.mu.Lock()
		s.wasSet = true
		s.mu.Unlock()
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	iw := &injector{w: w, script: s.script(m, gen)}
	s.app.ServeHTTP(iw, r)
	iw.finish()
}

func (s *Site) report(w http.ResponseWriter, r *http.Request) {
	body := []byte(r.URL.Query().Get("r"))
	if r.Method != http.MethodGet || len(body) == 0 || len(body) > 1<<16 {
		http.Error(w, "a report is a GET with its JSON in the query parameter r", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == hitPath {
		var h Hit
		if err := json.Unmarshal(body, &h); err != nil {
			http.Error(w, "bad hit: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.hits = append(s.hits, h)
	} else {
		var a struct {
			XPath string `json:"xpath"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			http.Error(w, "bad report: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !s.wasSet {
			s.wasSet, s.applied = true, a.XPath
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// script is the runtime with its configuration, as a script element.
func (s *Site) script(m *Mutation, gen int) string {
	type jsMut struct {
		Kind string         `json:"kind"`
		Key  string         `json:"key"`
		P    map[string]any `json:"p,omitempty"`
	}
	cfg := struct {
		Targets    []Target `json:"targets"`
		Mutation   *jsMut   `json:"mutation,omitempty"`
		HitURL     string   `json:"hitURL"`
		AppliedURL string   `json:"appliedURL"`
		Gen        int      `json:"gen"`
	}{Targets: s.targets, HitURL: hitPath, AppliedURL: appliedPath, Gen: gen}
	if cfg.Targets == nil {
		cfg.Targets = []Target{}
	}
	if m != nil {
		cfg.Mutation = &jsMut{Kind: jsKind(m.Kind), Key: m.Key, P: m.Params}
	}
	// json.Marshal escapes <, > and &, so nothing in the config can close the script element.
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(fmt.Sprintf("driftgen: the runtime configuration does not encode: %v", err))
	}
	return "<script>" + strings.Replace(runtimeJS, "/*CONFIG*/ null", string(b), 1) + "</script>"
}

// injector passes every response through, except an uncompressed HTML document, which it
// holds to add the runtime as the first script of its head.
type injector struct {
	w      http.ResponseWriter
	script string
	status int
	hold   bool
	buf    bytes.Buffer
	header bool
}

func (i *injector) Header() http.Header { return i.w.Header() }

func (i *injector) WriteHeader(code int) {
	if i.header {
		return
	}
	i.header, i.status = true, code
	h := i.w.Header()
	i.hold = strings.HasPrefix(h.Get("Content-Type"), "text/html") && h.Get("Content-Encoding") == "" && code != http.StatusNoContent && code != http.StatusNotModified
	if !i.hold {
		i.w.WriteHeader(code)
	}
}

func (i *injector) Write(b []byte) (int, error) {
	if !i.header {
		if i.w.Header().Get("Content-Type") == "" {
			i.w.Header().Set("Content-Type", http.DetectContentType(b))
		}
		i.WriteHeader(http.StatusOK)
	}
	if i.hold {
		return i.buf.Write(b)
	}
	return i.w.Write(b)
}

// Flush passes streaming responses (server-sent events) straight through.
func (i *injector) Flush() {
	if f, ok := i.w.(http.Flusher); ok && !i.hold {
		f.Flush()
	}
}

// Hijack keeps WebSocket upgrades working through the wrapper.
func (i *injector) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := i.w.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, fmt.Errorf("driftgen: the server's response writer cannot be hijacked")
}

func (i *injector) finish() {
	if !i.hold {
		return
	}
	out := injectScript(i.buf.Bytes(), i.script)
	i.w.Header().Del("Content-Length")
	i.w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	i.w.WriteHeader(i.status)
	i.w.Write(out)
}

// injectScript puts script right after the opening head tag, or the html tag, or first.
func injectScript(doc []byte, script string) []byte {
	lower := bytes.ToLower(doc)
	at := 0
	for _, tag := range []string{"<head", "<html"} {
		if k := openTag(lower, tag); k >= 0 {
			if end := bytes.IndexByte(doc[k:], '>'); end >= 0 {
				at = k + end + 1
				break
			}
		}
	}
	out := make([]byte, 0, len(doc)+len(script))
	out = append(out, doc[:at]...)
	out = append(out, script...)
	return append(out, doc[at:]...)
}

// openTag finds the opening tag named by tag ("<head"), not a longer name that starts the same
// ("<header").
func openTag(lower []byte, tag string) int {
	for off := 0; ; {
		k := bytes.Index(lower[off:], []byte(tag))
		if k < 0 {
			return -1
		}
		k += off
		if e := k + len(tag); e < len(lower) && (lower[e] == '>' || lower[e] == ' ' || lower[e] == '\t' || lower[e] == '\n' || lower[e] == '\r') {
			return k
		}
		off = k + len(tag)
	}
}
