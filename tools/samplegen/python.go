package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// pythonPages are the pages of the Python 3.11 documentation in the sample:
// the tutorial, the FAQs, the HOWTOs, the language reference, the glossary,
// and the library pages for the built-ins and a few much-used modules. (All
// of the library reference would be 7 MB on its own.)
var pythonPages = []string{
	"glossary",
	"tutorial/appetite", "tutorial/interpreter", "tutorial/introduction", "tutorial/controlflow",
	"tutorial/datastructures", "tutorial/modules", "tutorial/inputoutput", "tutorial/errors",
	"tutorial/classes", "tutorial/stdlib", "tutorial/stdlib2", "tutorial/venv", "tutorial/whatnow",
	"tutorial/interactive", "tutorial/floatingpoint", "tutorial/appendix",
	"faq/general", "faq/programming", "faq/design", "faq/library", "faq/extending", "faq/gui",
	"faq/installed",
	"howto/functional", "howto/logging", "howto/regex", "howto/sockets", "howto/sorting",
	"howto/unicode", "howto/urllib2", "howto/descriptor", "howto/enum", "howto/argparse",
	"howto/ipaddress", "howto/annotations", "howto/curses",
	"reference/introduction", "reference/lexical_analysis", "reference/datamodel",
	"reference/executionmodel", "reference/import", "reference/expressions",
	"reference/simple_stmts", "reference/compound_stmts", "reference/toplevel_components",
	"library/intro", "library/functions", "library/constants", "library/stdtypes",
	"library/exceptions", "library/string", "library/re", "library/datetime",
	"library/collections", "library/heapq", "library/bisect", "library/itertools",
	"library/functools", "library/operator", "library/pathlib", "library/json", "library/csv",
	"library/hashlib", "library/random", "library/statistics", "library/threading",
	"library/subprocess", "library/dataclasses", "library/contextlib", "library/time",
}

// readPython converts the reStructuredText sources of the Python
// documentation (usr/share/doc/python3.11/html/_sources of python3.11-doc)
// into one document per section. In the library pages, each top-level
// function, class, exception or data description is a document of its own
// too, so that built-ins like len() or dict are found as such.
func readPython(dir string) ([]doc, error) {
	src := filepath.Join(dir, "usr", "share", "doc", "python3.11", "html", "_sources")
	var docs []doc
	for _, page := range pythonPages {
		b, err := os.ReadFile(filepath.Join(src, page+".rst.txt"))
		if err != nil {
			return nil, err
		}
		secs := rstSections(string(b), strings.HasPrefix(page, "library/"))
		if len(secs) == 0 {
			return nil, fmt.Errorf("%s: no sections", page)
		}
		pageTitle := secs[0].title
		for i, s := range secs {
			body := tidy(dedent(rstText(s.lines)))
			if len(body) < 40 { // a heading with nothing under it but its subsections
				continue
			}
			d := doc{ID: "python/" + page, Title: "Python 3.11 — " + pageTitle, Body: body}
			if i > 0 {
				d.ID += "#" + slug(s.title)
				d.Title += " — " + s.title
			}
			docs = append(docs, d)
		}
	}
	uniqueIDs(docs)
	return docs, nil
}

type rstSection struct {
	title string
	lines []string
}

