// Package console is the review console: server-rendered pages (html/template, embedded
// assets, no build step) where people see and decide what the gardener did. The pages call the
// same domain services as the review API (the store, the lifecycle, the radar's queue) and the
// API's own operations for what the API does beyond them (settings with their validation and
// optimistic concurrency, the manual ladder, a revert's notification). The router in
// pkg/handler mounts Routes beside the API's routes; it authorizes every page per project
// exactly as it authorizes the API, and this package checks who is signed in and the CSRF token
// of every POST.
package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Prefix is where the console is served; every console route starts with it.
const Prefix = "/console"

// ActionError is a refusal a page answers with its own HTTP status: the API's answer to the
// same request (access to a project).
type ActionError struct {
	Status  int
	Message string
}

func (e *ActionError) Error() string { return e.Message }

// Deps are the console's dependencies.
type Deps struct {
	Store gardener.Store
	// App is the application layer: every action a page takes is one of its use cases, the
	// same the API and the other doors call.
	App  *gardening.Service
	Auth *Auth
	// Here is what a use case that replays in this process (Run now, Sweep now) runs with for a
	// project's tests: the browser and the base URL of the process serving the console. A
	// process without a browser gives none, and those actions answer that they cannot run here.
	Here func(projectID string) gardening.Here
	Now  func() time.Time
	Log  *slog.Logger
}

// Console serves the pages.
type Console struct {
	Deps
	pages  map[string]*template.Template
	assets http.Handler
}

// New builds the console; its templates are parsed here, so a broken one fails the cold start.
func New(d Deps) (*Console, error) {
	var missing []string
	if d.Store == nil {
		missing = append(missing, "Store")
	}
	if d.App == nil {
		missing = append(missing, "App")
	}
	if d.Auth == nil {
		missing = append(missing, "Auth")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the console is built without %v", missing)
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, fmt.Errorf("console assets: %w", err)
	}
	c := &Console{Deps: d, pages: pages, assets: http.StripPrefix(Prefix+"/assets/", http.FileServer(http.FS(sub)))}
	return c, nil
}

func (c *Console) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Console) here(projectID string) gardening.Here {
	if c.Here == nil {
		return gardening.Here{}
	}
	return c.Here(projectID)
}

func (c *Console) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}

// Access says what a route asks of its visitor before it is served.
type Access int

// Accesses.
const (
	// Public routes are served to anyone: signing in and the static assets.
	Public Access = iota
	// SignedIn routes need a signed-in visitor but name no project's object.
	SignedIn
	// Authorized routes name an object (a project, test, run, proposal or repair); the router
	// serves them only to a visitor who may act on its project.
	Authorized
)

// Page serves one console route to an authorized visitor.
type Page func(c *Console, w http.ResponseWriter, r *http.Request, v Visitor)

// Route is one console route: a net/http pattern, what it asks of the visitor, and its page.
type Route struct {
	Pattern string
	Access  Access
	Page    Page
}

// Routes are the console's routes. The router in pkg/handler mounts them beside the API's.
func Routes() []Route {
	return []Route{
		{"GET " + Prefix, SignedIn, (*Console).home},
		{"GET " + Prefix + "/assets/{asset}", Public, (*Console).asset},
		{"GET " + Prefix + "/signin", Public, (*Console).signInPage},
		{"POST " + Prefix + "/signin", Public, (*Console).signIn},
		{"GET " + Prefix + "/callback", Public, (*Console).callback},
		{"POST " + Prefix + "/signout", SignedIn, (*Console).signOut},
		{"GET " + Prefix + "/projects/{projectId}", Authorized, (*Console).radarPage},
		{"GET " + Prefix + "/projects/{projectId}/tests", Authorized, (*Console).testsPage},
		{"GET " + Prefix + "/projects/{projectId}/settings", Authorized, (*Console).settingsPage},
		{"POST " + Prefix + "/projects/{projectId}/settings", Authorized, (*Console).saveSettings},
		{"GET " + Prefix + "/tests/{testId}", Authorized, (*Console).testPage},
		{"GET " + Prefix + "/runs/{runId}", Authorized, (*Console).runPage},
		{"POST " + Prefix + "/runs/{runId}/repair", Authorized, (*Console).startRepair},
		{"GET " + Prefix + "/executions/{executionId}/events", Authorized, (*Console).executionEvents},
		{"POST " + Prefix + "/proposals/{proposalId}/approve", Authorized, (*Console).approve},
		{"POST " + Prefix + "/proposals/{proposalId}/dismiss", Authorized, (*Console).dismiss},
		{"POST " + Prefix + "/repairs/{repairId}/revert", Authorized, (*Console).revert},
		{"POST " + Prefix + "/repairs/{repairId}/reviewed", Authorized, (*Console).reviewed},
		{"POST " + Prefix + "/projects/{projectId}/sweep", Authorized, (*Console).sweepNow},
		{"POST " + Prefix + "/tests/{testId}/runs", Authorized, (*Console).runNow},
	}
}

