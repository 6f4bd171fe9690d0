package gardener

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// UnreachableError is an app that could not be reached at the base URL its tests replay
// against: refused, unresolved, unroutable or timed out before any answer. Nothing was
// replayed, so nothing was judged: no run is recorded, no repair started, no triage filed
// about it. Every door answers it as a failure of the network (the CLI's exit 3, the API's
// 502, an MCP tool error), never as a failing test.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the app at %s could not be reached (%v): nothing was replayed, and nothing is recorded, repaired or triaged about it", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ReplayOptions completes opts for a replay of p's tests, on every door alike. The base URL is
// the one the operator named (opts.BaseURL: a --base-url flag, gardener serve's app), else the
// project's first allowed origin. Navigation may reach the origins opts names, else the
// project's allowed origins, and always the base URL's own origin: the operator chose the base
// URL, so it is no off-site place a test could steer a replay to (the allowed origins exist to
// stop exactly that), and the relative gotos of every test resolve there. Empty BaseURL in the
// answer: neither the operator nor the project names one.
func (p Project) ReplayOptions(opts ReplayOptions) ReplayOptions {
	if opts.BaseURL == "" && len(p.AllowedOrigins) > 0 {
		opts.BaseURL = p.AllowedOrigins[0]
	}
	allowed := opts.AllowedOrigins
	if len(allowed) == 0 {
		allowed = p.AllowedOrigins
	}
	allowed = slices.Clone(allowed)
	if o := originOfURL(opts.BaseURL); o != "" && !slices.ContainsFunc(allowed, func(a string) bool { return originOfURL(a) == o }) {
		allowed = append(allowed, o)
	}
	opts.AllowedOrigins = allowed
	return opts
}

// originOfURL is raw's scheme://host[:port] in lower case, "" when raw names none.
func originOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
