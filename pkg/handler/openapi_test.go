package handler_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/handler"
)

// openAPI is the part of docs/openapi.yaml the test compares with the router.
type openAPI struct {
	OpenAPI string `yaml:"openapi"`
	// Paths maps a path to its operations by method, and "parameters" to the parameters its
	// operations share.
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Components struct {
		Parameters map[string]struct {
			Name string `yaml:"name"`
			In   string `yaml:"in"`
		} `yaml:"parameters"`
	} `yaml:"components"`
}

type operation struct {
	OperationID string         `yaml:"operationId"`
	Responses   map[string]any `yaml:"responses"`
}

type ref struct {
	Ref string `yaml:"$ref"`
}

var methods = []string{"get", "put", "post", "delete", "patch", "head", "options"}

// TestOpenAPIDescribesTheRouter: every route the router serves is an operation of
// docs/openapi.yaml and every operation there is a route; each operation answers something,
// has a unique operationId, and declares the path parameters its path names.
func TestOpenAPIDescribesTheRouter(t *testing.T) {
	b, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi %q, want 3.x", doc.OpenAPI)
	}
	var documented []string
	ids := map[string]string{}
	for path, item := range doc.Paths {
		// Path-level entries hold the parameters every operation of the path shares.
		var shared []ref
		if n, ok := item["parameters"]; ok {
			if err := n.Decode(&shared); err != nil {
				t.Errorf("%s: parameters: %v", path, err)
			}
		}
		for method, node := range item {
			if method == "parameters" {
				continue
			}
			var op operation
			if err := node.Decode(&op); err != nil {
				t.Errorf("%s %s: %v", method, path, err)
				continue
			}
			if !slices.Contains(methods, method) {
				t.Errorf("%s: %q is not an HTTP method", path, method)
				continue
			}
			route := strings.ToUpper(method) + " " + path
			documented = append(documented, route)
			if len(op.Responses) == 0 {
				t.Errorf("%s answers nothing", route)
			}
			if prev, ok := ids[op.OperationID]; ok || op.OperationID == "" {
				t.Errorf("%s: operationId %q is empty or also %s's", route, op.OperationID, prev)
			}
			ids[op.OperationID] = route
			declared := map[string]bool{}
			for _, r := range shared {
				p := doc.Components.Parameters[strings.TrimPrefix(r.Ref, "#/components/parameters/")]
				if p.In == "path" {
					declared[p.Name] = true
				}
			}
			for _, seg := range strings.Split(path, "/") {
				if strings.HasPrefix(seg, "{") && !declared[strings.Trim(seg, "{}")] {
					t.Errorf("%s does not declare its path parameter %s", route, seg)
				}
			}
		}
	}
	// The console's routes answer HTML pages and forms to a browser with a session, not JSON to
	// a client with a token; they are documented in docs/console.md, not in the API's document.
	served := slices.DeleteFunc(handler.Routes(), func(r string) bool {
		_, path, _ := strings.Cut(r, " ")
		return path == console.Prefix || strings.HasPrefix(path, console.Prefix+"/")
	})
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is served but not in docs/openapi.yaml", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("docs/openapi.yaml describes %s, which the router does not serve", r)
		}
	}
}