// Visitor is who a page is served to: the signed-in identity, the project the router authorized
// (for Authorized routes), and the CSRF token its forms carry.
type Visitor struct {
	Identity
	Project string
	CSRF    string
}

// Authorize finds the project of the object a request names and checks the identity may act on
// it; an error is answered as the API answers it (not found, for an object of another project).
type Authorize func(r *http.Request, who Identity) (projectID string, err error)

// Handler serves one route: it checks the visitor is signed in (else sends them to sign in),
// checks the CSRF token of a POST, asks authorize for an Authorized route, and serves the page.
// Every answer carries the console's security headers.
func (c *Console) Handler(rt Route, authorize Authorize) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		if rt.Access == Public {
			if r.Method == http.MethodPost {
				if err := checkForm(rt.Pattern, r); err != nil {
					c.problem(w, r, Visitor{}, http.StatusBadRequest, err.Error())
					return
				}
			}
			rt.Page(c, w, r, Visitor{})
			return
		}
		who, err := c.Auth.Identify(r)
		if err != nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, signInURL(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			c.problem(w, r, Visitor{}, http.StatusUnauthorized, "You are not signed in, or your session ended. Sign in and try again.")
			return
		}
		v := Visitor{Identity: who, CSRF: c.Auth.CSRFToken(r, who)}
		if r.Method == http.MethodPost {
			if err := c.checkCSRF(r, v); err != nil {
				c.log().Warn("console: csrf refused", "caller", who.ID, "path", r.URL.Path, "error", err.Error())
				c.problem(w, r, v, http.StatusForbidden, "This form is out of date or did not come from the console ("+err.Error()+"). Reload the page and try again.")
				return
			}
		}
		if r.Method == http.MethodPost {
			if err := checkForm(rt.Pattern, r); err != nil {
				c.problem(w, r, v, http.StatusBadRequest, err.Error())
				return
			}
		}
		if err := gardening.CheckPathIDs(rt.Pattern, r.PathValue); err != nil {
			c.problem(w, r, v, http.StatusBadRequest, err.Error())
			return
		}
		if rt.Access == Authorized {
			project, err := authorize(r, who)
			if err != nil {
				status := http.StatusInternalServerError
				if errors.Is(err, gardener.ErrNotFound) {
					status = http.StatusNotFound
				} else if ae := (*ActionError)(nil); errors.As(err, &ae) {
					status = ae.Status
				}
				c.problem(w, r, v, status, err.Error())
				return
			}
			v.Project = project
		}
		c.log().Info("console", "route", rt.Pattern, "caller", who.ID, "project", v.Project)
		rt.Page(c, w, r, v)
	})
}

// secure sets the headers every console answer carries: scripts and styles from the console
// only (no inline script can run, whatever a page shows), connections (the run page's event
// stream) to the console's own origin only, no framing, no sniffing.
func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

func (c *Console) asset(w http.ResponseWriter, r *http.Request, _ Visitor) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	c.assets.ServeHTTP(w, r)
}

// executionStatus is an execution's status, as the event stream reads it.
func (c *Console) executionStatus(ctx context.Context, id string) (string, error) {
	status, _, err := c.App.ExecutionStatus(ctx, id)
	return status, err
}
