package console_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// provider is an identity provider speaking the authorization-code flow with PKCE: it remembers
// the challenge and nonce of each code it hands out and issues an ID token only for the
// matching verifier.
type provider struct {
	srv    *httptest.Server
	claims map[string]any // what the next ID token says, beside iss, nonce
	codes  map[string][2]string
}

func newProvider(t *testing.T) *provider {
	p := &provider{codes: map[string][2]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token"})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		code := p.codes[r.PostFormValue("code")]
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		if r.PostFormValue("grant_type") != "authorization_code" || code[0] == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != code[0] {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		claims := map[string]any{"iss": p.srv.URL, "nonce": code[1]}
		for k, v := range p.claims {
			claims[k] = v
		}
		b, _ := json.Marshal(claims)
		tok := "eyJhbGciOiJSUzI1NiJ9." + base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
		_ = json.NewEncoder(w).Encode(map[string]string{"id_token": tok, "token_type": "Bearer"})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// authorize plays the person signing in at the provider: it checks the request and answers
// with the redirect to the console's callback.
func (p *provider) authorize(t *testing.T, loc string) string {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil || !strings.HasPrefix(loc, p.srv.URL+"/authorize?") {
		t.Fatalf("sign-in went to %q, want the provider's authorization endpoint", loc)
	}
	q := u.Query()
	for k, want := range map[string]string{"response_type": "code", "client_id": "console-client", "code_challenge_method": "S256"} {
		if q.Get(k) != want {
			t.Errorf("authorization request %s = %q, want %q", k, q.Get(k), want)
		}
	}
	code := fmt.Sprintf("code-%d", len(p.codes))
	p.codes[code] = [2]string{q.Get("code_challenge"), q.Get("nonce")}
	return q.Get("redirect_uri") + "?code=" + code + "&state=" + url.QueryEscape(q.Get("state"))
}

// noActions are the API operations of a console that these tests never ask for.
type noActions struct{}

func (noActions) UpdateSettings(context.Context, console.Identity, string, int, console.Settings) (gardener.Project, error) {
	return gardener.Project{}, &console.ActionError{Status: http.StatusNotImplemented, Message: "not in this test"}
}
func (noActions) StartRepair(context.Context, console.Identity, string, []gardener.Strategy) (string, error) {
	return "", &console.ActionError{Status: http.StatusNotImplemented, Message: "not in this test"}
}
func (noActions) ExecutionStatus(context.Context, string) (string, error) { return "", nil }
func (noActions) Revert(context.Context, console.Identity, string) (lifecycle.Reverted, error) {
	return lifecycle.Reverted{}, &console.ActionError{Status: http.StatusNotImplemented, Message: "not in this test"}
}

// TestSignInWithTheIdentityProvider: in AWS the console signs people in with the provider
// (authorization code + PKCE); the ID token's issuer, audience, expiry and nonce are checked,
// and its email and projects claim become the session.
func TestSignInWithTheIdentityProvider(t *testing.T) {
	w := seed(t)
	idp := newProvider(t)
	var srv *httptest.Server
	oidc := &console.OIDC{Issuer: idp.srv.URL, ClientID: "console-client"}
	auth, err := console.NewAuth([]byte(strings.Repeat("k", 32)), false, oidc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Deps{Store: w.store, Actions: noActions{}, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		id := r.PathValue("projectId")
		if !who.May(id) {
			return "", &gardener.NotFoundError{Entity: "project", ID: id}
		}
		return id, nil
	}
	for _, rt := range console.Routes() {
		mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	oidc.RedirectURL = srv.URL + "/console/callback"

	signIn := func(claims map[string]any) (int, *client) {
		idp.claims = claims
		cl := newClient(t, srv.URL)
		status, _, h := cl.do("GET", "/console/projects/shop", nil, nil)
		if status != http.StatusSeeOther {
			t.Fatalf("signed out: %d", status)
		}
		status, _, h = cl.do("GET", h.Get("Location"), nil, nil)
		if status != http.StatusSeeOther {
			t.Fatalf("the sign-in page: %d, want a redirect to the provider", status)
		}
		back := idp.authorize(t, h.Get("Location"))
		status, _, h = cl.do("GET", strings.TrimPrefix(back, srv.URL), nil, nil)
		if status == http.StatusSeeOther && h.Get("Location") != "/console/projects/shop" {
			t.Errorf("after the callback the browser goes to %q, want back to the page it asked for", h.Get("Location"))
		}
		return status, cl
	}
	exp := time.Now().Add(time.Hour).Unix()
	status, ann := signIn(map[string]any{"aud": "console-client", "exp": exp, "email": "ann@example.com", "projects": "shop"})
	if status != http.StatusSeeOther {
		t.Fatalf("a good sign-in: %d", status)
	}
	if status, body, _ := ann.do("GET", "/console/projects/shop", nil, nil); status != http.StatusOK || !strings.Contains(body, "ann@example.com") {
		t.Errorf("signed in with the provider: %d", status)
	}
	if status, _, _ := ann.do("GET", "/console/projects/other", nil, nil); status != http.StatusNotFound {
		t.Errorf("a project the projects claim does not name: %d, want 404", status)
	}
	for name, claims := range map[string]map[string]any{
		"another audience": {"aud": "someone-else", "exp": exp, "email": "m@example.com", "projects": "*"},
		"expired":          {"aud": "console-client", "exp": time.Now().Add(-time.Minute).Unix(), "email": "m@example.com", "projects": "*"},
		"another issuer":   {"iss": "https://evil.example", "aud": "console-client", "exp": exp, "email": "m@example.com", "projects": "*"},
		"another nonce":    {"nonce": "replayed", "aud": "console-client", "exp": exp, "email": "m@example.com", "projects": "*"},
	} {
		if status, _ := signIn(claims); status != http.StatusUnauthorized {
			t.Errorf("%s: the callback answered %d, want 401", name, status)
		}
	}
	// A callback this browser did not start (another state) signs nobody in.
	cl := newClient(t, srv.URL)
	_, _, h := cl.do("GET", "/console/signin", nil, nil)
	back := idp.authorize(t, h.Get("Location"))
	forged := strings.Replace(back, "state=", "state=x", 1)
	if status, _, _ := cl.do("GET", strings.TrimPrefix(forged, srv.URL), nil, nil); status != http.StatusBadRequest {
		t.Errorf("a callback with another state: %d, want 400", status)
	}
}
