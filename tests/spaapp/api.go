package spaapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// Member is one person of the team.
type Member struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  string `json:"role"`
	Team  string `json:"team,omitempty"`
}

// Profile is the signed-in person's profile page: one control of each kind a recording changes
// (a text field, radio buttons, a select, a checkbox, a text area, an editable element) and a
// wave by double click, so that recordings of every control type replay against Crewdesk too.
type Profile struct {
	DisplayName string `json:"displayName"`
	Theme       string `json:"theme"`
	TimeZone    string `json:"timeZone"`
	Away        bool   `json:"away"`
	About       string `json:"about"`
	Status      string `json:"status"`
	Waves       int    `json:"waves"`
}

var (
	themes    = []string{"light", "dark", "system"}
	timeZones = []string{"utc", "cet", "pst"}
)

// Settings is the team's settings page.
type Settings struct {
	TeamName      string `json:"teamName"`
	WeeklySummary bool   `json:"weeklySummary"`
}

// Roles a member may have.
var roles = []string{"Viewer", "Editor", "Admin"}

// pageSize is how many members a page of the table shows.
const pageSize = 5

// seatPrice is what one member costs a month, in cents; seats is how many the plan has.
const (
	seatPrice = 2000
	seats     = 20
)

// loadDelay is the API's latency behind the spinners; slowDelay is the slow-reports variant's,
// longer than a step's usual time limit.
const (
	loadDelay = 250 * time.Millisecond
	slowDelay = 6 * time.Second
)

func seedMembers() []Member {
	seed := []struct{ name, role string }{
		{"Ada Lovelace", "Admin"}, {"Alan Turing", "Editor"}, {"Grace Hopper", "Editor"},
		{"Katherine Johnson", "Viewer"}, {"Linus Torvalds", "Viewer"}, {"Margaret Hamilton", "Admin"},
		{"Dennis Ritchie", "Editor"}, {"Barbara Liskov", "Editor"}, {"Ken Thompson", "Viewer"},
		{"Radia Perlman", "Viewer"}, {"Donald Knuth", "Editor"}, {"Frances Allen", "Viewer"},
	}
	out := make([]Member, len(seed))
	for i, s := range seed {
		first := strings.ToLower(strings.Fields(s.name)[0])
		out[i] = Member{ID: i + 1, Name: s.name, Email: first + "@crewdesk.test", Role: s.role}
	}
	return out
}

// cents is an amount of money in US cents.
type cents int

func (c cents) String() string { return fmt.Sprintf("$%d.%02d", c/100, c%100) }

// invoiceJSON is the open invoice of the billing page.
type invoiceJSON struct {
	Number string `json:"number"`
	Due    cents  `json:"-"`
	DueStr string `json:"due"`
	Status string `json:"status"`
}

func (a *App) invoice(_ *http.Request) invoiceJSON {
	due := cents(6 * seatPrice)
	return invoiceJSON{Number: "INV-2041", Due: due, DueStr: due.String(), Status: "Open"}
}

// writeJSON is the apps' one JSON answer, so that the API and the admin endpoints answer alike.
var writeJSON = appkit.WriteJSON

// readJSON decodes a JSON body into v, answering 400 naming the problem when it cannot.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("body larger than 1 MiB")
	}
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("%s %s: body is not the JSON expected: %v", r.Method, r.URL.Path, err)})
		return false
	}
	return true
}

// apiMembers answers one page of the members matching ?q= (a part of the name or email,
// case-insensitive): {"items", "total", "page", "pages"}.
func (a *App) apiMembers(w http.ResponseWriter, r *http.Request) {
	pause(r, loadDelay)
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	page := 1
	if s := r.URL.Query().Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("page %q is not a page number (1, 2, …)", s)})
			return
		}
		page = n
	}
	if a.on(r, vPaginationStuck) {
		page = 1
	}
	if a.on(r, vFilterBroken) {
		q = ""
	}
	a.mu.Lock()
	var match []Member
	for _, m := range a.ws(r).members {
		if q == "" || strings.Contains(strings.ToLower(m.Name), q) || strings.Contains(strings.ToLower(m.Email), q) {
			match = append(match, m)
		}
	}
	a.mu.Unlock()
	pages := max(1, (len(match)+pageSize-1)/pageSize)
	page = min(page, pages)
	items := match[min((page-1)*pageSize, len(match)):min(page*pageSize, len(match))]
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": len(match), "page": page, "pages": pages})
}

