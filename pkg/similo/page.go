package similo

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Page is the candidate elements of one page, prepared once so that many targets can be located
// on it cheaply: values are normalised, tokens are interned, and the page-wide frequencies that
// make a rare agreement worth more than a common one are counted. A Page is read-only after
// NewPage and safe for concurrent use.
type Page struct {
	cands []gardener.Fingerprint
	feats []features

	// Token vocabularies, one per field, because a word's rarity is field-specific: "login" is
	// rare as visible text but common inside hrefs of the same page.
	text, near, class, href, ident vocab
	seg                            vocab // xpath segments; interned only, no frequency needed

	// counts of exact normalised values, for the rarity of an exact agreement.
	exact [numExact]map[string]int
}

// exactField names the fields whose exact agreement is a strong identifier.
type exactField int

const (
	exID exactField = iota
	exName
	exHref
	exText
	exAlt
	exTestID
	exAccName
	exLabel
	exPlaceholder
	exTitle
	numExact
)

// features is a fingerprint normalised for comparison.
type features struct {
	tag   string
	exact [numExact]string
	typ   string
	role  string
	form  string
	frame string

	isButton bool
	x, y     float64 // centre
	area     float64
	shape    float64

	// token sets: sorted unique ids; idf sums include tokens unknown to the page so that a
	// target whose words vanished is not flattered by a small denominator.
	text, near, class, href, ident tokenSet

	xpath, idxpath []int32
	// idAnchored is true when idxpath is the id alone ("//*[@id='x']"), which says nothing
	// the id does not.
	idAnchored bool
	// absolute is true when idxpath has no id to anchor on and so repeats the xpath.
	absolute  bool
	landmarks landmark
}

// landmark is a set of the page regions an element sits in, from its xpath. The region
// survives most redesigns (the footer's "Help" link stays in the footer) and separates the
// header's copy of a link from the footer's.
type landmark uint8

var landmarkTags = map[string]landmark{
	"header": 1 << 0, "footer": 1 << 1, "nav": 1 << 2, "main": 1 << 3,
	"aside": 1 << 4, "form": 1 << 5, "dialog": 1 << 6, "table": 1 << 7,
}

func landmarksOf(segs []string) landmark {
	var l landmark
	for _, s := range segs {
		if i := strings.IndexByte(s, '['); i >= 0 {
			s = s[:i]
		}
		l |= landmarkTags[s]
	}
	return l
}

type tokenSet struct {
	ids    []int32 // sorted, unique; only tokens the page knows
	weight float64 // sum of idf over all tokens, known or not
}

type vocab struct {
	ids map[string]int32
	df  []int
	idf []float64
	n   int // documents (candidates) counted
}

// NewPage prepares the candidates of a page.
func NewPage(candidates []gardener.Fingerprint) *Page {
	p := &Page{cands: candidates, feats: make([]features, len(candidates))}
	for _, v := range []*vocab{&p.text, &p.near, &p.class, &p.href, &p.ident, &p.seg} {
		v.ids = map[string]int32{}
	}
	for i := range p.exact {
		p.exact[i] = map[string]int{}
	}
	for i := range candidates {
		f := &p.feats[i]
		f.fill(&candidates[i])
		f.text = p.text.addDoc(words(textOf(&candidates[i])))
		f.near = p.near.addDoc(words(strings.Join(candidates[i].NeighborText, " ")))
		f.class = p.class.addDoc(lowerAll(candidates[i].ClassList))
		f.href = p.href.addDoc(hrefWords(f.exact[exHref]))
		f.ident = p.ident.addDoc(identWords(candidates[i].ID, candidates[i].Name))
		f.paths(&p.seg, &candidates[i], (*vocab).intern)
		for k, v := range f.exact {
			if v != "" {
				p.exact[k][v]++
			}
		}
	}
	for _, v := range []*vocab{&p.text, &p.near, &p.class, &p.href, &p.ident} {
		v.finish()
	}
	for i := range p.feats {
		p.weigh(&p.feats[i])
	}
	return p
}

// Len is the number of candidates.
func (p *Page) Len() int { return len(p.cands) }

