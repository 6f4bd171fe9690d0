package console_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// provider is an identity provider speaking the authorization-code flow with PKCE: it remembers
// the challenge and nonce of each code it hands out and issues an ID token only for the
// matching verifier, signed RS256 with a key made for the test and published in its JWKS.
type provider struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	claims map[string]any // what the next ID token says, beside iss, nonce
	// forge, when set, makes the next ID token from its header and claims instead of signing
	// them with key.
	forge func(header, claims []byte) string
	codes map[string][2]string
	jwks  atomic.Int64 // JWKS reads
}

const providerKid = "test-key-1"

func newProvider(t *testing.T) *provider {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{key: key, codes: map[string][2]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize",
			"token_endpoint": p.srv.URL + "/token", "jwks_uri": p.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		p.jwks.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{jwk(providerKid, &p.key.PublicKey)}})
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
		header, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": providerKid, "typ": "JWT"})
		tok := signRS256(p.key, header, b)
		if p.forge != nil {
			tok = p.forge(header, b)
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"id_token": tok, "token_type": "Bearer"})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// jwk is an RSA public key as a JWKS publishes it.
func jwk(kid string, k *rsa.PublicKey) map[string]string {
	return map[string]string{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
		"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()), "e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())}
}

// signRS256 makes a JWS of header and claims signed with key.
func signRS256(key *rsa.PrivateKey, header, claims []byte) string {
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		panic(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
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

// idleStarter is a repair machine these tests never start: an execution's status is what the
// test sets (RUNNING until it says otherwise).
type idleStarter struct{ status atomic.Value }

func (*idleStarter) Start(context.Context, string, string, any) (string, error) {
	return "", errors.New("no repair machine in this test")
}

func (s *idleStarter) Describe(context.Context, string) (string, string, error) {
	st, _ := s.status.Load().(string)
	return st, "", nil
}

// appOver is the application layer the console's pages call, over the world's store.
func appOver(tb testing.TB, w *world, starter gardening.Starter) *gardening.Service {
	tb.Helper()
	if starter == nil {
		starter = &idleStarter{}
	}
	app, err := gardening.New(gardening.Deps{Store: w.store, Starter: starter, RepairMachine: "repair"})
	if err != nil {
		tb.Fatal(err)
	}
	return app
}

// oidcConsole serves a console that signs people in with idp; signIn goes through the whole
// flow with the next ID token saying claims, and answers the callback's status and body.
func oidcConsole(t *testing.T, idp *provider) (srvURL string, signIn func(claims map[string]any) (int, string, *client)) {
	w := seed(t)
	oidc := &console.OIDC{Issuer: idp.srv.URL, ClientID: "console-client"}
	auth, err := console.NewAuth([]byte(strings.Repeat("k", 32)), false, oidc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Deps{Store: w.store, App: appOver(t, w, nil), Auth: auth})
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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	oidc.RedirectURL = srv.URL + "/console/callback"
	return srv.URL, func(claims map[string]any) (int, string, *client) {
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
		status, body, h := cl.do("GET", strings.TrimPrefix(back, srv.URL), nil, nil)
		if status == http.StatusSeeOther && h.Get("Location") != "/console/projects/shop" {
			t.Errorf("after the callback the browser goes to %q, want back to the page it asked for", h.Get("Location"))
		}
		return status, body, cl
	}
}

// TestSignInWithTheIdentityProvider: in AWS the console signs people in with the provider
// (authorization code + PKCE); the ID token's signature, issuer, audience, expiry and nonce are
// checked, and its email and projects claim become the session.
func TestSignInWithTheIdentityProvider(t *testing.T) {
	idp := newProvider(t)
	srvURL, signInBody := oidcConsole(t, idp)
	signIn := func(claims map[string]any) (int, *client) {
		status, _, cl := signInBody(claims)
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
	cl := newClient(t, srvURL)
	_, _, h := cl.do("GET", "/console/signin", nil, nil)
	back := idp.authorize(t, h.Get("Location"))
	forged := strings.Replace(back, "state=", "state=x", 1)
	if status, _, _ := cl.do("GET", strings.TrimPrefix(forged, srvURL), nil, nil); status != http.StatusBadRequest {
		t.Errorf("a callback with another state: %d, want 400", status)
	}
}
