package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Identity is a signed-in person: who they are (what an approval records) and the projects they
// may act on ("*" is every project), read from the identity provider's token as the API reads
// them from its JWT.
type Identity struct {
	ID       string   `json:"id"`
	Projects []string `json:"projects"`
}

// May reports whether the identity may act on the project.
func (i Identity) May(projectID string) bool {
	return slices.Contains(i.Projects, "*") || slices.Contains(i.Projects, projectID)
}

// Cookie names. The session cookie is HttpOnly, SameSite=Lax and (over HTTPS) Secure: no
// script, the console's own included, can read it, and a cross-site form cannot send it.
const (
	sessionCookie = "gardener_session"
	// signinCookie carries the state of a sign-in in progress: the dev form's CSRF token, or the
	// PKCE verifier, state and nonce of an authorization-code flow.
	signinCookie = "gardener_signin"
)

// Auth signs people in and keeps their session. With OIDC set, people sign in with the identity
// provider (authorization code + PKCE) and the session holds the identity its ID token names;
// without it, a sign-in form sets a development identity, which only a console served on
// loopback (gardener serve, gardener demo) may use.
type Auth struct {
	// Key signs session cookies and CSRF tokens (at least 32 bytes); every instance serving the
	// console must share it.
	Key []byte
	// Secure marks cookies Secure (HTTPS only).
	Secure bool
	// TTL is how long a session lasts; zero is 8 hours.
	TTL  time.Duration
	OIDC *OIDC
	Now  func() time.Time
}

// ErrNoSession is a request without a valid session.
var ErrNoSession = errors.New("no valid session")

// NewAuth checks the key is long enough to sign sessions with.
func NewAuth(key []byte, secure bool, oidc *OIDC) (*Auth, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("console sessions: the signing key has %d bytes, at least 32 are needed", len(key))
	}
	return &Auth{Key: key, Secure: secure, OIDC: oidc}, nil
}

// DevAuth is the local console's sign-in: a fresh random key (sessions end with the process)
// and the development sign-in form.
func DevAuth() (*Auth, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("console sessions: %w", err)
	}
	return NewAuth(key, false, nil)
}

func (a *Auth) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Auth) ttl() time.Duration {
	if a.TTL > 0 {
		return a.TTL
	}
	return 8 * time.Hour
}

// session is what the session cookie carries, signed.
type session struct {
	Identity
	Expires int64 `json:"exp"`
}

func (a *Auth) sign(payload []byte) string {
	m := hmac.New(sha256.New, a.Key)
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (a *Auth) verify(value string) ([]byte, error) {
	enc, sig, ok := strings.Cut(value, ".")
	if !ok {
		return nil, errors.New("malformed")
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, errors.New("malformed")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return nil, errors.New("malformed")
	}
	m := hmac.New(sha256.New, a.Key)
	m.Write(payload)
	if !hmac.Equal(got, m.Sum(nil)) {
		return nil, errors.New("bad signature")
	}
	return payload, nil
}

// start begins a session for who.
func (a *Auth) start(w http.ResponseWriter, who Identity) {
	b, _ := json.Marshal(session{Identity: who, Expires: a.now().Add(a.ttl()).Unix()})
	a.setCookie(w, sessionCookie, a.sign(b), a.ttl())
}

func (a *Auth) setCookie(w http.ResponseWriter, name, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix, MaxAge: int(ttl.Seconds()),
		HttpOnly: true, Secure: a.Secure, SameSite: http.SameSiteLaxMode})
}

func (a *Auth) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: a.Secure, SameSite: http.SameSiteLaxMode})
}

// Identify reads the signed-in identity from the session cookie.
func (a *Auth) Identify(r *http.Request) (Identity, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return Identity{}, ErrNoSession
	}
	payload, err := a.verify(ck.Value)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrNoSession, err)
	}
	var s session
	if err := json.Unmarshal(payload, &s); err != nil || s.ID == "" {
		return Identity{}, fmt.Errorf("%w: unreadable", ErrNoSession)
	}
	if a.now().Unix() >= s.Expires {
		return Identity{}, fmt.Errorf("%w: expired", ErrNoSession)
	}
	return s.Identity, nil
}

