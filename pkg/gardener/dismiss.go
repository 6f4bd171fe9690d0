package gardener

import (
	"net/url"
	"regexp"
	"strings"
)

// DismissWords are what the buttons of cookie banners and announcement modals say: in English
// and in the languages consent banners are most often shown in besides (German, French,
// Spanish, Italian, Dutch, Portuguese), since a consent law, not the app's own language choice,
// is often what puts the banner there. Whole labels only: "Close account" is no dismissal.
var DismissWords = regexp.MustCompile(`(?i)^\s*(` +
	`accept( all| cookies| and close)?|i agree|agree|got it|ok(ay)?|close|dismiss|no,? thanks|not now|maybe later|continue( to (the )?site)?|allow( all)?|reject all|decline|×|✕` +
	`|(alle )?akzeptieren|alle zulassen|zustimmen|einverstanden|ablehnen|alle ablehnen|schließen` +
	`|(tout )?accepter|j'accepte|tout refuser|refuser|fermer|continuer sans accepter` +
	`|aceptar( todo| todas)?|rechazar( todo| todas)?|cerrar|de acuerdo|entendido` +
	`|accetta( tutto| tutti)?|accetto|rifiuta( tutto| tutti)?|chiudi` +
	`|(alles )?accepteren|akkoord|weigeren|sluiten` +
	`|aceitar( tudo| todos)?|concordo|rejeitar( tudo| todos)?|fechar` +
	`)\s*$`)

// AddedDismissal reports whether an action a repair added, as its green proof recorded it, is
// the dismissal of something over the page (a consent banner, an announcement): a click on a
// control whose whole name is a dismissal's words, that stayed on the page and sent nothing but
// reads. Such a click takes away what the recorded page never had, so the checks after it see
// the page the recorded test saw: it is the one flow change the design lets through (DESIGN
// invariant 10), and it does not make the checks after it the repair's own.
func AddedDismissal(s Step, rec StepRecord) bool {
	if s.Kind != Click || rec.Element == nil || !rec.Passed {
		return false
	}
	name := rec.Element.AccessibleName
	if strings.TrimSpace(name) == "" {
		name = strings.Join(rec.Element.VisibleText, " ")
	}
	if !DismissWords.MatchString(name) || samePage(rec.URLBefore) != samePage(rec.URLAfter) && rec.URLAfter != "" {
		return false
	}
	for _, r := range rec.Requests {
		if r.Method != "GET" && r.Method != "HEAD" && r.Method != "OPTIONS" {
			return false
		}
	}
	return true
}

// samePage is a URL without its fragment: a fragment moves within a page.
func samePage(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment = ""
	return u.String()
}
