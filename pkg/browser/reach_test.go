package browser

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestReach: an app that answers, whatever its status, is there; a port nothing listens on, a
// name that does not resolve and an address no replay may reach are *gardener.UnreachableError
// naming the base URL and why; an ended context is its own error. No browser is started.
func TestReach(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	ctx := context.Background()
	if err := Reach(ctx, failing.URL+"/app/"); err != nil {
		t.Errorf("an app answering 503 is there: %v", err)
	}
	for _, c := range []struct{ base, why string }{
		{refused, "connection refused"},
		{"http://nothing.invalid", "lookup nothing.invalid"},
		{"http://169.254.169.254", "link-local or metadata address"},
		{"http://metadata.google.internal", "cloud metadata host"},
	} {
		err := Reach(ctx, c.base)
		var down *gardener.UnreachableError
		if !errors.As(err, &down) || down.URL != c.base || !strings.Contains(err.Error(), "the app at "+c.base+" could not be reached") || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want it unreachable: %s", c.base, err, c.why)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := Reach(done, refused); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: %v, want its error", err)
	}
}
