package console

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	_ "crypto/sha512" // RS384 and RS512 ID tokens
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// OIDC is the identity provider a deployed console signs people in with: the authorization-code
// flow with PKCE (a public client, no secret in the Lambda). The ID token from the token
// endpoint is verified before anything in it is believed: its signature against the provider's
// published keys (the discovery document's jwks_uri; RS256, RS384 or RS512), then its issuer,
// audience, expiry and nonce. Issuer and ClientID are the API's JWT issuer and audience, so the
// console and the API accept the same people; the "projects" claim is read as the API reads it.
type OIDC struct {
	Issuer   string
	ClientID string
	// RedirectURL is the console's callback as registered with the provider
	// (https://…/console/callback).
	RedirectURL string
	// Scopes asked for; empty is "openid email profile".
	Scopes []string
	Client *http.Client

	mu      sync.Mutex
	conf    *providerConfig
	keys    map[string]*rsa.PublicKey // the provider's signing keys by kid
	fetched time.Time                 // when keys were last read
}

// providerConfig is the part of the provider's discovery document the console uses.
type providerConfig struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
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
	if conf.Issuer != o.Issuer || conf.AuthorizationEndpoint == "" || conf.TokenEndpoint == "" || conf.JWKSURI == "" {
		return providerConfig{}, fmt.Errorf("identity provider discovery %s: issuer %q (want %q), or an endpoint or the jwks_uri is missing", u, conf.Issuer, o.Issuer)
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
	if err := o.verify(ctx, conf, tok.IDToken); err != nil {
		return Identity{}, err
	}
	return o.identity(tok.IDToken, f.Nonce, now)
}

// identity checks the claims of an ID token whose signature verify accepted, and reads who it
// names.
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
		Azp      string          `json:"azp"`
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
	case len(aud) > 1 && claims.Azp != o.ClientID:
		return Identity{}, fmt.Errorf("the ID token has several audiences and was issued to %q, not %q", claims.Azp, o.ClientID)
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

// signingHashes are the JWS algorithms an ID token may be signed with, and their hashes. "none"
// and the HMAC algorithms are refused: a public client holds no secret, and an HMAC keyed with
// the provider's public key is the classic forgery.
var signingHashes = map[string]crypto.Hash{"RS256": crypto.SHA256, "RS384": crypto.SHA384, "RS512": crypto.SHA512}

// verify checks an ID token's signature against the provider's key it names (by kid). A kid
// the cached keys lack makes it read the JWKS again (the provider rotated its keys), at most
// once a minute, so a token naming unknown keys cannot make every callback fetch.
func (o *OIDC) verify(ctx context.Context, conf providerConfig, idToken string) error {
	parts := strings.Split(idToken, ".")
	if len(parts) != 3 {
		return errors.New("the ID token is not a JWT (three dot-separated parts)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return errors.New("the ID token's header is not base64url")
	}
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("the ID token's header: %w", err)
	}
	hash, ok := signingHashes[h.Alg]
	if !ok {
		return fmt.Errorf("the ID token is signed with %q; only RS256, RS384 and RS512 are accepted", h.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errors.New("the ID token's signature is not base64url")
	}
	key, err := o.key(ctx, conf, h.Kid)
	if err != nil {
		return err
	}
	d := hash.New()
	d.Write([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, hash, d.Sum(nil), sig); err != nil {
		return fmt.Errorf("the ID token's signature does not verify with the provider's key %q: it was not issued by %s, or was altered", h.Kid, o.Issuer)
	}
	return nil
}

// key is the provider's signing key kid, read from its JWKS when not cached.
func (o *OIDC) key(ctx context.Context, conf providerConfig, kid string) (*rsa.PublicKey, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k := o.pick(kid); k != nil {
		return k, nil
	}
	if o.keys != nil && time.Since(o.fetched) < time.Minute {
		return nil, fmt.Errorf("the ID token names key %q, which the provider's JWKS (%s) does not publish", kid, conf.JWKSURI)
	}
	keys, err := o.fetchKeys(ctx, conf.JWKSURI)
	if err != nil {
		return nil, err
	}
	o.keys, o.fetched = keys, time.Now()
	if k := o.pick(kid); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("the ID token names key %q, which the provider's JWKS (%s) does not publish", kid, conf.JWKSURI)
}

// pick is the cached key kid; a token naming no kid may use the provider's only key.
func (o *OIDC) pick(kid string) *rsa.PublicKey {
	if k, ok := o.keys[kid]; ok {
		return k
	}
	if kid == "" && len(o.keys) == 1 {
		for _, k := range o.keys {
			return k
		}
	}
	return nil
}

// fetchKeys reads the RSA signing keys of a JWKS document; keys of other types or uses are
// left out.
func (o *OIDC) fetchKeys(ctx context.Context, u string) (map[string]*rsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("the provider's JWKS %s: %w", u, err)
	}
	resp, err := o.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("the provider's JWKS %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the provider's JWKS %s answered %s", u, resp.Status)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Use string `json:"use"`
			Kid string `json:"kid"`
			N   string `json:"n"`
			E   string `json:"e"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("the provider's JWKS %s: %w", u, err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		n, errN := base64.RawURLEncoding.DecodeString(k.N)
		e, errE := base64.RawURLEncoding.DecodeString(k.E)
		if errN != nil || errE != nil || len(n) == 0 || len(e) == 0 || len(e) > 4 {
			return nil, fmt.Errorf("the provider's JWKS %s: key %q has a malformed modulus or exponent", u, k.Kid)
		}
		key := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if key.N.BitLen() < 2048 {
			return nil, fmt.Errorf("the provider's JWKS %s: key %q has %d bits; at least 2048 are required", u, k.Kid, key.N.BitLen())
		}
		keys[k.Kid] = key
	}
	return keys, nil
}