// weigh computes the idf sums of a candidate's token sets once the page frequencies are known.
func (p *Page) weigh(f *features) {
	f.text.weight = p.text.sum(f.text.ids, 0)
	f.near.weight = p.near.sum(f.near.ids, 0)
	f.class.weight = p.class.sum(f.class.ids, 0)
	f.href.weight = p.href.sum(f.href.ids, 0)
	f.ident.weight = p.ident.sum(f.ident.ids, 0)
}

// target prepares a fingerprint recorded on another page for comparison with this page's
// candidates, without changing the page.
func (p *Page) target(fp *gardener.Fingerprint) features {
	var f features
	f.fill(fp)
	f.text = p.text.lookup(words(textOf(fp)))
	f.near = p.near.lookup(words(strings.Join(fp.NeighborText, " ")))
	f.class = p.class.lookup(lowerAll(fp.ClassList))
	f.href = p.href.lookup(hrefWords(f.exact[exHref]))
	f.ident = p.ident.lookup(identWords(fp.ID, fp.Name))
	f.paths(&p.seg, fp, (*vocab).lookupSeq)
	return f
}

func (f *features) fill(fp *gardener.Fingerprint) {
	f.tag = strings.ToLower(strings.TrimSpace(fp.Tag))
	f.exact[exID] = strings.TrimSpace(fp.ID)
	f.exact[exName] = strings.TrimSpace(fp.Name)
	f.exact[exHref] = normHref(fp.Href)
	f.exact[exText] = normText(textOf(fp))
	f.exact[exAlt] = normText(fp.Alt)
	f.exact[exTestID] = strings.TrimSpace(fp.TestID)
	f.exact[exAccName] = normText(fp.AccessibleName)
	f.exact[exLabel] = normText(fp.Label)
	f.exact[exPlaceholder] = normText(fp.Placeholder)
	f.exact[exTitle] = normText(fp.Title)
	f.typ = strings.ToLower(strings.TrimSpace(fp.Type))
	f.role = strings.ToLower(strings.TrimSpace(fp.Role))
	f.form = fp.FormID
	f.frame = fp.Frame
	f.isButton = fp.IsButton
	f.x = fp.Location.X + fp.Location.Width/2
	f.y = fp.Location.Y + fp.Location.Height/2
	f.area = fp.Area
	if f.area == 0 {
		f.area = fp.Location.Width * fp.Location.Height
	}
	f.shape = fp.Shape
	if f.shape == 0 && fp.Location.Height > 0 {
		f.shape = 100 * fp.Location.Width / fp.Location.Height
	}
}

// paths fills the path features, mapping steps to ids with intern for a candidate (which may
// add to the page) or lookupSeq for a target (which may not).
func (f *features) paths(v *vocab, fp *gardener.Fingerprint, ids func(*vocab, []string) []int32) {
	xs, is := segments(fp.XPath), segments(fp.IdxPath)
	f.xpath, f.idxpath = ids(v, xs), ids(v, is)
	f.idAnchored = len(is) == 1 && strings.HasPrefix(is[0], "*[@id=")
	f.absolute = len(is) > 0 && strings.HasPrefix(is[0], "html")
	f.landmarks = landmarksOf(xs)
}

func textOf(fp *gardener.Fingerprint) string { return strings.Join(fp.VisibleText, " ") }

func (v *vocab) addDoc(toks []string) tokenSet {
	v.n++
	ids := make([]int32, 0, len(toks))
	for _, t := range toks {
		id, ok := v.ids[t]
		if !ok {
			id = int32(len(v.df))
			v.ids[t] = id
			v.df = append(v.df, 0)
		}
		ids = append(ids, id)
	}
	ids = sortUnique(ids)
	for _, id := range ids {
		v.df[id]++
	}
	return tokenSet{ids: ids}
}

// finish turns document frequencies into inverse document frequencies. The +1 keeps a token
// present on every candidate worth a little rather than nothing: it still agrees.
func (v *vocab) finish() {
	v.idf = make([]float64, len(v.df))
	for i, df := range v.df {
		v.idf[i] = math.Log(1 + float64(v.n)/float64(df))
	}
}

