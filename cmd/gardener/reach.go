package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// unreachableError is an app that could not be reached over the network: the commands that
// replay against it stop before replaying (exit 3, a runtime failure of the network), and
// nothing is recorded, repaired or filed about a test that never ran.
type unreachableError struct {
	url string
	err error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("the app at %s could not be reached (%v): nothing was replayed; start it, or check --base-url", e.url, e.err)
}

func (e *unreachableError) Unwrap() error { return e.err }

// reachTimeout bounds the probe: an app that takes longer to answer its base URL would fail
// every replay's first step anyway.
const reachTimeout = 15 * time.Second

// reachApp asks the app at base for its base URL once, directly as the browser's replays
// connect. Any answer, an error status or a certificate the probe does not trust included, is an
// app that is there (the replay judges the rest); only a failure to connect (refused,
// unresolved, unroutable, timed out) is an *unreachableError.
func reachApp(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base, nil)
	if err != nil {
		return &unreachableError{base, err}
	}
	client := &http.Client{
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
		return nil
	}
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	case errors.As(err, &dns), errors.As(err, &op) && op.Op == "dial", errors.Is(err, context.DeadlineExceeded):
		if u := errors.Unwrap(err); u != nil {
			err = u // net/http's "Get URL:" names what the message names anyway
		}
		return &unreachableError{base, err}
	}
	return nil
}
