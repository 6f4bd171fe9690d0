// Package spaapp is the second drift laboratory, built unlike the shop of package demoapp: a
// single-page team admin app, "Crewdesk", with client-side routing (the history API), custom
// elements that render into open shadow roots (navigation, the members table, dialogs, toasts,
// forms), a same-origin payment iframe, a table with row actions and pagination, content that
// loads after a spinner, toasts and dialogs. Like the shop it serves a baseline every saved test
// passes on and named variants that drift, regress or change nothing, switched on a live server;
// it records which element each click and fill reached (by its data-rec key, in the page and in
// the frame) and which API requests it served. Everything is embedded: plain HTML and JS, no
// build step, nothing loaded from the network.
package spaapp

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

//go:embed assets testdata/tests/*.json
var files embed.FS

// adminPrefix reserves the app's own endpoints (variant switching, the record).
const adminPrefix = "/__"

// App is one Crewdesk with its own data, variant and record; several can serve side by side.
type App struct {
	variant atomic.Pointer[string]
	rec     appkit.Recorder
	shell   *template.Template
	frame   *template.Template

	mu         sync.Mutex
	workspaces map[string]*workspace // by the visitor's workspace cookie
	seq        int                   // numbers workspaces: deterministic, never random
}

// workspace is one visitor's copy of the team: every browser session gets its own seeded copy
// (a sandbox tenant), so a test that deletes a member leaves the next replay the seed data.
type workspace struct {
	members  []Member
	nextID   int
	settings Settings
}

// workspaceCookie names the visitor's workspace.
const workspaceCookie = "cd_ws"

func newWorkspace() *workspace {
	m := seedMembers()
	return &workspace{members: m, nextID: len(m) + 1, settings: Settings{TeamName: "Crewdesk Team"}}
}

// ws returns the request's workspace, a new one when its cookie names none; the caller holds
// a.mu.
func (a *App) ws(r *http.Request) *workspace {
	if c, err := r.Cookie(workspaceCookie); err == nil {
		if w, ok := a.workspaces[c.Value]; ok {
			return w
		}
	}
	return a.workspaces[""]
}

// New returns an App serving the baseline with the seed members and an empty record.
func New() *App {
	a := &App{
		shell: template.Must(template.ParseFS(files, "assets/shell.html")),
		frame: template.Must(template.ParseFS(files, "assets/payment.html")),
	}
	name := BaselineName
	a.variant.Store(&name)
	a.resetData()
	return a
}

// Variant returns the name of the variant being served.
func (a *App) Variant() string { return *a.variant.Load() }

// SetVariant switches the variant for every request that starts afterwards. Safe for concurrent
// use.
func (a *App) SetVariant(name string) error {
	if err := variants.Check(name); err != nil {
		return err
	}
	a.variant.Store(&name)
	return nil
}

// Events returns a copy of the record so far.
func (a *App) Events() []Event {
	e, _ := a.rec.Snapshot()
	return e
}

// ResetRecord empties the record.
func (a *App) ResetRecord() { a.rec.Reset() }

// Reset forgets every workspace: each visitor gets the seed members and settings again; the
// variant and the record are kept.
func (a *App) Reset() { a.resetData() }

func (a *App) resetData() {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The workspace of requests without a cookie (an API client).
	a.workspaces = map[string]*workspace{"": newWorkspace()}
	a.seq = 0
}

// variantOf is the variant pinned for a request when it arrived.
func (a *App) variantOf(r *http.Request) string {
	if v, ok := appkit.VariantOf(r); ok {
		return v
	}
	return a.Variant()
}

// on reports whether the request's variant includes name.
func (a *App) on(r *http.Request, name string) bool { return includes(a.variantOf(r), name) }

// Handler serves the app shell for every client-side route, the payment frame, the JSON API, the
// assets and the admin endpoints under /__ (the same as the shop's):
//
//	GET  /__variant, POST /__variant?name=X, GET /__variants
//	GET  /__record, POST /__record, POST /__record/reset, POST /__reset
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(files, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /frames/payment", a.paymentFrame)

	mux.HandleFunc("GET /api/members", a.apiMembers)
	mux.HandleFunc("POST /api/members", a.apiInvite)
	mux.HandleFunc("GET /api/members/{id}", a.apiMember)
	mux.HandleFunc("PUT /api/members/{id}", a.apiSaveMember)
	mux.HandleFunc("DELETE /api/members/{id}", a.apiDeleteMember)
	mux.HandleFunc("GET /api/invoice", a.apiInvoice)
	mux.HandleFunc("POST /api/payments", a.apiPay)
	mux.HandleFunc("GET /api/reports", a.apiReports)
	mux.HandleFunc("GET /api/settings", a.apiSettings)
	mux.HandleFunc("PUT /api/settings", a.apiSaveSettings)

	mux.HandleFunc("GET /__variant", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"name": a.Variant()})
	})
	mux.HandleFunc("POST /__variant", func(w http.ResponseWriter, r *http.Request) {
		if err := a.SetVariant(r.URL.Query().Get("name")); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error(), "known": VariantNames()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"name": a.Variant()})
	})
	mux.HandleFunc("GET /__variants", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, Variants()) })
	mux.HandleFunc("GET /__record", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"variant": a.Variant(), "events": a.Events()})
	})
	mux.HandleFunc("POST /__record", a.rec.PageHandler(a.variantOf))
	mux.HandleFunc("POST /__record/reset", func(w http.ResponseWriter, _ *http.Request) {
		a.ResetRecord()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /__reset", func(w http.ResponseWriter, _ *http.Request) {
		a.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	// Every other GET is a client-side route: the shell loads and the router draws the page
	// (or its own "page not found").
	mux.HandleFunc("GET /", a.serveShell)
	// The variant is read once per request, so a switch in the middle of a request never mixes
	// two variants in one response; nothing is cached, so a switch shows on the next load.
	return appkit.PinVariant(a.Variant, a.rec.Requests(appkit.NoStore(mux), keepRequest, false, a.variantOf))
}

// shellData is what the shell and the payment frame templates read.
type shellData struct {
	Variant string
	Amount  string
}

func (a *App) serveShell(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no API endpoint GET " + r.URL.Path})
		return
	}
	a.mu.Lock()
	if c, err := r.Cookie(workspaceCookie); err != nil || a.workspaces[c.Value] == nil {
		a.seq++
		id := "ws" + strconv.Itoa(a.seq)
		a.workspaces[id] = newWorkspace()
		http.SetCookie(w, &http.Cookie{Name: workspaceCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	}
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = a.shell.Execute(w, shellData{Variant: a.variantOf(r)})
}

func (a *App) paymentFrame(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = a.frame.Execute(w, shellData{Variant: a.variantOf(r), Amount: a.invoice(r).Due.String()})
}

// pause waits d or until the request is abandoned: the API's latency behind the spinners.
func pause(r *http.Request, d time.Duration) {
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}
