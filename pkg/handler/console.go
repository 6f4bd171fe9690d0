package handler

import (
	"net/http"

	"github.com/driftgardener/gardener/pkg/console"
)

// consoleRoutes are the console's patterns, which the router serves beside the API's.
func consoleRoutes() []string {
	var out []string
	for _, rt := range console.Routes() {
		out = append(out, rt.Pattern)
	}
	return out
}

// mountConsole serves the review console's pages on the API's router. A page is authorized
// per project exactly as an API route is (projectOf, from the stored object its path names);
// without a sign-in configured the console is not mounted and its routes answer 404.
func (a *API) mountConsole() error {
	if a.ConsoleAuth == nil {
		for _, p := range consoleRoutes() {
			a.mux.Handle(p, http.NotFoundHandler())
		}
		return nil
	}
	c, err := console.New(console.Deps{Store: a.Store, App: a.app, Auth: a.ConsoleAuth, Here: a.here, Now: a.Now, Log: a.log()})
	if err != nil {
		return err
	}
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		project, err := a.projectOf(r.Context(), call{caller: Caller{ID: who.ID, Projects: who.Projects}, r: r})
		if err != nil {
			// The page answers with the status the API gives the same refusal.
			return "", &console.ActionError{Status: statusOf(err), Message: err.Error()}
		}
		return project, nil
	}
	for _, rt := range console.Routes() {
		a.mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	return nil
}
