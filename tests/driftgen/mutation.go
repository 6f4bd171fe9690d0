// Package driftgen generates drift and regressions for any web app from its saved tests, applies
// them to the app's live pages behind an HTTP server, and runs the repair ladder on each case to
// count what it repaired with the intended element, staged, triaged, got wrong, and wrote green
// over a regression (a false heal).
//
// It is test tooling, not part of the product: it lives under tests/ because only the gardener's
// own benchmarks and tests use it. It knows nothing about a particular app. Its inputs are an
// http.Handler factory and saved tests; its ground truth comes from the tests' green runs (the
// XPath of every element a step used, on the page it was on) and from a runtime injected into
// every HTML document, which marks those elements, mutates the target on every load and
// re-render (a client-rendered app included), and reports each click, entry and key press on a
// marked element back to the server.
package driftgen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Class says whether a mutation keeps what the app does (drift: a correct repair exists that
// keeps every check) or breaks it (regression: no repair may be written).
type Class string

// Mutation classes.
const (
	Drift      Class = "drift"
	Regression Class = "regression"
)

// Kind is one kind of mutation.
type Kind string

// Drift kinds.
const (
	RenameID       Kind = "rename-id"
	RenameClass    Kind = "rename-class"
	RenameTestID   Kind = "rename-testid"
	Wrap           Kind = "wrap"
	Unwrap         Kind = "unwrap"
	Reorder        Kind = "reorder"
	Synonym        Kind = "synonym"
	MoveToolbar    Kind = "move-toolbar"
	MoveMenu       Kind = "move-menu"
	Icon           Kind = "icon"
	Overlay        Kind = "overlay"
	DecoyBefore    Kind = "decoy-before"
	RequiredText   Kind = "required-text"
	RequiredEmail  Kind = "required-email"
	RequiredNumber Kind = "required-number"
	RequiredDate   Kind = "required-date"
	RequiredSelect Kind = "required-select"
	RequiredRadio  Kind = "required-radio"
	RequiredCheck  Kind = "required-checkbox"
	// Live data and builds: the page shows other values, hashes or orders on every load (the
	// site's generation), so a repair proven on one load must find its element on the next.
	// LiveCount and LivePrice put a count or a price that changes between loads into a
	// button's or link's name (and rename the element's own id and classes, as the release that
	// added them did); ClassHash gives the classes of the element and its ancestors a hash that
	// changes with every build (CSS modules); ListOrder shows the element's list in another
	// order on every load.
	LiveCount Kind = "live-count"
	LivePrice Kind = "live-price"
	ClassHash Kind = "class-hash"
	ListOrder Kind = "list-order"
	// RowIcons turns a row's text actions into icon buttons named by the action and the row
	// ("Delete INV-002"), with another action's icon ("View INV-002") of the same markup
	// before each, so a locator of the row's button now finds two.
	RowIcons Kind = "row-icons"
)

// Regression kinds.
const (
	WrongNumber Kind = "wrong-number"
	DeadButton  Kind = "dead-button"
	HTTP500     Kind = "http-500"
	Missing     Kind = "missing"
	RowGone     Kind = "row-gone"
)

// Kinds lists every kind in the order the table prints them, drift first.
func Kinds() []Kind {
	return []Kind{RenameID, RenameClass, RenameTestID, Wrap, Unwrap, Reorder, Synonym, Icon, MoveToolbar, MoveMenu,
		Overlay, DecoyBefore, LiveCount, LivePrice, ClassHash, ListOrder, RowIcons, RequiredText, RequiredEmail, RequiredNumber, RequiredDate, RequiredSelect,
		RequiredRadio, RequiredCheck, WrongNumber, DeadButton, HTTP500, Missing, RowGone}
}

// ClassOf says whether a kind is drift or a regression.
func ClassOf(k Kind) Class {
	switch k {
	case WrongNumber, DeadButton, HTTP500, Missing, RowGone:
		return Regression
	}
	return Drift
}

// Target is an element a step of the test used on its green run: where it was (the page's
// path, the XPath the runner recorded, whether it was in a frame) and the key the runtime
// reports it by (the path of the first step that used it).
type Target struct {
	Key   string `json:"key"`
	Page  string `json:"page"`
	XPath string `json:"xpath"`
	Frame bool   `json:"frame,omitempty"`
}

// Mutation is one generated case: a change of kind Kind to the element step Step used.
type Mutation struct {
	Kind  Kind   `json:"kind"`
	Class Class  `json:"class"`
	Test  string `json:"test"`
	// Step is the path of the step whose element the mutation changes; Key is that element's
	// key (the first step that used it), the ground truth a repair is checked against.
	Step string `json:"step"`
	Key  string `json:"key"`
	// Params are what the page runtime needs (the new id, the words swapped, the new field's
	// markup), chosen here from the seed so a case is the same on every run.
	Params map[string]any `json:"p,omitempty"`
	// Method and Path name the request answered 500 (HTTP500 only).
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Insert is the step a correct repair adds before Step (the new field filled, the menu
	// opened); with the mutated element's new XPath it makes the reference repair that shows a
	// drift case can be repaired at all.
	Insert *gardener.Step `json:"-"`
	// Seed is the seed the params were drawn from.
	Seed uint64 `json:"seed"`
}

// Name names the case in tables and test names: kind, test and step.
func (m Mutation) Name() string {
	if m.Kind == HTTP500 {
		return fmt.Sprintf("%s/%s@%s:%s %s", m.Kind, m.Test, m.Step, m.Method, m.Path)
	}
	return fmt.Sprintf("%s/%s@%s", m.Kind, m.Test, m.Step)
}

// TargetsOf lists the elements the green run's steps used, one entry per element.
func TargetsOf(green gardener.RunResult) []Target {
	var out []Target
	seen := map[string]bool{}
	for _, r := range green.Steps {
		if r.Element == nil || r.Element.XPath == "" || r.Skipped {
			continue
		}
		t := Target{Key: r.Path, Page: pathOf(r.URLBefore), XPath: r.Element.XPath, Frame: r.Element.Frame != ""}
		id := t.Page + "\x00" + t.XPath + "\x00" + strconv.FormatBool(t.Frame)
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, t)
	}
	return out
}

// keyOf is the key of the element step path used on the green run.
func keyOf(targets []Target, green gardener.RunResult, path string) string {
	fp := green.Element(path)
	if fp == nil {
		return ""
	}
	var page string
	for _, r := range green.Steps {
		if r.Path == path {
			page = pathOf(r.URLBefore)
		}
	}
	for _, t := range targets {
		if t.XPath == fp.XPath && t.Page == page && t.Frame == (fp.Frame != "") {
			return t.Key
		}
	}
	return ""
}

// Generate lists every mutation that applies to test t, given its green run: for each step that
// used an element, the kinds that can break that step's locator or what it checks. The params
// of each are drawn from seed and the case's name, so the list is the same on every call.
func Generate(t gardener.Test, green gardener.RunResult, seed uint64) []Mutation {
	targets := TargetsOf(green)
	var out []Mutation
	add := func(k Kind, path string, s gardener.Step, fp *gardener.Fingerprint) {
		m := Mutation{Kind: k, Class: ClassOf(k), Test: t.ID, Step: path, Key: keyOf(targets, green, path), Seed: seed}
		if m.Key == "" && k != HTTP500 {
			return
		}
		r := rand.New(rand.NewPCG(seed, hashOf(m.Name())))
		if !params(&m, r, s, fp, green, path) {
			return
		}
		out = append(out, m)
	}
	type visit struct {
		path string
		step gardener.Step
	}
	var order []visit
	walk(t.Steps, "", func(path string, s gardener.Step) { order = append(order, visit{path, s}) })
	lastCheck := -1
	for i, v := range order {
		if v.step.IsCheck() {
			lastCheck = i
		}
	}
	firstAction := ""
	for i, v := range order {
		path, s := v.path, v.step
		fp := green.Element(path)
		// A dead button and a failing request are regressions only when a later check notices.
		if i < lastCheck && s.IsAction() {
			for _, rq := range requestsOf(green, path) {
				m := Mutation{Kind: HTTP500, Class: Regression, Test: t.ID, Step: path, Key: keyOf(targets, green, path), Method: rq.Method, Path: pathOf(rq.URL), Seed: seed}
				out = append(out, m)
			}
			if s.Kind == gardener.Click && fp != nil {
				add(DeadButton, path, s, fp)
			}
		}
		if fp == nil || s.Target().IsZero() {
			continue
		}
		l := s.Target()
		structural := l.Kind == gardener.ByCSS || l.Kind == gardener.ByXPath
		// byClass: the locator names the element's classes; inRow: the element is in a table
		// row or a list item.
		byClass := structural && (strings.Contains(l.Value, ".") || strings.Contains(l.Value, "@class"))
		inRow := strings.Contains(fp.XPath, "/tr[") || strings.Contains(fp.XPath, "/li[")
		if s.IsAction() {
			if firstAction == "" {
				firstAction = path
				add(Overlay, path, s, fp)
			}
			if fp.ID != "" && strings.Contains(l.Value, fp.ID) {
				add(RenameID, path, s, fp)
			}
			if byClass {
				add(RenameClass, path, s, fp)
			}
			if l.Kind == gardener.ByTestID {
				add(RenameTestID, path, s, fp)
			}
			if structural {
				for _, k := range []Kind{Wrap, Unwrap, Reorder, MoveToolbar, DecoyBefore} {
					add(k, path, s, fp)
				}
			}
			switch l.Kind {
			case gardener.ByText, gardener.ByRole, gardener.ByLabel, gardener.ByPlaceholder:
				add(Synonym, path, s, fp)
			}
			if s.Kind == gardener.Click && (l.Kind == gardener.ByText || l.Kind == gardener.ByRole) && len(fp.VisibleText) > 0 {
				add(Icon, path, s, fp)
			}
			named := s.Kind == gardener.Click && len(fp.VisibleText) > 0 && !strings.EqualFold(fp.Tag, "input")
			if named && (l.Kind == gardener.ByRole || structural) {
				add(LiveCount, path, s, fp)
				add(LivePrice, path, s, fp)
			}
			if byClass {
				add(ClassHash, path, s, fp)
			}
			if s.Kind == gardener.Click && structural && inRow {
				add(ListOrder, path, s, fp)
			}
			if named && inRow {
				add(RowIcons, path, s, fp)
			}
			add(MoveMenu, path, s, fp)
			if s.Kind == gardener.Click && submits(*fp) {
				for _, k := range []Kind{RequiredText, RequiredEmail, RequiredNumber, RequiredDate, RequiredSelect, RequiredRadio, RequiredCheck} {
					add(k, path, s, fp)
				}
			}
		}
		if s.IsCheck() && s.Kind != gardener.AssertHidden {
			add(WrongNumber, path, s, fp)
			add(Missing, path, s, fp)
			if inRow {
				add(RowGone, path, s, fp)
			}
		}
	}
	return out
}

// submits reports whether a clicked element submits a form: a submit button inside one. A new
// required field only stops a click that submits.
func submits(fp gardener.Fingerprint) bool {
	inForm := fp.FormID != "" || strings.Contains(fp.XPath, "/form[")
	switch strings.ToUpper(fp.Tag) {
	case "BUTTON":
		return inForm && (fp.Type == "" || strings.EqualFold(fp.Type, "submit"))
	case "INPUT":
		return inForm && (strings.EqualFold(fp.Type, "submit") || strings.EqualFold(fp.Type, "image"))
	}
	return false
}

// walk visits every step with its path, the steps of intent blocks included.
func walk(steps []gardener.Step, prefix string, f func(path string, s gardener.Step)) {
	for i, s := range steps {
		p := prefix + strconv.Itoa(i+1)
		if s.Kind == gardener.Intent {
			walk(s.Steps, p+".", f)
			continue
		}
		f(p, s)
	}
}

// params chooses a case's parameters; false when the kind does not apply to the step after all.
func params(m *Mutation, r *rand.Rand, s gardener.Step, fp *gardener.Fingerprint, green gardener.RunResult, path string) bool {
	p := map[string]any{}
	m.Params = p
	suffix := strconv.Itoa(100 + r.IntN(900))
	switch m.Kind {
	case RenameID:
		p["id"] = pick(r, []string{fp.ID + "-field", "f-" + fp.ID, fp.ID + "-" + suffix, strings.ReplaceAll(fp.ID, "-", "_") + "_v2"})
	case RenameClass:
		p["prefix"] = pick(r, []string{"ds-", "ui-", "c-", "tw-"})
	case RenameTestID:
		p["testid"] = pick(r, []string{fp.TestID + "-v2", "qa-" + fp.TestID, fp.TestID + "-" + suffix})
	case Wrap:
		p["tag"] = pick(r, []string{"div", "span"})
		p["cls"] = pick(r, []string{"form-actions", "control", "field-wrap", "stack"})
	case Unwrap, Reorder, Missing, RowGone, DeadButton, ListOrder:
	case LiveCount, LivePrice:
		if m.Kind == LiveCount {
			p["n"], p["step"] = 1+r.IntN(9), 1+r.IntN(7)
		} else {
			p["cents"], p["step"] = 199+r.IntN(9800), 37+r.IntN(500)
		}
		// A name locator breaks on the live data alone; a structural one only with the
		// element's own id and classes renamed too, as the release that made the name live
		// did. Renamed handles the app's own code looks up break the app, so they are
		// renamed only where the locator needs it.
		if l := s.Target(); l.Kind == gardener.ByCSS || l.Kind == gardener.ByXPath {
			p["prefix"] = pick(r, []string{"ds-", "ui-", "c-", "tw-"})
			p["id"] = fp.ID + "-" + suffix
		}
	case ClassHash:
		p["salt"] = suffix
	case RowIcons:
		p["glyph"] = pick(r, []string{"🗑", "✕", "✎", "⋯", "→"})
		p["other"] = pick(r, []string{"View", "Open", "Details", "Preview"})
	case Synonym:
		pairs := synonymPairs(r, s.Target())
		if len(pairs) == 0 {
			return false
		}
		p["pairs"] = pairs
	case MoveToolbar:
		p["label"] = pick(r, []string{"Actions", "Quick actions", "Tools"})
		p["formId"] = "form-" + suffix
	case Icon:
		p["glyph"] = pick(r, []string{"›", "→", "✓", "✕", "⋯", "+", "★"})
		p["more"] = pick(r, []string{"", "", " now", " item"})
	case MoveMenu:
		id := "menu-toggle-" + suffix
		p["label"] = pick(r, []string{"More", "Actions", "More actions", "Options"})
		p["style"] = pick(r, []string{"details", "popup"})
		p["summaryId"] = id
		p["formId"] = "form-" + suffix
		m.Insert = &gardener.Step{Kind: gardener.Click, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "#" + id}}
	case Overlay:
		p["boxId"] = "notice-" + suffix
		p["html"] = overlayHTML(r, "notice-"+suffix)
	case DecoyBefore:
		p["text"] = pick(r, []string{"Preview", "Help", "Draft", "Details", "Compare"})
	case RequiredText, RequiredEmail, RequiredNumber, RequiredDate, RequiredSelect, RequiredRadio, RequiredCheck:
		html, ins := requiredField(r, m.Kind, suffix)
		p["html"] = html
		m.Insert = ins
	case WrongNumber:
		from := numberIn.FindString(s.Expected + " " + s.Text)
		if from == "" {
			return false
		}
		p["from"], p["to"] = from, otherNumber(from)
	default:
		return false
	}
	return true
}