// unknownIDF is the weight of a target token the page does not contain at all: as rare as a
// token seen once, since its absence is itself evidence the element changed.
func (v *vocab) unknownIDF() float64 { return math.Log(1 + float64(v.n)) }

func (v *vocab) lookup(toks []string) tokenSet {
	var s tokenSet
	seen := map[string]bool{}
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		if id, ok := v.ids[t]; ok {
			s.ids = append(s.ids, id)
			s.weight += v.idf[id]
		} else {
			s.weight += v.unknownIDF()
		}
	}
	slices.Sort(s.ids)
	return s
}

func (v *vocab) sum(ids []int32, extra float64) float64 {
	for _, id := range ids {
		extra += v.idf[id]
	}
	return extra
}

func (v *vocab) intern(segs []string) []int32 {
	out := make([]int32, len(segs))
	for i, s := range segs {
		id, ok := v.ids[s]
		if !ok {
			id = int32(len(v.ids))
			v.ids[s] = id
		}
		out[i] = id
	}
	return out
}

// lookupSeq maps segments to ids; a segment the page never uses gets -1, which matches nothing.
func (v *vocab) lookupSeq(segs []string) []int32 {
	out := make([]int32, len(segs))
	for i, s := range segs {
		id, ok := v.ids[s]
		if !ok {
			id = -1
		}
		out[i] = id
	}
	return out
}

func sortUnique(ids []int32) []int32 {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// words splits text into lower-case words; punctuation separates words and is dropped.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func normText(s string) string { return strings.Join(words(s), " ") }

func lowerAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// normHref drops what changes when a site moves hosts or schemes but still points at the same
// place: the scheme, a leading "www.", a trailing slash and the fragment.
func normHref(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if i := strings.IndexByte(h, '#'); i >= 0 {
		h = h[:i]
	}
	for _, p := range []string{"https://", "http://", "//"} {
		if strings.HasPrefix(h, p) {
			h = h[len(p):]
			break
		}
	}
	h = strings.TrimPrefix(h, "www.")
	h = strings.TrimRight(h, "/")
	// A site that moves from "/politics.html" to "/politics" still links the same page.
	for _, ext := range []string{".html", ".htm", ".php", ".aspx", ".asp", ".jsp"} {
		if strings.HasSuffix(h, ext) {
			return h[:len(h)-len(ext)]
		}
	}
	return h
}

// hrefWords are the words of a normalised href minus those every URL has.
func hrefWords(h string) []string {
	ws := words(h)
	out := ws[:0]
	for _, w := range ws {
		switch w {
		case "com", "org", "net", "html", "htm", "php", "aspx", "index":
			continue
		}
		out = append(out, w)
	}
	return out
}

// identWords splits ids and names into words at punctuation, case changes and digit runs,
// so that "loginEmail", "login-email" and "login_email2" share words. Digit runs are dropped:
// they are usually counters that a rebuild renumbers.
func identWords(vals ...string) []string {
	var out []string
	for _, v := range vals {
		var cur []rune
		flush := func() {
			if len(cur) > 0 {
				out = append(out, strings.ToLower(string(cur)))
				cur = cur[:0]
			}
		}
		prev := rune(0)
		for _, r := range v {
			switch {
			case unicode.IsLetter(r):
				if unicode.IsUpper(r) && unicode.IsLower(prev) {
					flush()
				}
				cur = append(cur, r)
			default:
				flush()
			}
			prev = r
		}
		flush()
	}
	return out
}

// segments splits an xpath into its steps, e.g. "/html[1]/body[1]/div[2]" into
// "html[1]", "body[1]", "div[2]". The anchor step of an id-relative path ("//*[@id='x']")
// stays one segment.
func segments(x string) []string {
	x = strings.TrimLeft(x, "/")
	if x == "" {
		return nil
	}
	var out []string
	depth := 0
	start := 0
	for i := 0; i < len(x); i++ {
		switch x[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '/':
			if depth == 0 {
				if i > start {
					out = append(out, strings.ToLower(x[start:i]))
				}
				start = i + 1
			}
		}
	}
	if start < len(x) {
		out = append(out, strings.ToLower(x[start:]))
	}
	return out
}