// memberIndex finds the member the path names in ws, answering 404 when there is none; the
// caller holds a.mu.
func (a *App) memberIndex(w http.ResponseWriter, r *http.Request, ws *workspace) (int, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err == nil {
		for i, m := range ws.members {
			if m.ID == id {
				return i, true
			}
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no member %q", r.PathValue("id"))})
	return 0, false
}

func (a *App) apiMember(w http.ResponseWriter, r *http.Request) {
	pause(r, loadDelay)
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.ws(r)
	if i, ok := a.memberIndex(w, r, ws); ok {
		writeJSON(w, http.StatusOK, ws.members[i])
	}
}

// apiSaveMember changes a member's name and role.
func (a *App) apiSaveMember(w http.ResponseWriter, r *http.Request) {
	var in struct{ Name, Role string }
	if !readJSON(w, r, &in) {
		return
	}
	if a.on(r, vSave500) {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "database unavailable"})
		return
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || !slices.Contains(roles, in.Role) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": fmt.Sprintf("a member needs a name and one of the roles %s", strings.Join(roles, ", "))})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.ws(r)
	if i, ok := a.memberIndex(w, r, ws); ok {
		ws.members[i].Name, ws.members[i].Role = in.Name, in.Role
		writeJSON(w, http.StatusOK, ws.members[i])
	}
}

// apiDeleteMember removes a member (204). The deletes-wrong-row regression removes the member
// after the one asked.
func (a *App) apiDeleteMember(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.ws(r)
	i, ok := a.memberIndex(w, r, ws)
	if !ok {
		return
	}
	if a.on(r, vDeletesWrongRow) && i+1 < len(ws.members) {
		i++
	}
	ws.members = slices.Delete(ws.members, i, i+1)
	w.WriteHeader(http.StatusNoContent)
}

// apiInvite adds a member from an invitation: {"email", "role", "team"} (team is required when
// the invite form asks for it).
func (a *App) apiInvite(w http.ResponseWriter, r *http.Request) {
	var in struct{ Email, Role, Team string }
	if !readJSON(w, r, &in) {
		return
	}
	addr, err := mail.ParseAddress(strings.TrimSpace(in.Email))
	if err != nil || !slices.Contains(roles, in.Role) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": fmt.Sprintf("an invitation needs an email address and one of the roles %s", strings.Join(roles, ", "))})
		return
	}
	if a.on(r, vInviteTeam) && in.Team == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": "an invitation needs a team"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.ws(r)
	name, _, _ := strings.Cut(addr.Address, "@")
	m := Member{ID: ws.nextID, Name: name, Email: addr.Address, Role: in.Role, Team: in.Team}
	ws.nextID++
	ws.members = append(ws.members, m)
	writeJSON(w, http.StatusCreated, m)
}

func (a *App) apiInvoice(w http.ResponseWriter, r *http.Request) {
	pause(r, loadDelay)
	writeJSON(w, http.StatusOK, a.invoice(r))
}

// apiPay takes a card payment of the open invoice: {"card", "expiry", "name"}.
func (a *App) apiPay(w http.ResponseWriter, r *http.Request) {
	var in struct{ Card, Expiry, Name string }
	if !readJSON(w, r, &in) {
		return
	}
	digits := strings.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return c
		}
		if c == ' ' || c == '-' {
			return -1
		}
		return 'x'
	}, in.Card)
	if len(digits) < 12 || strings.Contains(digits, "x") || len(in.Expiry) != 5 || strings.TrimSpace(in.Name) == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": "a payment needs a card number, an expiry (MM/YY) and the name on the card"})
		return
	}
	if a.on(r, vPaymentDeclined) {
		writeJSON(w, http.StatusPaymentRequired, map[string]string{"error": "card declined"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"receipt": "RC-" + digits[len(digits)-4:], "amount": a.invoice(r).Due.String()})
}

// apiReports answers the reports page's figures.
func (a *App) apiReports(w http.ResponseWriter, r *http.Request) {
	d := loadDelay
	if a.on(r, vSlowReports) {
		d = slowDelay
	}
	pause(r, d)
	if a.on(r, vReports500) {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "report service unavailable"})
		return
	}
	a.mu.Lock()
	n := len(a.ws(r).members)
	a.mu.Unlock()
	cost := cents(n * seatPrice)
	if a.on(r, vWrongTotal) {
		cost = cents((n - 1) * seatPrice)
	}
	writeJSON(w, http.StatusOK, map[string]any{"activeMembers": n, "seats": seats, "monthlyCost": cost.String()})
}

func (a *App) apiSettings(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	writeJSON(w, http.StatusOK, a.ws(r).settings)
}

func (a *App) apiSaveSettings(w http.ResponseWriter, r *http.Request) {
	var in Settings
	if !readJSON(w, r, &in) {
		return
	}
	if strings.TrimSpace(in.TeamName) == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": "the team needs a name"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ws(r).settings = in
	writeJSON(w, http.StatusOK, in)
}

func (a *App) apiProfile(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	writeJSON(w, http.StatusOK, a.ws(r).profile)
}

func (a *App) apiSaveProfile(w http.ResponseWriter, r *http.Request) {
	var in Profile
	if !readJSON(w, r, &in) {
		return
	}
	if !slices.Contains(themes, in.Theme) || !slices.Contains(timeZones, in.TimeZone) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": "unknown theme or time zone"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ws(r).profile = in
	writeJSON(w, http.StatusOK, in)
}
