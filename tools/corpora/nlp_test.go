package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNLPConvert(t *testing.T) {
	dir := t.TempDir()
	builds := filepath.Join(dir, "builds")
	writeFile(t, filepath.Join(builds, "doc-10.json"), []byte(`["ten"]`))
	writeFile(t, filepath.Join(builds, "doc-2.json"), []byte(`["two a", "  ", "two \u00e9 c"]`))
	writeFile(t, filepath.Join(builds, "doc-0.json"), []byte(`["Creakiness and atmosphere this film has."]`))
	writeFile(t, filepath.Join(builds, "other.json"), []byte(`{"not":"a corpus file"}`))
	out := filepath.Join(dir, "nlp.jsonl")
	if err := runNLP([]string{"-o", out, builds}); err != nil {
		t.Fatal(err)
	}
	docs := readJSONL(t, out)
	var got []string
	for _, d := range docs {
		got = append(got, d.ID+"="+d.Body)
		if d.Title != "" {
			t.Errorf("%s: title %q, want none", d.ID, d.Title)
		}
	}
	want := "nlp:doc-0/0=Creakiness and atmosphere this film has.|nlp:doc-2/0=two a|nlp:doc-2/2=two é c|nlp:doc-10/0=ten"
	if strings.Join(got, "|") != want {
		t.Errorf("docs = %q\nwant %q", strings.Join(got, "|"), want)
	}

	writeFile(t, filepath.Join(builds, "doc-3.json"), []byte(`{"oops": 1}`))
	if err := runNLP([]string{"-o", out, builds}); err == nil || !strings.Contains(err.Error(), "doc-3.json") {
		t.Errorf("bad file: error = %v", err)
	}
	if err := runNLP([]string{"-o", out, t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no doc-*.json") {
		t.Errorf("empty dir: error = %v", err)
	}
	noTempFiles(t, dir)
}