// rstSections splits a page at its headings: a line underlined (and perhaps
// overlined) with a repeated punctuation character at least as long as it.
// With objects, it also splits at unindented object descriptions
// (".. function:: len(s)"), titled with their signature.
func rstSections(text string, objects bool) []rstSection {
	lines := strings.Split(strings.ReplaceAll(text, "\t", "        "), "\n")
	var secs []rstSection
	var cur *rstSection
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if i+1 < len(lines) && isHeading(l, lines[i+1]) {
			if cur != nil && len(cur.lines) > 0 && isAdornment(cur.lines[len(cur.lines)-1]) {
				cur.lines = cur.lines[:len(cur.lines)-1] // the overline
			}
			secs = append(secs, rstSection{title: rstInline(strings.TrimSpace(l))})
			cur = &secs[len(secs)-1]
			i++ // the underline
			continue
		}
		if m := rstTopObject.FindStringSubmatch(l); objects && m != nil && cur != nil {
			secs = append(secs, rstSection{title: rstInline(strings.TrimSpace(m[1]))})
			cur = &secs[len(secs)-1]
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	return secs
}

func isHeading(l, under string) bool {
	t := strings.TrimSpace(l)
	return t != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(t, "..") &&
		isAdornment(under) && len(strings.TrimSpace(under)) >= len([]rune(t))
}

func isAdornment(l string) bool {
	l = strings.TrimRight(l, " ")
	if len(l) < 3 || !strings.ContainsRune(`=-~^"'*+#<>:._`, rune(l[0])) {
		return false
	}
	return strings.Count(l, l[:1]) == len(l)
}

// Directives whose content is not prose: dropped with their indented body.
var rstDropped = map[string]bool{
	"index": true, "toctree": true, "highlight": true, "module": true, "currentmodule": true,
	"sectionauthor": true, "moduleauthor": true, "testsetup": true, "testcleanup": true,
	"include": true, "literalinclude": true, "tabularcolumns": true, "raw": true, "image": true,
	"figure": true, "only": true, "audit-event": true, "productionlist": true,
	"csv-table": true, "testoutput": true, "doctest": true, "testcode": true,
	"role": true, "default-role": true, "program": true,
}

// Directives that describe an object: their argument is a signature, shown as
// a line of text.
var rstObjects = map[string]bool{
	"function": true, "method": true, "class": true, "attribute": true, "data": true,
	"exception": true, "decorator": true, "decoratormethod": true, "classmethod": true,
	"staticmethod": true, "abstractmethod": true, "coroutinefunction": true,
	"coroutinemethod": true, "describe": true, "cmdoption": true, "option": true, "envvar": true,
	"opcode": true, "pdbcommand": true, "property": true,
}

var rstAdmonitions = map[string]string{
	"note": "Note:", "warning": "Warning:", "seealso": "See also:", "tip": "Tip:",
	"important": "Important:", "caution": "Caution:", "attention": "Attention:",
	"impl-detail": "CPython implementation detail:", "danger": "Danger:",
	"versionadded": "New in version", "versionchanged": "Changed in version",
	"deprecated": "Deprecated since version", "deprecated-removed": "Deprecated since version",
}

var (
	rstDirective = regexp.MustCompile(`^(\s*)\.\. ([\w:-]+)::\s*(.*)$`)
	rstComment   = regexp.MustCompile(`^(\s*)\.\.(\s.*)?$`)
	rstOption    = regexp.MustCompile(`^\s+:[\w -]+:(\s.*)?$`)
	rstTableRule = regexp.MustCompile(`^\s*[+=\-| ]+$`)
	rstTopObject = regexp.MustCompile(`^\.\. (?:function|class|exception|data|decorator)::\s*(.+)$`)
)

// rstText turns a section's reStructuredText into plain text: markup removed,
// code and literal blocks kept as they are.
func rstText(lines []string) string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := rstDirective.FindStringSubmatch(l); m != nil {
			indent, name, arg := len(m[1]), m[2], m[3]
			// skip the directive's options
			for i+1 < len(lines) && rstOption.MatchString(lines[i+1]) {
				i++
			}
			switch {
			case rstDropped[name] || strings.HasPrefix(name, "c:") || strings.Contains(l, "|"):
				for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || indentOf(lines[i+1]) > indent) {
					i++
				}
			case rstObjects[name] || strings.HasPrefix(name, "py:"):
				out = append(out, m[1]+rstInline(arg))
			case name == "code-block" || name == "sourcecode" || name == "code":
				// the argument is the language; the indented body is kept
			case rstAdmonitions[name] != "":
				out = append(out, m[1]+strings.TrimSpace(rstAdmonitions[name]+" "+rstInline(arg)))
			default:
				if arg != "" {
					out = append(out, m[1]+rstInline(arg))
				}
			}
			continue
		}
		if m := rstComment.FindStringSubmatch(l); m != nil { // a comment or a label
			indent := len(m[1])
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && indentOf(lines[i+1]) > indent {
				i++
			}
			continue
		}
		if rstTableRule.MatchString(l) && strings.TrimSpace(l) != "" && !strings.ContainsAny(strings.TrimSpace(l), "|") {
			continue
		}
		if strings.HasSuffix(l, "::") && !strings.HasPrefix(strings.TrimSpace(l), ">>>") {
			if t := strings.TrimSuffix(l, "::"); strings.TrimSpace(t) == "" || strings.HasSuffix(t, " ") {
				l = strings.TrimRight(t, " ")
			} else {
				l = t + ":"
			}
		}
		out = append(out, l)
	}
	// Inline markup may span lines: remove it from the whole text.
	return rstInline(strings.Join(out, "\n"))
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

var (
	rstRole     = regexp.MustCompile(":(?:[a-zA-Z]+:)*[a-zA-Z]+:`([^`]+)`")
	rstLiteral  = regexp.MustCompile("``([^`]+)``")
	rstLink     = regexp.MustCompile("`([^`<]*?)\\s*(?:<[^>`]*>)?`__?")
	rstStrong   = regexp.MustCompile(`\*\*([^*\s][^*\n]*?)\*\*`)
	rstEmph     = regexp.MustCompile(`(^|[\s("'/])\*([^*\s][^*\n]*?)\*`)
	rstRoleText = regexp.MustCompile(`^(?s)(.*?)\s*<([^>]*)>$`)
)

// rstInline removes inline markup: roles, literals, links, emphasis.
func rstInline(s string) string {
	s = rstRole.ReplaceAllStringFunc(s, func(m string) string {
		role := m[1 : strings.Index(m[1:], ":")+1]
		c := rstRole.FindStringSubmatch(m)[1]
		if t := rstRoleText.FindStringSubmatch(c); t != nil && t[1] != "" {
			return t[1]
		}
		c = strings.TrimPrefix(c, "!")
		if strings.HasPrefix(c, "~") {
			c = c[strings.LastIndex(c, ".")+1:]
		}
		switch role {
		case "pep":
			return "PEP " + c
		case "rfc":
			return "RFC " + c
		}
		return c
	})
	s = rstLiteral.ReplaceAllString(s, "$1")
	s = rstLink.ReplaceAllString(s, "$1")
	s = rstStrong.ReplaceAllString(s, "$1")
	s = rstEmph.ReplaceAllString(s, "$1$2")
	s = strings.ReplaceAll(s, `\ `, "")
	return s
}