// required field kinds carry the field in the params; the runtime only knows "required".
func init() {
	for _, k := range []Kind{RequiredText, RequiredEmail, RequiredNumber, RequiredDate, RequiredSelect, RequiredRadio, RequiredCheck} {
		runtimeKind[k] = "required"
	}
}

// runtimeKind maps generator kinds onto the page runtime's (several share one).
var runtimeKind = map[Kind]string{}

func jsKind(k Kind) string {
	if v, ok := runtimeKind[k]; ok {
		return v
	}
	return string(k)
}

var numberIn = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// otherNumber changes the last digit of a number, so the page shows a plausible wrong value.
func otherNumber(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] >= '0' && b[i] <= '9' {
			b[i] = '0' + (b[i]-'0'+3)%10
			break
		}
	}
	return string(b)
}

// requestsOf are the requests the step made on its green run that a server answers (calls and
// documents, not static files), one per method and path. Paths under /__ are the laboratory's
// tooling, not the app: the generator's own reports and the demo apps' record of what a test
// did (a page's click beacons); a 500 there changes nothing the app does.
func requestsOf(green gardener.RunResult, path string) []gardener.Request {
	var out []gardener.Request
	seen := map[string]bool{}
	for _, r := range green.Steps {
		if r.Path != path {
			continue
		}
		for _, rq := range r.Requests {
			p := pathOf(rq.URL)
			if strings.HasPrefix(p, "/__") || staticFile.MatchString(p) || seen[rq.Method+" "+p] || rq.Status >= 400 || rq.Failed != "" {
				continue
			}
			seen[rq.Method+" "+p] = true
			out = append(out, rq)
		}
	}
	return out
}

