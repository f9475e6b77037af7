package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// readSawyer splits The Adventures of Tom Sawyer (Project Gutenberg text) into
// its preface, chapters and conclusion.
func readSawyer(path string) ([]doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := gutenbergBody(string(b))
	heads := regexp.MustCompile(`(?m)^(P R E F A C E|CHAPTER [IVXL]+|CONCLUSION)\s*$`)
	const book = "The Adventures of Tom Sawyer"
	var docs []doc
	for _, p := range splitAt(text, heads) {
		title, id := book, "twain/tom-sawyer/"
		switch {
		case strings.HasPrefix(p.head, "CHAPTER"):
			n := romanToInt(strings.TrimPrefix(p.head, "CHAPTER "))
			title += fmt.Sprintf(" — Chapter %d", n)
			id += fmt.Sprintf("chapter-%02d", n)
		case p.head == "CONCLUSION":
			title += " — Conclusion"
			id += "conclusion"
		case p.head == "P R E F A C E":
			title += " — Preface"
			id += "preface"
		default:
			continue // the title page
		}
		// The last chapter's text runs into a line of the book's running title.
		body := strings.Replace(p.body, "T O M   S A W Y E R", "", 1)
		docs = append(docs, doc{ID: id, Title: title, Body: tidy(body)})
	}
	if len(docs) < 30 {
		return nil, fmt.Errorf("%s: found only %d chapters", path, len(docs))
	}
	return docs, nil
}

// readOpticks splits Newton's Opticks (Project Gutenberg text, 4th edition)
// into its advertisements, definitions and axioms, propositions, and queries,
// each titled with its book and part.
func readOpticks(path string) ([]doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := gutenbergBody(string(b))
	heads := regexp.MustCompile(`(?m)^(Advertisement.*|THE FIRST BOOK OF OPTICKS|SECOND BOOK|THIRD BOOK|_PART [IV]+\._|_DEFINITIONS_|_AXIOMS\._|_?PROP\._? [IVXL]+\..*|_Query_ 1\..*|_Qu\._ \d+\..*)$`)
	const book = "Opticks"
	var docs []doc
	bookNo, part := "", ""
	for _, p := range splitAt(text, heads) {
		h := strings.Trim(p.head, "_ ")
		var name string
		switch {
		case p.head == "":
			continue // the title page
		case strings.HasPrefix(h, "Advertisement"):
			name = h
		case h == "THE FIRST BOOK OF OPTICKS":
			if bookNo != "I" {
				bookNo, part = "I", ""
			}
		case h == "SECOND BOOK":
			bookNo, part = "II", ""
		case h == "THIRD BOOK":
			bookNo, part = "III", ""
		case strings.HasPrefix(h, "PART"):
			part = strings.Trim(strings.TrimPrefix(h, "PART "), "._ ")
		case strings.HasPrefix(h, "DEFINITIONS"):
			name = "Definitions"
		case strings.HasPrefix(h, "AXIOMS"):
			name = "Axioms"
		case strings.Contains(h, "PROP."):
			f := strings.Fields(strings.NewReplacer("_", "", ".", " ").Replace(h))
			name = "Proposition " + f[1]
		case strings.HasPrefix(h, "Qu"):
			n := regexp.MustCompile(`\d+`).FindString(h)
			name = "Query " + n
			p.body = p.head + "\n" + p.body // the query's heading is its first sentence
		}
		if name == "" {
			name = "Introduction"
			if strings.TrimSpace(p.body) == "" {
				continue
			}
		}
		where := ""
		if bookNo != "" && !strings.HasPrefix(name, "Advertisement") {
			where = "Book " + bookNo
			if part != "" && !strings.HasPrefix(name, "Query") {
				where += ", Part " + part
			}
			where += ", "
		}
		body := tidy(strings.NewReplacer("_", "").Replace(p.body))
		if len(body) < 40 {
			continue
		}
		docs = append(docs, doc{
			ID:    "newton/opticks/" + slug(where+name),
			Title: "Newton, " + book + " — " + where + name,
			Body:  body,
		})
	}
	uniqueIDs(docs)
	if len(docs) < 50 {
		return nil, fmt.Errorf("%s: found only %d sections", path, len(docs))
	}
	return docs, nil
}

type textPart struct{ head, body string }

// splitAt splits text at the lines matched by heads; the first part (before
// any heading) has an empty head.
func splitAt(text string, heads *regexp.Regexp) []textPart {
	locs := heads.FindAllStringIndex(text, -1)
	parts := []textPart{{}}
	prev := 0
	for _, l := range locs {
		parts[len(parts)-1].body = text[prev:l[0]]
		parts = append(parts, textPart{head: strings.TrimSpace(text[l[0]:l[1]])})
		prev = l[1]
	}
	parts[len(parts)-1].body = text[prev:]
	return parts
}

// gutenbergBody drops the producer credits at the top and the end-of-book
// line of a Project Gutenberg text.
func gutenbergBody(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if i := strings.Index(s, "\n\n"); i >= 0 && strings.HasPrefix(s, "Produced by") {
		s = s[i:]
	}
	if i := strings.Index(s, "End of the Project Gutenberg"); i >= 0 {
		s = s[:i]
	}
	return s
}

func romanToInt(s string) int {
	val := map[byte]int{'I': 1, 'V': 5, 'X': 10, 'L': 50}
	n := 0
	for i := 0; i < len(s); i++ {
		v := val[s[i]]
		if i+1 < len(s) && val[s[i+1]] > v {
			n -= v
		} else {
			n += v
		}
	}
	return n
}
