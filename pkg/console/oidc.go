package console

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// OIDC is the identity provider a deployed console signs people in with: the authorization-code
// flow with PKCE (a public client, no secret in the Lambda), the ID token taken straight from
// the provider's token endpoint over TLS (which is how OpenID Connect lets a client trust it
// without checking its signature) and checked for issuer, audience, expiry and nonce. Issuer and
// ClientID are the API's JWT issuer and audience, so the console and the API accept the same
// people; the "projects" claim is read as the API reads it.
type OIDC struct {
	Issuer   string
	ClientID string
	// RedirectURL is the console's callback as registered with the provider
	// (https://…/console/callback).
	RedirectURL string
	// Scopes asked for; empty is "openid email profile".
	Scopes []string
	Client *http.Client

	mu   sync.Mutex
	conf *providerConfig
}

// providerConfig is the part of the provider's discovery document the console uses.
type providerConfig struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
}

func (o *OIDC) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// discover reads the provider's endpoints, once it succeeds; a failed discovery is tried again
// on the next sign-in.
func (o *OIDC) discover(ctx context.Context) (providerConfig, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.conf != nil {
		return *o.conf, nil
	}
	u := strings.TrimSuffix(o.Issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s: %w", u, err)
	}
	resp, err := o.client().Do(req)
	if err != nil {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s answered %s", u, resp.Status)
	}
	var conf providerConfig
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&conf); err != nil {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s: %w", u, err)
	}
	if conf.Issuer != o.Issuer || conf.AuthorizationEndpoint == "" || conf.TokenEndpoint == "" {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s: issuer %q (want %q) or an endpoint is missing", u, conf.Issuer, o.Issuer)
	}
	o.conf = &conf
	return conf, nil
}

// flow is what the sign-in cookie carries while the person is at the provider.
type flow struct {
	State    string `json:"state"`
	Verifier string `json:"verifier"`
	Nonce    string `json:"nonce"`
	Next     string `json:"next"`
}

// redirect sends the person to the provider with a fresh state, nonce and PKCE verifier, which
// a signed cookie keeps until the callback.
func (o *OIDC) redirect(a *Auth, w http.ResponseWriter, r *http.Request, next string) {
	conf, err := o.discover(r.Context())
	if err != nil {
		http.Error(w, "sign-in is unavailable: "+err.Error(), http.StatusBadGateway)
		return
	}
	var f flow
	for _, p := range []*string{&f.State, &f.Verifier, &f.Nonce} {
		if *p, err = randomToken(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	f.Next = next
	b, _ := json.Marshal(f)
	a.setCookie(w, signinCookie, a.sign(b), 10*time.Minute)
	challenge := sha256.Sum256([]byte(f.Verifier))
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = []string{"openid", "email", "profile"}
	}
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {o.ClientID},
		"redirect_uri":          {o.RedirectURL},
		"scope":                 {strings.Join(scopes, " ")},
		"state":                 {f.State},
		"nonce":                 {f.Nonce},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(challenge[:])},
		"code_challenge_method": {"S256"},
	}
	sep := "?"
	if strings.Contains(conf.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	http.Redirect(w, r, conf.AuthorizationEndpoint+sep+q.Encode(), http.StatusSeeOther)
}

// callback finishes the flow: the state must be the one this browser left with, the code is
// exchanged with the verifier, and the ID token's claims become the session.
func (o *OIDC) callback(c *Console, w http.ResponseWriter, r *http.Request) {
	a := c.Auth
	fail := func(status int, msg string) {
		c.log().Warn("console: sign-in refused", "reason", msg)
		c.problem(w, r, Visitor{}, status, "Sign-in failed: "+msg)
	}
	ck, err := r.Cookie(signinCookie)
	if err != nil {
		fail(http.StatusBadRequest, "no sign-in was started from this browser")
		return
	}
	payload, err := a.verify(ck.Value)
	var f flow
	if err != nil || json.Unmarshal(payload, &f) != nil {
		fail(http.StatusBadRequest, "the sign-in state is unreadable")
		return
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		fail(http.StatusUnauthorized, fmt.Sprintf("the identity provider answered %s", e))
		return
	}
	if q.Get("state") == "" || q.Get("state") != f.State {
		fail(http.StatusBadRequest, "the state does not match the sign-in this browser started")
		return
	}
	who, err := o.exchange(r.Context(), q.Get("code"), f, a.now())
	if err != nil {
		fail(http.StatusUnauthorized, err.Error())
		return
	}
	a.clearCookie(w, signinCookie)
	a.start(w, who)
	http.Redirect(w, r, safeNext(f.Next), http.StatusSeeOther)
}

// exchange trades the code for tokens and reads the identity from the ID token.
func (o *OIDC) exchange(ctx context.Context, code string, f flow, now time.Time) (Identity, error) {
	if code == "" {
		return Identity{}, errors.New("the identity provider sent no code")
	}
	conf, err := o.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {o.RedirectURL},
		"client_id": {o.ClientID}, "code_verifier": {f.Verifier}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, conf.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Identity{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := o.client().Do(req)
	if err != nil {
		return Identity{}, fmt.Errorf("token endpoint: %w", err)
	}
	defer resp.Body.Close()
	var tok struct {
		IDToken string `json:"id_token"`
		Error   string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok); err != nil {
		return Identity{}, fmt.Errorf("token endpoint answered %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK || tok.IDToken == "" {
		return Identity{}, fmt.Errorf("token endpoint answered %s %s with no ID token", resp.Status, tok.Error)
	}
	return o.identity(tok.IDToken, f.Nonce, now)
}

// identity checks an ID token's claims and reads who it names.
func (o *OIDC) identity(idToken, nonce string, now time.Time) (Identity, error) {
	parts := strings.Split(idToken, ".")
	if len(parts) != 3 {
		return Identity{}, errors.New("the ID token is not a JWT")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return Identity{}, errors.New("the ID token's claims are not base64url")
	}
	var claims struct {
		Iss      string          `json:"iss"`
		Aud      json.RawMessage `json:"aud"`
		Exp      int64           `json:"exp"`
		Nonce    string          `json:"nonce"`
		Sub      string          `json:"sub"`
		Email    string          `json:"email"`
		Projects string          `json:"projects"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		return Identity{}, fmt.Errorf("the ID token's claims: %w", err)
	}
	var aud []string
	if json.Unmarshal(claims.Aud, &aud) != nil {
		var one string
		_ = json.Unmarshal(claims.Aud, &one)
		aud = []string{one}
	}
	switch {
	case claims.Iss != o.Issuer:
		return Identity{}, fmt.Errorf("the ID token is from %q, not %q", claims.Iss, o.Issuer)
	case !slices.Contains(aud, o.ClientID):
		return Identity{}, fmt.Errorf("the ID token is for %v, not %q", aud, o.ClientID)
	case now.Unix() >= claims.Exp:
		return Identity{}, errors.New("the ID token has expired")
	case claims.Nonce != nonce:
		return Identity{}, errors.New("the ID token's nonce is not this sign-in's")
	}
	id := claims.Email
	if id == "" {
		id = claims.Sub
	}
	if id == "" {
		return Identity{}, errors.New("the ID token names nobody (no email, no sub)")
	}
	projects := strings.FieldsFunc(claims.Projects, func(r rune) bool { return r == ' ' || r == ',' })
	return Identity{ID: id, Projects: projects}, nil
}