var staticFile = regexp.MustCompile(`\.(js|mjs|css|png|jpe?g|gif|svg|ico|woff2?|ttf|map)$`)

// synonyms are how products reword their controls; every pair goes both ways.
var synonyms = [][2]string{
	{"login", "sign in"}, {"log in", "sign in"}, {"log out", "sign out"}, {"logout", "sign out"},
	{"delete", "remove"}, {"save", "store"}, {"add", "put"}, {"cart", "basket"}, {"products", "catalogue"},
	{"continue", "next"}, {"proceed", "go on"}, {"checkout", "pay"}, {"place", "submit"}, {"order", "purchase"},
	{"search", "find"}, {"username", "user name"}, {"password", "passphrase"}, {"name", "title"},
	{"address", "street"}, {"city", "town"}, {"postcode", "zip code"}, {"delivery", "shipping"},
	{"quantity", "amount"}, {"card", "credit card"}, {"terms", "conditions"}, {"accept", "agree to"},
	{"stock", "inventory"}, {"create", "new"}, {"cancel", "dismiss"}, {"edit", "change"}, {"send", "submit"},
	{"email", "e-mail"}, {"category", "type"}, {"invoice", "bill"}, {"customer", "client"}, {"settings", "preferences"},
	{"new", "create"}, {"product", "item"}, {"only", "just"}, {"show", "display"}, {"close", "done"},
}