// CSRFToken is the token every form of a session carries: a MAC of the session cookie, so it
// is bound to the session, needs no storage, and cannot be made by a page that cannot read the
// (HttpOnly) cookie.
func (a *Auth) CSRFToken(r *http.Request, _ Identity) string {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	m := hmac.New(sha256.New, a.Key)
	m.Write([]byte("csrf\x00" + ck.Value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// fromThisConsole checks, when the browser says where a POST came from, that it came from this
// console: its Origin is this host (with this port), and its Sec-Fetch-Site is same-origin (or
// none, a person's own navigation). Every form asks it, signing in included: cookies do not
// tell ports apart, so a page on another port of the same machine can set a cookie the console
// reads, and only the browser's word on the origin tells its form from the console's. An opaque
// origin ("null": a sandboxed frame, a data: page) is not this console either.
func fromThisConsole(r *http.Request) error {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if origin == "null" || err != nil || u.Host != r.Host {
			return fmt.Errorf("the request came from %q, not from this console", origin)
		}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("the request came from a %s page, not from this console", site)
	}
	return nil
}

// checkCSRF checks a POST came from this console (fromThisConsole) and carries the session's
// CSRF token.
func (c *Console) checkCSRF(r *http.Request, v Visitor) error {
	if err := fromThisConsole(r); err != nil {
		return err
	}
	got := r.PostFormValue("csrf")
	if got == "" {
		return errors.New("the form carries no CSRF token")
	}
	if v.CSRF == "" || subtle.ConstantTimeCompare([]byte(got), []byte(v.CSRF)) != 1 {
		return errors.New("the form's CSRF token is not this session's")
	}
	return nil
}

// randomToken is 32 random bytes, base64url.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// signInURL is the sign-in page that returns to next afterwards.
func signInURL(next string) string {
	return Prefix + "/signin?next=" + url.QueryEscape(next)
}

// safeNext keeps a return address inside the console: anything else (another site, a
// scheme-relative //host) returns to the console's first page.
func safeNext(next string) string {
	if next == Prefix || strings.HasPrefix(next, Prefix+"/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return Prefix
}

// signInView is what the sign-in page shows.
type signInView struct {
	Dev      bool
	Next     string
	CSRF     string
	Email    string
	Projects string
	Error    string
}

func (c *Console) signInPage(w http.ResponseWriter, r *http.Request, _ Visitor) {
	next := safeNext(r.URL.Query().Get("next"))
	if c.Auth.OIDC != nil {
		c.Auth.OIDC.redirect(c.Auth, w, r, next)
		return
	}
	tok, err := randomToken()
	if err != nil {
		c.problem(w, r, Visitor{}, http.StatusInternalServerError, err.Error())
		return
	}
	c.Auth.setCookie(w, signinCookie, tok, 30*time.Minute)
	c.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: signInView{Dev: true, Next: next, CSRF: tok, Projects: "*"}})
}

// signIn serves the development sign-in form: the identity it names is the session's. The form
// is guarded as every form is, by where the browser says it came from, and by a token in a
// cookie of its own, so another site — or another port of the same machine — cannot sign a
// browser in.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request, _ Visitor) {
	if c.Auth.OIDC != nil {
		c.problem(w, r, Visitor{}, http.StatusMethodNotAllowed, "This console signs in with the identity provider; open the sign-in page.")
		return
	}
	if err := fromThisConsole(r); err != nil {
		c.problem(w, r, Visitor{}, http.StatusForbidden, "This sign-in form did not come from the console ("+err.Error()+"). Open the sign-in page again.")
		return
	}
	ck, err := r.Cookie(signinCookie)
	tok := r.PostFormValue("csrf")
	if err != nil || tok == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(tok)) != 1 {
		c.problem(w, r, Visitor{}, http.StatusForbidden, "This sign-in form is out of date or did not come from the console. Open the sign-in page again.")
		return
	}
	next := safeNext(r.PostFormValue("next"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	projects := strings.FieldsFunc(r.PostFormValue("projects"), func(r rune) bool { return r == ',' || r == ' ' })
	var problem string
	switch {
	case email == "" || !strings.Contains(email, "@") || strings.ContainsAny(email, " :<>\"'"):
		problem = fmt.Sprintf("Email %q is not an email address.", email)
	case len(projects) == 0:
		problem = "Name at least one project, or * for every project."
	}
	if problem != "" {
		c.render(w, r, http.StatusBadRequest, "signin", page{Title: "Sign in", Data: signInView{Dev: true, Next: next, CSRF: tok, Email: email, Projects: r.PostFormValue("projects"), Error: problem}})
		return
	}
	c.Auth.clearCookie(w, signinCookie)
	c.Auth.start(w, Identity{ID: email, Projects: projects})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (c *Console) callback(w http.ResponseWriter, r *http.Request, _ Visitor) {
	if c.Auth.OIDC == nil {
		c.problem(w, r, Visitor{}, http.StatusNotFound, "This console has no identity provider: sign in with the form.")
		return
	}
	c.Auth.OIDC.callback(c, w, r)
}

func (c *Console) signOut(w http.ResponseWriter, r *http.Request, _ Visitor) {
	c.Auth.clearCookie(w, sessionCookie)
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}
