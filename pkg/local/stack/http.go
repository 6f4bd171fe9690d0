package stack

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
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

// Handler serves the template's HttpApi routes the way API Gateway would: it matches the route,
// builds the payload-v2 event with the route key, path parameters and the caller's claims, and
// invokes the route's function with it.
func (s *Stack) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, params, ok := s.match(r.Method, r.URL.Path)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(body) > maxBody {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": "request body too large or unreadable"})
			return
		}
		claims, ok := devClaims(r.Header.Get("Authorization"))
		if !ok {
			// The JWT authorizer answers before the function runs.
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Unauthorized"})
			return
		}
		key := route.Method + " " + route.Path
		query := map[string]string{}
		for k, v := range r.URL.Query() {
			query[k] = strings.Join(v, ",")
		}
		ev := events.APIGatewayV2HTTPRequest{
			Version: "2.0", RouteKey: key, RawPath: r.URL.Path, RawQueryString: r.URL.RawQuery,
			Headers: map[string]string{"content-type": r.Header.Get("Content-Type")}, QueryStringParameters: query,
			PathParameters: params, Body: string(body),
			RequestContext: events.APIGatewayV2HTTPRequestContext{
				RouteKey: key, Stage: "$default", RequestID: fmt.Sprintf("local-%d", time.Now().UnixNano()),
				HTTP:       events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: r.Method, Path: r.URL.Path, Protocol: r.Proto, SourceIP: r.RemoteAddr},
				Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: claims}},
			},
		}
		payload, err := json.Marshal(ev)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"message": err.Error()})
			return
		}
		out, err := s.Invoke(r.Context(), route.Function, payload)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"message": "Internal Server Error", "error": err.Error()})
			return
		}
		var resp events.APIGatewayV2HTTPResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]string{"message": "the function's response is not a payload-v2 response"})
			return
		}
		for k, v := range resp.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.WriteString(w, resp.Body)
	})
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

// match finds the route for a request: literal segments equal, {name} segments captured.
func (s *Stack) match(method, path string) (routeOf, map[string]string, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, r := range s.tpl.Routes {
		if r.Method != method && r.Method != "ANY" {
			continue
		}
		want := strings.Split(strings.Trim(r.Path, "/"), "/")
		if len(want) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, w := range want {
			if strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}") {
				params[strings.Trim(w, "{}")] = segs[i]
				continue
			}
			if w != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return routeOf{Method: r.Method, Path: r.Path, Function: r.Function}, params, true
		}
	}
	return routeOf{}, nil, false
}

type routeOf struct{ Method, Path, Function string }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
