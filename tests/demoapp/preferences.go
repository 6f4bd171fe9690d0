package demoapp

import (
	"net/http"
	"slices"
)

// preferences is what the preferences page saves: a form with one control of each kind a
// recording changes (text, radio buttons, a select, a checkbox, a text area, an editable
// element, a pick by double click), so that recordings of every control type replay against
// the shop. Nothing is kept: the page shows what it was sent, which is what a replay checks.
type preferences struct {
	Saved      bool
	Name       string
	Newsletter string
	Climate    string
	Reminders  bool
	Notes      string
	Signature  string
	Favourite  string
}

var (
	newsletters = []string{"weekly", "monthly", "never"}
	climates    = []string{"temperate", "arid", "tropical"}
)

func (a *App) preferencesPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "preferences", page{Title: "Preferences", Data: preferences{}})
}

func (a *App) savePreferences(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "preferences: unreadable form: "+err.Error(), http.StatusBadRequest)
		return
	}
	p := preferences{
		Saved:      true,
		Name:       r.PostFormValue("name"),
		Newsletter: r.PostFormValue("newsletter"),
		Climate:    r.PostFormValue("climate"),
		Reminders:  r.PostFormValue("reminders") == "on",
		Notes:      r.PostFormValue("notes"),
		Signature:  r.PostFormValue("signature"),
		Favourite:  r.PostFormValue("favourite"),
	}
	if !slices.Contains(newsletters, p.Newsletter) || !slices.Contains(climates, p.Climate) {
		http.Error(w, "preferences: unknown newsletter or climate", http.StatusBadRequest)
		return
	}
	a.render(w, r, http.StatusOK, "preferences", page{Title: "Preferences saved", Data: p})
}
