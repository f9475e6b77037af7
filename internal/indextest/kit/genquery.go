package kit

import (
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/bitsieve/bitsieve/tokenize"
)

// GenQuery draws a query of one to four leaves from o's documents and
// renders it in the query language. A leaf is a word (six in ten), a phrase
// of two or three consecutive words (three in ten) or a prefix of three or
// four letters (one in ten), each cut from a document's text; leaves are
// ANDed, some of them negated and some pairs ORed. Words are stripped of
// the characters the language reads as operators, as a user quoting a
// document would, so every leaf is read as the text it came from.
func GenQuery(r *rand.Rand, o *Oracle) string {
	if o.Len() == 0 {
		panic("kit: GenQuery on an empty Oracle")
	}
	g := queryGen{r: r, o: o}
	return g.query().render()
}

// gq is a generated query tree.
type gq struct {
	op   string // "word", "phrase", "prefix", "and", "or", "not"
	text string
	kids []*gq
}

func (q *gq) render() string {
	switch q.op {
	case "word":
		return q.text
	case "phrase":
		return `"` + q.text + `"`
	case "prefix":
		return q.text + "*"
	case "not":
		return "-" + q.kids[0].render()
	}
	parts := make([]string, len(q.kids))
	for i, k := range q.kids {
		parts[i] = k.render()
		if k.op == "and" || k.op == "or" {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	if q.op == "or" {
		return strings.Join(parts, " OR ")
	}
	return strings.Join(parts, " ")
}

type queryGen struct {
	r    *rand.Rand
	o    *Oracle
	toks []tokenize.Token
}

// doc draws a document and analyzes it again, for its words' offsets.
func (g *queryGen) doc() ([]byte, []tokenize.Token) {
	i := g.r.IntN(g.o.Len())
	g.toks = g.o.a.Analyze(g.toks[:0], g.o.texts[i])
	return g.o.texts[i], g.toks
}

// surface draws a word of a document, as it is written there.
func (g *queryGen) surface() string {
	for range 20 {
		text, toks := g.doc()
		if len(toks) == 0 {
			continue
		}
		t := toks[g.r.IntN(len(toks))]
		return string(text[t.Start:t.End])
	}
	return ""
}

func (g *queryGen) leaf() *gq {
	q := g.rawLeaf()
	if q.op == "prefix" {
		// A prefix is letters and digits, at least 3 of them.
		if i := strings.IndexFunc(q.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); i >= 0 {
			q.text = q.text[:i]
		}
		if len(q.text) < 3 {
			q.op = "word"
		}
	}
	q.text = plainWords(q.text)
	if q.op != "phrase" {
		q.text = strings.Fields(q.text + " the")[0]
	}
	return q
}

func (g *queryGen) rawLeaf() *gq {
	switch x := g.r.IntN(10); {
	case x < 6:
		return &gq{op: "word", text: g.surface()}
	case x < 9:
		text, toks := g.doc()
		if len(toks) < 2 {
			return &gq{op: "word", text: g.surface()}
		}
		n := 2 + g.r.IntN(2)
		s := g.r.IntN(max(1, len(toks)-n))
		e := min(len(toks)-1, s+n-1)
		return &gq{op: "phrase", text: strings.Join(strings.Fields(string(text[toks[s].Start:toks[e].End])), " ")}
	default:
		w := strings.ToLower(g.surface())
		if len(w) > 4 {
			w = w[:3+g.r.IntN(2)]
		}
		return &gq{op: "prefix", text: w}
	}
}

// query makes a tree of 1–4 leaves with AND, OR and NOT.
func (g *queryGen) query() *gq {
	n := 1 + g.r.IntN(4)
	leaves := make([]*gq, n)
	for i := range leaves {
		leaves[i] = g.leaf()
	}
	if n == 1 {
		return leaves[0]
	}
	root := &gq{op: "and"}
	for i := 0; i < len(leaves); i++ {
		l := leaves[i]
		if i > 0 && g.r.IntN(4) == 0 {
			l = &gq{op: "not", kids: []*gq{l}}
		}
		if i+1 < len(leaves) && g.r.IntN(3) == 0 {
			l = &gq{op: "or", kids: []*gq{l, leaves[i+1]}}
			i++
		}
		root.kids = append(root.kids, l)
	}
	if len(root.kids) == 1 {
		return root.kids[0]
	}
	return root
}

// plainWords rewrites text so that the query language reads it as its
// words only: quotes, parentheses, stars, ~ and ^ become spaces, leading
// dashes go, and the operators OR, AND and NOT are lowercased.
func plainWords(text string) string {
	text = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`"()*~^`, r) {
			return ' '
		}
		return r
	}, text)
	f := strings.Fields(text)
	for i, w := range f {
		w = strings.TrimLeft(w, "-")
		switch w {
		case "OR", "AND", "NOT":
			w = strings.ToLower(w)
		}
		f[i] = w
	}
	return strings.Join(f, " ")
}
