package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/handler"
)

// DevToken is the bearer token the local API takes in place of a JWT: "dev:EMAIL:PROJECTS",
// projects separated by commas ("*" for all). It stands for the claims the HttpApi's JWT
// authorizer would pass on; nothing is verified, which is why the local API only listens on
// loopback.
func DevToken(email string, projects ...string) string {
	return "dev:" + email + ":" + strings.Join(projects, ",")
}

// maxBody bounds a request body, as API Gateway bounds its payloads.
const maxBody = 1 << 20

// Handler serves the review API's router directly, in front of it doing what API Gateway does:
// a route the API does not have is 404 before anything else, a body over the payload limit is
// refused, and the JWT authorizer's part is played with development tokens, whose claims go
// where the API reads a verified JWT's; the console's routes, which have no authorizer, go
// straight to the router. Before all that, a request whose Host is not a loopback
// name with the port it came in on is refused (421), so a web page whose name was rebound to
// 127.0.0.1 cannot drive the API with a development token.
func (s *Stack) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := loopbackHost(r); err != nil {
			writeJSON(w, http.StatusMisdirectedRequest, map[string]string{"message": err.Error()})
			return
		}
		if s.api == nil || !s.api.Handles(r) {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(body) > maxBody {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": "request body too large or unreadable"})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path == console.Prefix || strings.HasPrefix(r.URL.Path, console.Prefix+"/") {
			// The console's routes have no JWT authorizer: the console signs people in itself.
			s.api.ServeHTTP(w, r)
			return
		}
		claims, ok := devClaims(r.Header.Get("Authorization"))
		if !ok {
			// The JWT authorizer answers before the function runs.
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Unauthorized"})
			return
		}
		s.api.ServeHTTP(w, handler.WithClaims(r, claims))
	})
}

// loopbackNames are the names a request to the local API may carry in its Host.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// loopbackHost checks a request's Host names a loopback name and the port of the connection it
// came in on.
func loopbackHost(r *http.Request) error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return fmt.Errorf("host %q refused: the connection's local address is unknown", r.Host)
	}
	_, port, err := net.SplitHostPort(local.String())
	if err != nil {
		return fmt.Errorf("host %q refused: local address %s: %w", r.Host, local, err)
	}
	name, hostPort, err := net.SplitHostPort(r.Host)
	if err != nil {
		name, hostPort = strings.Trim(r.Host, "[]"), "80"
	}
	if !slices.Contains(loopbackNames, strings.ToLower(name)) || hostPort != port {
		return fmt.Errorf("host %q refused: the local API answers only to localhost, 127.0.0.1 or [::1] with port %s (a request for another name may come from a page whose name was rebound to this machine)", r.Host, port)
	}
	return nil
}

// devClaims reads a dev token into the claims a JWT authorizer would pass.
func devClaims(auth string) (map[string]string, bool) {
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return nil, false
	}
	parts := strings.SplitN(tok, ":", 3)
	if len(parts) != 3 || parts[0] != "dev" || parts[1] == "" {
		return nil, false
	}
	return map[string]string{"sub": parts[1], "email": parts[1], "projects": parts[2]}, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
