package gardening

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// ProjectChange creates or changes a project. A field left out keeps what is stored (on a
// create: the default — the project id as name, the deployment's plan, modes off, no model).
type ProjectChange struct {
	Name *string `json:"name"`
	// Plan is the deployment's, not the project's members' (Deps.Plan): a change may name the
	// plan the project is on, and a PlanError refuses any other.
	Plan *gardener.Plan `json:"plan"`
	// AllowedOrigins replaces the origins a replay may navigate to.
	AllowedOrigins *[]string `json:"allowedOrigins"`
	Model          *string   `json:"model"`
	// AutoRepair is the mode: on, failed unattended runs are repaired and written; off, radar
	// sweeps stage proposals for a person.
	AutoRepair  *bool   `json:"autoRepair"`
	Radar       *bool   `json:"radar"`
	SetupTestID *string `json:"setupTestId"`
}

// PutProject creates project id with ch (created true) or changes it, for who. A change is one
// conditional update, so a concurrent change of another field is kept. check sees the project as
// stored (nil when there is none) before anything is written and refuses the write with its own
// error (a door's precondition: If-Match, If-None-Match). What a project may not hold is refused
// first (*BadRequestError): an unknown plan, an origin that is not scheme://host[:port], a model
// that does not open, a setup test that is not the project's; then a plan other than the one
// the project is on (a create: the deployment's), which its members cannot choose (*PlanError).
func (s *Service) PutProject(ctx context.Context, who Who, id string, ch ProjectChange, check func(stored *gardener.Project) error) (p gardener.Project, created bool, err error) {
	if err := s.checkProject(ctx, id, ch); err != nil {
		return gardener.Project{}, false, err
	}
	if check == nil {
		check = func(*gardener.Project) error { return nil }
	}
	_, err = s.d.Store.Project(ctx, id)
	if errors.Is(err, gardener.ErrNotFound) {
		if err := check(nil); err != nil {
			return gardener.Project{}, false, err
		}
		if err := s.planRule(id, ch, s.plan()); err != nil {
			return gardener.Project{}, false, err
		}
		p := workspace.NewProject(id, gardener.Project{Plan: s.plan()})
		ch.apply(&p)
		if err := s.d.Store.PutProject(ctx, p); err != nil {
			return gardener.Project{}, false, err
		}
		// PutProject replaces; reading back makes sure a create that raced another is answered
		// with what is stored.
		if p, err = s.d.Store.Project(ctx, id); err != nil {
			return gardener.Project{}, false, err
		}
		s.d.Log.Info("project created", "project", id, "by", who.ID)
		return p, true, nil
	}
	if err != nil {
		return gardener.Project{}, false, err
	}
	p, err = s.d.Store.UpdateProject(ctx, id, func(p *gardener.Project) error {
		if err := check(p); err != nil {
			return err
		}
		if err := s.planRule(id, ch, p.Plan); err != nil {
			return err
		}
		ch.apply(p)
		return nil
	})
	if err != nil {
		return p, false, err
	}
	s.d.Log.Info("project changed", "project", id, "by", who.ID, "version", p.Version)
	return p, false, nil
}

func (ch ProjectChange) apply(p *gardener.Project) {
	if ch.Name != nil {
		p.Name = *ch.Name
	}
	if ch.Plan != nil {
		p.Plan = *ch.Plan
	}
	if ch.AllowedOrigins != nil {
		p.AllowedOrigins = origins(*ch.AllowedOrigins)
	}
	if ch.Model != nil {
		p.Model = *ch.Model
	}
	if ch.AutoRepair != nil {
		p.AutoRepair = *ch.AutoRepair
	}
	if ch.Radar != nil {
		p.Radar = *ch.Radar
	}
	if ch.SetupTestID != nil {
		p.SetupTestID = *ch.SetupTestID
	}
}

// PlanError is a change naming a plan other than the one the project is on: the plan is the
// deployment's, set by its operator, never by the project's members.
type PlanError struct {
	Project string
	Asked   gardener.Plan
	Plan    gardener.Plan
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("project %s: \"plan\": %s is not this project's plan (%s), and a project's members cannot change it: the plan is the deployment's, set by its operator (the template's Plan parameter, PLAN of the API function; gardener serve --plan)",
		e.Project, e.Asked, e.Plan)
}

// KnownPlan says whether p is a plan there is (free or pro): what a project may be on, and what
// a deployment's operator may set (gardener serve --plan, PLAN of the API function).
func KnownPlan(p gardener.Plan) bool { return p == gardener.PlanFree || p == gardener.PlanPro }

// plan is the deployment's plan.
func (s *Service) plan() gardener.Plan { return cmp.Or(s.d.Plan, gardener.PlanPro) }

// planRule refuses a change naming another plan than current, the plan the project is on (the
// deployment's for a project not created yet); naming the same one changes nothing.
func (s *Service) planRule(id string, ch ProjectChange, current gardener.Plan) error {
	if ch.Plan == nil || *ch.Plan == current {
		return nil
	}
	return &PlanError{Project: id, Asked: *ch.Plan, Plan: current}
}

// checkProject refuses what a project may not hold.
func (s *Service) checkProject(ctx context.Context, id string, ch ProjectChange) error {
	bad := func(format string, args ...any) error {
		return &BadRequestError{Reason: fmt.Sprintf("project %s: %s", id, fmt.Sprintf(format, args...))}
	}
	if ch.Name != nil && strings.TrimSpace(*ch.Name) == "" {
		return bad(`"name" must not be empty`)
	}
	if ch.Plan != nil && !KnownPlan(*ch.Plan) {
		return bad(`"plan": %q is not free or pro`, *ch.Plan)
	}
	if ch.AllowedOrigins != nil {
		for i, o := range *ch.AllowedOrigins {
			if err := checkOrigin(o); err != nil {
				return bad(`"allowedOrigins"[%d]: %v`, i, err)
			}
		}
	}
	if ch.Model != nil && *ch.Model != "" {
		if s.d.Models == nil {
			return fmt.Errorf("project %s: the model cannot be checked: %w", id, ErrUnavailable)
		}
		if _, err := s.d.Models(ctx, *ch.Model); err != nil {
			return bad(`"model": %v`, err)
		}
	}
	if ch.SetupTestID != nil && *ch.SetupTestID != "" {
		t, err := s.d.Store.Test(ctx, *ch.SetupTestID)
		if errors.Is(err, gardener.ErrNotFound) || err == nil && t.ProjectID != id {
			return bad(`"setupTestId": %s is not a test of project %s (push the test first)`, *ch.SetupTestID, id)
		}
		if err != nil {
			return fmt.Errorf("project %s: setup test %s: %w", id, *ch.SetupTestID, err)
		}
	}
	return nil
}

// checkOrigin accepts an origin as a browser writes one: http or https, a host, an optional
// port, nothing after it.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", o, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an origin (scheme://host[:port], http or https, nothing after)", o)
	}
	return nil
}

// origins are the origins given, each as scheme://host[:port] in lower case, once each.
func origins(in []string) []string {
	out := []string{}
	for _, o := range in {
		u, _ := url.Parse(o)
		norm := strings.ToLower(u.Scheme + "://" + u.Host)
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out
}
