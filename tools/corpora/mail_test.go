package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMail(t *testing.T) {
	for _, tc := range []struct {
		name, raw, subject, text string
	}{
		{
			name: "plain with mbox envelope and folded subject",
			raw: "From someone@example.org  Thu Aug 22 13:17:22 2002\n" +
				"Return-Path: <someone@example.org>\n" +
				"Subject: [ILUG] freeserve\n in the uk?\n" +
				"\n" +
				"ok, so if i was in the uk\nfor a week\n",
			subject: "[ILUG] freeserve in the uk?",
			text:    "ok, so if i was in the uk\nfor a week",
		},
		{
			name: "encoded-word subject, quoted-printable latin-1 body",
			raw: "Subject: =?iso-8859-1?Q?Caf=E9_cr=E8me?=\r\n" +
				"Content-Type: text/plain; charset=\"iso-8859-1\"\r\n" +
				"Content-Transfer-Encoding: quoted-printable\r\n" +
				"\r\n" +
				"Un caf=E9 tr=E8s =\r\nchaud.\r\n",
			subject: "Café crème",
			text:    "Un café très chaud.",
		},
		{
			name: "multipart/alternative prefers the plain part",
			raw: "Subject: alt\n" +
				"Content-Type: multipart/alternative; boundary=\"XX\"\n\n" +
				"preamble\n--XX\nContent-Type: text/html\n\n<p>html <b>version</b></p>\n" +
				"--XX\nContent-Type: text/plain\n\nplain version\n--XX--\n",
			subject: "alt",
			text:    "plain version",
		},
		{
			name: "html only, base64, windows-1252",
			raw: "Subject: Life Insurance - Why Pay More?\n" +
				"Content-Type: text/html; charset=windows-1252\n" +
				"Content-Transfer-Encoding: base64\n\n" +
				// <html><head><style>p{}</style></head><body><p>Save \x80100 &amp; more</p><script>x()</script></body></html>
				"PGh0bWw+PGhlYWQ+PHN0eWxlPnB7fTwvc3R5bGU+PC9oZWFkPjxib2R5PjxwPlNhdmUggDEwMCAm\n" +
				"YW1wOyBtb3JlPC9wPjxzY3JpcHQ+eCgpPC9zY3JpcHQ+PC9ib2R5PjwvaHRtbD4=\n",
			subject: "Life Insurance - Why Pay More?",
			text:    "Save €100 & more",
		},
		{
			name: "multipart/mixed drops attachments, reads nested messages",
			raw: "Subject: mixed\n" +
				"Content-Type: multipart/mixed; boundary=b1\n\n" +
				"--b1\nContent-Type: text/plain\n\nsee attached\n" +
				"--b1\nContent-Type: image/gif\nContent-Transfer-Encoding: base64\nContent-Disposition: attachment\n\nR0lGODlh\n" +
				"--b1\nContent-Type: message/rfc822\n\nSubject: inner\n\nforwarded text\n" +
				"--b1--\n",
			subject: "mixed",
			text:    "see attached\n\nforwarded text",
		},
		{
			name: "broken multipart falls back to the raw body",
			raw: "Subject: broken\n" +
				"Content-Type: multipart/mixed; boundary=nothere\n\n" +
				"just text, no parts\n",
			subject: "broken",
			text:    "just text, no parts",
		},
		{
			name:    "undeclared 8-bit bytes are read as windows-1252",
			raw:     "Subject: na\xefve\n\nr\xe9sum\xe9 \x93quoted\x94\n",
			subject: "naïve",
			text:    "résumé “quoted”",
		},
		{
			name: "raw iso-2022-jp header and encoded words in the message charset",
			raw: "Subject: =?iso-2022-jp?B?GyRCJDckOCRfGyhC?= - ticket\n" +
				"Content-Type: text/plain; charset=\"iso-2022-jp\"\n\n" +
				"\x1b$B$3$s$K$A$O\x1b(B\n",
			subject: "しじみ - ticket",
			text:    "こんにちは",
		},
		{
			name:    "headers only",
			raw:     "Subject: (no body)\n",
			subject: "(no body)",
			text:    "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subject, text := parseMail([]byte(tc.raw))
			if subject != tc.subject {
				t.Errorf("subject = %q, want %q", subject, tc.subject)
			}
			if text != tc.text {
				t.Errorf("text = %q, want %q", text, tc.text)
			}
		})
	}
}

func TestSpamConvert(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeFile(t, filepath.Join(data, "spam-1", "00001.7848dde101aa985090474a91ec93fcf0.txt"), []byte("Subject: buy now\n\ncheap \xffpills\n"))
	writeFile(t, filepath.Join(data, "spam-1", "00001.7848dde101aa985090474a91ec93fcf0.json"), []byte(`{"ignored":true}`))
	writeFile(t, filepath.Join(data, "easy-ham-1", "00001.7c53336b37003a9286aba55d2945844c.txt"), []byte("Subject: lunch\n\nat noon?\n"))
	writeFile(t, filepath.Join(data, "file_list.json"), []byte(`[]`))
	out := filepath.Join(dir, "spam.jsonl")
	if err := runSpam([]string{"-o", out, data}); err != nil {
		t.Fatal(err)
	}
	docs := readJSONL(t, out)
	if len(docs) != 2 || docs[0].ID != "spam:easy-ham-1/00001" || docs[1].ID != "spam:spam-1/00001" {
		t.Fatalf("docs = %+v", docs)
	}
	if docs[1].Title != "buy now" || docs[1].Body != "cheap ÿpills" {
		t.Errorf("spam doc = %+v", docs[1])
	}
	if err := runSpam([]string{"-o", filepath.Join(dir, "empty.jsonl"), t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no *.txt") {
		t.Errorf("empty dir: error = %v", err)
	}
	noTempFiles(t, dir)
}

func FuzzParseMail(f *testing.F) {
	f.Add([]byte("Subject: x\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/html\n\n<p>a</p>\n--b--\n"))
	f.Add([]byte("Subject: =?utf-8?B?w6k=?=\nContent-Transfer-Encoding: base64\n\naGVsbG8=\n"))
	f.Add([]byte("From x\nContent-Type: message/rfc822\n\nContent-Type: message/rfc822\n\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		subject, text := parseMail(raw)
		if !utf8.ValidString(subject) || !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 out of %q: %q, %q", raw, subject, text)
		}
	})
}