// synonymPairs picks one reword for a word the locator names, or none when it names no word
// the list knows.
func synonymPairs(r *rand.Rand, l gardener.Locator) [][2]string {
	text := strings.ToLower(l.Value)
	if l.Kind == gardener.ByRole {
		text = strings.ToLower(l.Name)
	}
	var fits [][2]string
	for _, s := range synonyms {
		for _, p := range [][2]string{s, {s[1], s[0]}} {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(p[0]) + `\b`).MatchString(text) {
				fits = append(fits, p)
			}
		}
	}
	if len(fits) == 0 {
		return nil
	}
	return [][2]string{fits[r.IntN(len(fits))]}
}

// overlayHTML is a consent dialog or announcement banner over the whole page, in one of the
// wordings real sites use. Its one button removes it; it is back on the next load.
func overlayHTML(r *rand.Rand, id string) string {
	button := pick(r, []string{"Accept all", "Got it", "I agree", "Accept cookies", "OK", "Allow all", "Close", "No thanks"})
	text := pick(r, []string{"We use cookies to improve your experience.", "New: faster checkout is here.", "We value your privacy.", "Scheduled maintenance on Sunday."})
	if r.IntN(2) == 0 {
		return `<div id="` + id + `" class="consent-overlay" role="dialog" aria-modal="true" aria-label="Consent" style="position:fixed;inset:0;z-index:2147483000;background:rgba(0,0,0,.55)">` +
			`<div style="background:#fff;margin:15% auto;width:320px;padding:16px"><p>` + text + `</p><button type="button">` + button + `</button></div></div>`
	}
	return `<div id="` + id + `" class="site-banner" role="region" aria-label="Announcement" style="position:fixed;inset:0;z-index:2147483000;background:rgba(255,255,255,.7)">` +
		`<div style="position:absolute;left:0;right:0;bottom:0;background:#222;color:#fff;padding:16px"><span>` + text + `</span> <button type="button">` + button + `</button></div></div>`
}

