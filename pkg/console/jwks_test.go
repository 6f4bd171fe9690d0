package console_test

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIDTokenIsVerifiedAgainstTheProvidersKeys: the console believes an ID token only when its
// signature verifies with a key of the provider's JWKS; a token signed by anyone else, altered,
// unsigned, HMAC-signed with the public key, naming a key the provider does not publish, or with
// a wrong issuer or audience, or expired, is refused with an error that says which.
func TestIDTokenIsVerifiedAgainstTheProvidersKeys(t *testing.T) {
	idp := newProvider(t)
	_, signIn := oidcConsole(t, idp)
	exp := time.Now().Add(time.Hour).Unix()
	good := map[string]any{"aud": "console-client", "exp": exp, "email": "ann@example.com", "projects": "shop"}

	if status, _, _ := signIn(good); status != http.StatusSeeOther {
		t.Fatalf("a token the provider signed: %d, want signed in", status)
	}
	if n := idp.jwks.Load(); n != 1 {
		t.Errorf("the JWKS was read %d times for one sign-in, want once", n)
	}

	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	header := func(alg, kid string) []byte {
		b, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
		return b
	}
	cases := []struct {
		name   string
		claims map[string]any
		forge  func(h, c []byte) string
		want   string
	}{
		{"signed by another key under the provider's kid", good, func(_, c []byte) string { return signRS256(stranger, header("RS256", providerKid), c) },
			"signature does not verify"},
		{"claims altered after signing", good, func(h, c []byte) string {
			tok := signRS256(idp.key, h, c)
			parts := strings.Split(tok, ".")
			evil := strings.Replace(string(c), `"projects":"shop"`, `"projects":"*"`, 1)
			return parts[0] + "." + enc([]byte(evil)) + "." + parts[2]
		}, "signature does not verify"},
		{"unsigned (alg none)", good, func(_, c []byte) string { return enc(header("none", "")) + "." + enc(c) + "." }, `"none"`},
		{"HS256 keyed with the public key", good, func(_, c []byte) string {
			input := enc(header("HS256", providerKid)) + "." + enc(c)
			m := hmac.New(sha256.New, idp.key.PublicKey.N.Bytes())
			m.Write([]byte(input))
			return input + "." + enc(m.Sum(nil))
		}, `"HS256"`},
		{"a key the provider does not publish", good, func(_, c []byte) string { return signRS256(stranger, header("RS256", "stranger-key"), c) },
			`key "stranger-key"`},
		{"signature not base64url", good, func(h, c []byte) string { return enc(h) + "." + enc(c) + ".%%%" }, "signature is not base64url"},
		{"not a JWT", good, func(_, _ []byte) string { return "just-a-string" }, "not a JWT"},
		{"another issuer", map[string]any{"iss": "https://evil.example", "aud": "console-client", "exp": exp, "email": "m@example.com"}, nil, `from "https://evil.example"`},
		{"another audience", map[string]any{"aud": "someone-else", "exp": exp, "email": "m@example.com"}, nil, `not "console-client"`},
		{"expired", map[string]any{"aud": "console-client", "exp": time.Now().Add(-time.Minute).Unix(), "email": "m@example.com"}, nil, "expired"},
	}
	for _, c := range cases {
		idp.forge = c.forge
		status, body, _ := signIn(c.claims)
		if status != http.StatusUnauthorized {
			t.Errorf("%s: the callback answered %d, want 401", c.name, status)
			continue
		}
		if got := html.UnescapeString(body); !strings.Contains(got, "Sign-in failed") || !strings.Contains(got, c.want) {
			t.Errorf("%s: the refusal does not say %q:\n%s", c.name, c.want, problemText(got))
		}
	}
	idp.forge = nil
	// An unknown kid does not make every callback read the JWKS again.
	if n := idp.jwks.Load(); n > 2 {
		t.Errorf("the JWKS was read %d times; a token naming an unknown key may cause at most one more read a minute", n)
	}
}

// problemText is the part of a problem page worth printing.
func problemText(body string) string {
	if i := strings.Index(body, "Sign-in failed"); i >= 0 {
		return body[i:min(len(body), i+300)]
	}
	return body[:min(len(body), 300)]
}
