package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// tokenEnv is the environment variable the commands that take --api read the bearer token from,
// unless --token-env names another.
const tokenEnv = "GARDENER_TOKEN"

// apiFlags are the flags of a command that acts on the local state or, with --api, on a
// deployed API (or `gardener serve`'s).
type apiFlags struct {
	api, tokenEnv, state string
}

func (f *apiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.api, "api", "", "act on the API at `URL` (a deployed one, or gardener serve's) instead of the local state; the bearer token is read from $"+tokenEnv+" or --token-env")
	fs.StringVar(&f.tokenEnv, "token-env", tokenEnv, "the environment variable `NAME` holding the API's bearer token (with --api; against gardener serve: dev:EMAIL:PROJECTS)")
	fs.StringVar(&f.state, "state", defaultStateDir, "`DIR` of the local state, without --api")
}

// client checks the flags and returns the API's client, nil without --api; its error is a
// mistake on the command line.
func (f *apiFlags) client() (*apiClient, error) {
	if f.api == "" {
		return nil, nil
	}
	if err := checkHTTPURL("--api", f.api); err != nil {
		return nil, err
	}
	token := strings.TrimSpace(os.Getenv(f.tokenEnv))
	if token == "" {
		return nil, fmt.Errorf("--api needs the API's bearer token in $%s (or name another variable with --token-env)", f.tokenEnv)
	}
	return &apiClient{base: strings.TrimRight(f.api, "/"), token: token, tokenEnv: f.tokenEnv, http: &http.Client{Timeout: time.Minute}}, nil
}

// apiClient calls an API with a bearer token.
type apiClient struct {
	base, token string
	// tokenEnv names where the token came from, for the message when it is refused.
	tokenEnv string
	http     *http.Client
}

// tokenRefusedError is the API's 401: it does not take the token (unknown, expired, malformed).
// Bad input, exit 2: nothing was done, and a better token is the fix.
type tokenRefusedError struct {
	method, url, env, reason string
}

func (e *tokenRefusedError) Error() string {
	return fmt.Sprintf("%s %s: the API refused the token in $%s (401 %s)", e.method, e.url, e.env, e.reason)
}

// apiStatusError is an answer of the API that is not a success: its status, and the API's
// reason in the API's words.
type apiStatusError struct {
	method, url string
	status      int
	reason      string
}

func (e *apiStatusError) Error() string { return e.reason }

// exit is the CLI's exit status for the answer: the API's statuses map to the classes every door
// shares (docs/api.md), and the classes to exit codes as exitOf maps the application layer's
// errors.
func (e *apiStatusError) exit() int {
	switch e.status {
	case http.StatusBadRequest, http.StatusNotFound:
		return exitBadInput
	case http.StatusForbidden, http.StatusConflict, http.StatusPreconditionFailed:
		return exitNegative
	}
	return exitFailure
}

// call sends one request to the API and decodes a 2xx answer into out. A 401 is a
// *tokenRefusedError; other statuses are the caller's to read (do answers them as errors).
func (a *apiClient) call(ctx context.Context, method, path string, in any, header map[string]string, out any) (int, string, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, "", err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, a.base+path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: reading the answer: %w", method, a.base+path, err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return 0, "", &tokenRefusedError{method: method, url: a.base + path, env: cmp.Or(a.tokenEnv, tokenEnv), reason: apiError(b)}
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, "", fmt.Errorf("%s %s: the answer is not what the API gives: %w", method, a.base+path, err)
		}
	}
	return resp.StatusCode, string(b), nil
}

// do is call for a route whose only good answer is a 2xx: any other is an *apiStatusError with
// the API's reason.
func (a *apiClient) do(ctx context.Context, method, path string, in, out any) error {
	status, body, err := a.call(ctx, method, path, in, nil, out)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return &apiStatusError{method: method, url: a.base + path, status: status, reason: apiError([]byte(body))}
	}
	return nil
}

// apiError is the message of an API error body, or the body.
func apiError(b []byte) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil && cmp.Or(e.Error, e.Message) != "" {
		return cmp.Or(e.Error, e.Message)
	}
	return strings.TrimSpace(string(b))
}