// requiredField is the markup of a new required control of the kind's type, with a label a
// person would write, and the step a correct repair inserts to fill it.
func requiredField(r *rand.Rand, k Kind, suffix string) (string, *gardener.Step) {
	id := "f" + suffix
	loc := gardener.Locator{Kind: gardener.ByCSS, Value: "#" + id}
	field := func(label, control string) string {
		return `<div class="field"><label for="` + id + `">` + label + `</label>` + control + `</div>`
	}
	switch k {
	case RequiredText:
		label := pick(r, []string{"Company", "Reference", "Full name", "Job title", "City"})
		return field(label, `<input id="`+id+`" name="`+id+`" type="text" required>`), &gardener.Step{Kind: gardener.Fill, Locator: loc, Value: "Acme"}
	case RequiredEmail:
		label := pick(r, []string{"Work email", "Email address", "Billing email"})
		return field(label, `<input id="`+id+`" name="`+id+`" type="email" required>`), &gardener.Step{Kind: gardener.Fill, Locator: loc, Value: "a@example.com"}
	case RequiredNumber:
		label := pick(r, []string{"Number of seats", "Age", "Team size", "Units"})
		lo := 1 + r.IntN(5)
		return field(label, `<input id="`+id+`" name="`+id+`" type="number" min="`+strconv.Itoa(lo)+`" max="500" required>`), &gardener.Step{Kind: gardener.Fill, Locator: loc, Value: strconv.Itoa(lo)}
	case RequiredDate:
		label := pick(r, []string{"Preferred date", "Date of birth", "Start date"})
		min := pick(r, []string{"", "2027-03-01", "1990-01-01"})
		attr := ""
		if min != "" {
			attr = ` min="` + min + `"`
		}
		return field(label, `<input id="`+id+`" name="`+id+`" type="date"`+attr+` required>`), &gardener.Step{Kind: gardener.Fill, Locator: loc, Value: "2027-06-01"}
	case RequiredSelect:
		label := pick(r, []string{"Country", "Payment terms", "Department", "How did you hear about us?"})
		prompt := pick(r, []string{"Choose…", "-- select --", "Please select"})
		return field(label, `<select id="`+id+`" name="`+id+`" required><option value="">`+prompt+`</option><option value="a">Option A</option><option value="b">Option B</option></select>`),
			&gardener.Step{Kind: gardener.Select, Locator: loc, Value: "Option A"}
	case RequiredRadio:
		legend := pick(r, []string{"Plan", "Contact preference", "Room type"})
		return `<fieldset class="field"><legend>` + legend + `</legend><label><input type="radio" id="` + id + `" name="` + id + `" value="one" required> First</label>` +
				`<label><input type="radio" name="` + id + `" value="two"> Second</label></fieldset>`,
			&gardener.Step{Kind: gardener.Check, Locator: loc}
	case RequiredCheck:
		label := pick(r, []string{"I accept the privacy policy", "I confirm the details are correct", "I am over 18"})
		return `<div class="field"><label><input type="checkbox" id="` + id + `" name="` + id + `" required> ` + label + `</label></div>`,
			&gardener.Step{Kind: gardener.Check, Locator: loc}
	}
	return "", nil
}

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

func hashOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

// Sample draws up to n cases of each kind from ms, in a seeded order, so a run of the table is
// the same cases every time; the result is in Kinds order.
func Sample(ms []Mutation, n int, seed uint64) []Mutation {
	byKind := map[Kind][]Mutation{}
	for _, m := range ms {
		byKind[m.Kind] = append(byKind[m.Kind], m)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []Mutation
	for _, k := range Kinds() {
		list := slices.Clone(byKind[k])
		r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		out = append(out, list[:min(n, len(list))]...)
	}
	return out
}
