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

	// counts of exact normalised values, for the rarity of an exact agreement.
	exact [numExact]map[string]int

	// accWords are the words of the candidates' accessible names, for onPage.
	accWords map[string]bool
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
	exHrefPage
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
	depth    float64 // log(1 + y/depthScale), see depthScale
	area     float64
	shape    float64

	// token sets: sorted unique ids; idf sums include tokens unknown to the page so that a
	// target whose words vanished is not flattered by a small denominator.
	text, near, class, href, ident tokenSet

	xpath, idxpath []uint64 // a hash per step
	// idAnchored is true when idxpath is the id alone ("//*[@id='x']"), which says nothing
	// the id does not.
	idAnchored bool
	// absolute is true when idxpath has no id to anchor on and so repeats the xpath.
	absolute  bool
	landmarks landmark
	// outer are the tags of the element's two nearest ancestors, from its xpath ("li" and "ul"
	// for ".../ul[1]/li[2]/a[1]"), lower case; empty when unknown.
	outer [2]string
}

// landmark is a set of the page regions an element sits in, from its xpath. The region
// survives most redesigns (the footer's "Help" link stays in the footer) and separates the
// header's copy of a link from the footer's.
type landmark uint8

var landmarkTags = map[string]landmark{
	"header": 1 << 0, "footer": 1 << 1, "nav": 1 << 2, "main": 1 << 3,
	"aside": 1 << 4, "form": 1 << 5, "dialog": 1 << 6, "table": 1 << 7,
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
	p := &Page{cands: candidates, feats: make([]features, len(candidates)), accWords: map[string]bool{}}
	for _, v := range []*vocab{&p.text, &p.near, &p.class, &p.href, &p.ident} {
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
		f.paths(&candidates[i])
		for _, w := range strings.Fields(f.exact[exAccName]) {
			p.accWords[w] = true
		}
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
	f.text.weight = p.text.sum(f.text.ids)
	f.near.weight = p.near.sum(f.near.ids)
	f.class.weight = p.class.sum(f.class.ids)
	f.href.weight = p.href.sum(f.href.ids)
	f.ident.weight = p.ident.sum(f.ident.ids)
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
	f.paths(fp)
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
	f.exact[exHrefPage] = hrefPage(f.exact[exHref])
	f.typ = strings.ToLower(strings.TrimSpace(fp.Type))
	f.role = strings.ToLower(strings.TrimSpace(fp.Role))
	f.form = fp.FormID
	f.frame = fp.Frame
	f.isButton = fp.IsButton
	f.x = fp.Location.X + fp.Location.Width/2
	f.y = fp.Location.Y + fp.Location.Height/2
	f.depth = math.Log1p(max(0, f.y) / depthScale)
	f.area = fp.Area
	if f.area == 0 {
		f.area = fp.Location.Width * fp.Location.Height
	}
	f.shape = fp.Shape
	if f.shape == 0 && fp.Location.Height > 0 {
		f.shape = 100 * fp.Location.Width / fp.Location.Height
	}
}

// paths fills the path features.
func (f *features) paths(fp *gardener.Fingerprint) {
	var first string
	f.xpath, f.landmarks, _ = steps(fp.XPath)
	f.outer = outerTags(fp.XPath)
	if fp.IdxPath == fp.XPath {
		f.idxpath, first = f.xpath, "html"
	} else {
		var n int
		f.idxpath, _, n = steps(fp.IdxPath)
		first = strings.TrimLeft(fp.IdxPath, "/")[:n]
	}
	f.idAnchored = len(f.idxpath) == 1 && strings.HasPrefix(first, "*[@id=")
	f.absolute = strings.HasPrefix(strings.ToLower(first), "html")
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

func (v *vocab) sum(ids []int32) float64 {
	var s float64
	for _, id := range ids {
		s += v.idf[id]
	}
	return s
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

// hrefPage is a normalised href without its query: the page it links, whatever tracking
// parameters ride along ("support.example.com/?utm_source=footer" links "support.example.com").
// (The score counts it only when the whole hrefs differ.)
func hrefPage(h string) string {
	if i := strings.IndexByte(h, '?'); i >= 0 {
		return strings.TrimRight(h[:i], "/")
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

// steps hashes each step of an xpath ("/html[1]/body[1]/div[2]" has the steps "html[1]",
// "body[1]", "div[2]"; an id anchor "//*[@id='x']" is one step), case-insensitively, and
// collects the page regions the steps pass through. It also returns the length of the first
// step. Hashing instead of interning keeps page preparation free of allocations per step; a
// collision of 64-bit FNV-1a hashes between two steps of one page is not a practical concern.
func steps(x string) (hashes []uint64, regions landmark, firstLen int) {
	x = strings.TrimLeft(x, "/")
	if x == "" {
		return nil, 0, 0
	}
	hashes = make([]uint64, 0, strings.Count(x, "/")+1)
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	depth, start, tagEnd := 0, 0, -1
	end := func(i int) {
		if i > start {
			hashes = append(hashes, h)
			if tagEnd < 0 {
				tagEnd = i
			}
			regions |= landmarkTags[strings.ToLower(x[start:tagEnd])]
			if len(hashes) == 1 {
				firstLen = i - start
			}
		}
		h, start, tagEnd = offset, i+1, -1
	}
	for i := 0; i < len(x); i++ {
		c := x[i]
		switch {
		case c == '[':
			if depth == 0 && tagEnd < 0 {
				tagEnd = i
			}
			depth++
		case c == ']':
			depth--
		case c == '/' && depth == 0:
			end(i)
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * prime
	}
	end(len(x))
	return hashes, regions, firstLen
}

// outerTags returns the tags of the two nearest ancestors named by an xpath, lower case: for
// "/html[1]/body[1]/ul[1]/li[2]/a[1]" they are "li" and "ul". A step that is not a plain tag
// ("*[local-name() = 'svg'][1]") gives "*". It allocates only when the xpath is not lower case.
func outerTags(x string) (out [2]string) {
	x = strings.TrimRight(x, "/")
	for k := -1; k < 2; k++ {
		i := lastStep(x)
		if i < 0 {
			return out
		}
		if k >= 0 {
			step := x[i+1:]
			if j := strings.IndexByte(step, '['); j >= 0 {
				step = step[:j]
			}
			out[k] = lowerASCII(step)
		}
		x = strings.TrimRight(x[:i], "/")
	}
	return out
}

// lastStep is the index of the slash that starts the last step of an xpath, ignoring slashes
// inside predicates, or -1.
func lastStep(x string) int {
	depth := 0
	for i := len(x) - 1; i >= 0; i-- {
		switch x[i] {
		case ']':
			depth++
		case '[':
			depth--
		case '/':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
