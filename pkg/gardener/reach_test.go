package gardener

import (
	"slices"
	"testing"
)

// TestReplayOptionsAllowTheOperatorsBaseURL: a replay of a project's test may navigate to the
// project's allowed origins and to the origin of the base URL the operator gave (gardener
// --base-url, gardener serve's app), on every door alike: `--base-url http://localhost:8090`
// on a project allowing http://127.0.0.1:8090 is no blocked navigation. Without a base URL the
// project's first origin is the base; origins a caller names replace the project's, the base
// URL's still added; nothing is added twice, and the project is left as it was.
func TestReplayOptionsAllowTheOperatorsBaseURL(t *testing.T) {
	p := Project{ID: "shop", AllowedOrigins: []string{"http://127.0.0.1:8090", "https://cdn.shop.test"}}
	for _, c := range []struct {
		name        string
		in          ReplayOptions
		base        string
		allowed     []string
		fromProject Project
	}{
		{"no base URL", ReplayOptions{}, "http://127.0.0.1:8090", []string{"http://127.0.0.1:8090", "https://cdn.shop.test"}, p},
		{"the project's origin", ReplayOptions{BaseURL: "http://127.0.0.1:8090/app"}, "http://127.0.0.1:8090/app", []string{"http://127.0.0.1:8090", "https://cdn.shop.test"}, p},
		{"another name of the app", ReplayOptions{BaseURL: "http://LOCALHOST:8090/"}, "http://LOCALHOST:8090/", []string{"http://127.0.0.1:8090", "https://cdn.shop.test", "http://localhost:8090"}, p},
		{"origins named", ReplayOptions{BaseURL: "http://localhost:8090", AllowedOrigins: []string{"http://a.test"}}, "http://localhost:8090", []string{"http://a.test", "http://localhost:8090"}, p},
		{"a project with no origin", ReplayOptions{BaseURL: "http://localhost:8090"}, "http://localhost:8090", []string{"http://localhost:8090"}, Project{ID: "new"}},
		{"nothing to replay against", ReplayOptions{}, "", []string{}, Project{ID: "new"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := slices.Clone(c.fromProject.AllowedOrigins)
			got := c.fromProject.ReplayOptions(c.in)
			if got.BaseURL != c.base || !slices.Equal(got.AllowedOrigins, c.allowed) {
				t.Errorf("base %q, allowed %q; want %q, %q", got.BaseURL, got.AllowedOrigins, c.base, c.allowed)
			}
			if !slices.Equal(c.fromProject.AllowedOrigins, before) {
				t.Errorf("the project's origins changed to %q", c.fromProject.AllowedOrigins)
			}
		})
	}
}
