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
	"time"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

//go:embed assets testdata/tests/*.json
var files embed.FS

// adminPrefix reserves the app's own endpoints (variant switching, the record).
const adminPrefix = "/__"

// App is one Crewdesk with its own data, variant and record; several can serve side by side.
type App struct {
	// Core is the variant served and the record: Variant, SetVariant, Events, ResetRecord.
	appkit.Core
	shell *template.Template
	frame *template.Template

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
	profile  Profile
}

// workspaceCookie names the visitor's workspace.
const workspaceCookie = "cd_ws"

func newWorkspace() *workspace {
	m := seedMembers()
	return &workspace{members: m, nextID: len(m) + 1, settings: Settings{TeamName: "Crewdesk Team"}, profile: Profile{DisplayName: "Grace Hopper", Theme: "system", TimeZone: "utc"}}
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
	a.Init(variants, appkit.MergeAdjacentFill)
	a.resetData()
	return a
}

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
func (a *App) variantOf(r *http.Request) string { return a.VariantOf(r) }

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
	mux.HandleFunc("GET /api/profile", a.apiProfile)
	mux.HandleFunc("PUT /api/profile", a.apiSaveProfile)

	// Every other GET is a client-side route: the shell loads and the router draws the page
	// (or its own "page not found").
	mux.HandleFunc("GET /", a.serveShell)
	return a.Core.Handler(mux, appkit.Admin{Record: a.record, Reset: a.Reset, Keep: keepRequest})
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
