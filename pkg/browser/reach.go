package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// ReachTimeout bounds Reach: an app that takes longer to answer its base URL would fail every
// replay's first step anyway.
const ReachTimeout = 15 * time.Second

// Reach asks the app at base for its base URL once, connecting as the browser's replays do
// (through the same dialer, which refuses link-local and metadata addresses, and never through
// the environment's proxy). Any answer — an error status or a certificate the probe does not
// trust included — is an app that is there: the replay judges the rest. Only a failure to
// connect (refused, unresolved, unroutable, an address no replay may reach, no answer before
// ReachTimeout) is a *gardener.UnreachableError; an ended ctx is ctx's error.
func Reach(ctx context.Context, base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &gardener.UnreachableError{URL: base, Err: fmt.Errorf("%q is not an http or https URL", base)}
	}
	if why := refusedHost(u.Hostname()); why != "" {
		return &gardener.UnreachableError{URL: base, Err: fmt.Errorf("%s: no replay may reach it", why)}
	}
	probe, cancel := context.WithTimeout(ctx, ReachTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(probe, http.MethodGet, base, nil)
	if err != nil {
		return &gardener.UnreachableError{URL: base, Err: err}
	}
	client := &http.Client{
		Transport:     &http.Transport{Proxy: nil, DialContext: safeDialer.DialContext, DisableKeepAlives: true},
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
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &dns), errors.As(err, &op) && op.Op == "dial", errors.Is(err, context.DeadlineExceeded):
		if u := errors.Unwrap(err); u != nil {
			err = u // net/http's "Get URL:" names what the message names anyway
		}
		return &gardener.UnreachableError{URL: base, Err: err}
	}
	return nil
}
