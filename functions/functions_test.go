package functions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/template"
)

// byDir is the table of functions by directory, refusing two entries with one id or directory.
func byDir(t *testing.T) map[string]handler.Function {
	t.Helper()
	dirs, ids := map[string]handler.Function{}, map[string]bool{}
	for _, f := range handler.Functions {
		if _, dup := dirs[f.Dir]; dup || ids[f.ID] {
			t.Fatalf("two functions with the id %s or the directory %s", f.ID, f.Dir)
		}
		dirs[f.Dir], ids[f.ID] = f, true
	}
	return dirs
}

// TestTableMatchesTemplate: the template's functions are the table's, each zip function's
// CodeUri is its directory and each image function's command is the binary the Dockerfile
// builds from its directory.
func TestTableMatchesTemplate(t *testing.T) {
	tpl, err := template.Load("../template.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	table := map[string]handler.Function{}
	for _, f := range byDir(t) {
		table[f.ID] = f
	}
	if got, want := slices.Sorted(maps.Keys(tpl.Functions)), slices.Sorted(maps.Keys(table)); !slices.Equal(got, want) {
		t.Fatalf("template functions %v, table %v", got, want)
	}
	for id, f := range table {
		tf := tpl.Functions[id]
		if f.Image {
			if tf.PackageType != "Image" || !slices.Equal(tf.Command, []string{"/opt/gardener/" + f.Dir}) {
				t.Errorf("%s runs in the Chromium image as %s; the template has PackageType %q, Command %v", id, f.Dir, tf.PackageType, tf.Command)
			}
			continue
		}
		if tf.PackageType == "Image" || tf.CodeURI != "functions/"+f.Dir+"/" {
			t.Errorf("%s is a zip of functions/%s/; the template has PackageType %q, CodeUri %q", id, f.Dir, tf.PackageType, tf.CodeURI)
		}
	}
}

// TestTableMatchesDockerfile: the Chromium image builds exactly the image functions.
func TestTableMatchesDockerfile(t *testing.T) {
	b, err := os.ReadFile("../infra/chromium/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	loop := regexp.MustCompile(`for fn in ([a-z ]+); do`).FindSubmatch(b)
	if loop == nil {
		t.Fatal("the Dockerfile has no `for fn in …; do` loop over the functions it builds")
	}
	var want []string
	for dir, f := range byDir(t) {
		if f.Image {
			want = append(want, dir)
		}
	}
	if got := strings.Fields(string(loop[1])); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the Dockerfile builds %v; the image functions are %v", got, want)
	}
}

// TestEachMainStartsItsFunction: the directories here are the table's, and each main starts
// the entry its directory belongs to: its body is cloud.Start(handler.<logical id>).
func TestEachMainStartsItsFunction(t *testing.T) {
	table := byDir(t)
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if want := slices.Sorted(maps.Keys(table)); !slices.Equal(dirs, want) {
		t.Fatalf("directories %v, table %v", dirs, want)
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, "main.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if started := startedIn(f); started != table[dir].ID {
			t.Errorf("%s starts %q; the table has %s in functions/%s", path, started, table[dir].ID, dir)
		}
	}
}

// startedIn returns X of a main whose body is the one statement cloud.Start(handler.X), or "".
func startedIn(f *ast.File) string {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "main" || len(fn.Body.List) != 1 {
			continue
		}
		stmt, ok := fn.Body.List[0].(*ast.ExprStmt)
		if !ok {
			return ""
		}
		call, ok := stmt.X.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !isSelector(call.Fun, "cloud", "Start") {
			return ""
		}
		if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && isSelector(arg, "handler", arg.Sel.Name) {
			return arg.Sel.Name
		}
	}
	return ""
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// TestNoLambdaLinksTheDemoApp: the demo shop belongs to `gardener app` and `gardener demo`; no
// Lambda binary carries it.
func TestNoLambdaLinksTheDemoApp(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: the go command is not on PATH; install Go (https://go.dev/doc/install)")
	}
	out, err := exec.Command(gobin, "list", "-deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./functions/...: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/driftgardener/gardener/pkg/handler") {
		t.Fatalf("go list -deps ./functions/... does not list pkg/handler: the check reads the wrong packages:\n%s", out)
	}
	const demo = "github.com/driftgardener/gardener/tests/demoapp"
	for _, d := range deps {
		if d == demo || strings.HasPrefix(d, demo+"/") {
			t.Errorf("a Lambda links %s", d)
		}
	}
}
