package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// encodeDictdNumber is the inverse of decodeDictdNumber, as dictfmt writes it.
func encodeDictdNumber(v int64) string {
	if v == 0 {
		return "A"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{dictdDigits[v&63]}, b...)
		v >>= 6
	}
	return string(b)
}

func TestDecodeDictdNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"A", 0}, {"B", 1}, {"/", 63}, {"BA", 64}, {"Kj", 10*64 + 35},
		{"+8", 62*64 + 60}, {"BAAA", 1 << 18}, {"//////////", 1<<60 - 1},
	} {
		got, err := decodeDictdNumber(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("decodeDictdNumber(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "A=", "a b", "ABCDEFGHIJK", "é"} {
		if _, err := decodeDictdNumber(bad); err == nil {
			t.Errorf("decodeDictdNumber(%q): want an error", bad)
		}
	}
	for _, v := range []int64{0, 1, 63, 64, 4095, 4096, 39952321, 1<<40 + 12345} {
		if got, err := decodeDictdNumber(encodeDictdNumber(v)); err != nil || got != v {
			t.Errorf("round trip %d: got %d, %v", v, got, err)
		}
	}
}

// buildDictd writes NAME.index and NAME.dict.dz for the given entries
// (headword, text) and returns their paths. Entries whose text is "=prev"
// point at the previous entry's bytes, as dictionary aliases do.
func buildDictd(t *testing.T, dir, name string, entries [][2]string) (string, string) {
	t.Helper()
	var dict bytes.Buffer
	var index strings.Builder
	var prevOff, prevLen int
	for _, e := range entries {
		off, n := dict.Len(), len(e[1])
		if e[1] == "=prev" {
			off, n = prevOff, prevLen
		} else {
			dict.WriteString(e[1])
		}
		fmt.Fprintf(&index, "%s\t%s\t%s\n", e[0], encodeDictdNumber(int64(off)), encodeDictdNumber(int64(n)))
		prevOff, prevLen = off, n
	}
	var dz bytes.Buffer
	zw := gzip.NewWriter(&dz)
	zw.Write(dict.Bytes())
	zw.Close()
	indexPath := filepath.Join(dir, name+".index")
	dictPath := filepath.Join(dir, name+".dict.dz")
	writeFile(t, indexPath, []byte(index.String()))
	writeFile(t, dictPath, dz.Bytes())
	return indexPath, dictPath
}

func TestDictdConvert(t *testing.T) {
	dir := t.TempDir()
	indexPath, dictPath := buildDictd(t, dir, "test", [][2]string{
		{"00-database-short", "\n   A test dictionary\n"},
		{"00-test-short", "=prev"}, // an alias of a meta entry: not a document
		{"00-database-url", "\n   http://example.org/\n"},
		{"apple", "apple\n    n 1: fruit with red or yellow or green skin\n"},
		{"Apple", "Apple \\Ap\"ple\\, n. [AS. \xe6ppel]\n   The fleshy pome of a tree.\n"},
		{"Apple", "Apple, v. i.\n   To grow like an apple.\n"},
		{"pome", "=prev"},
		{"café au lait", "café au lait\n    n 1: coffee with milk\n"},
	})
	out := filepath.Join(dir, "out.jsonl")
	if err := runDictd([]string{"-prefix", "test", "-o", out, indexPath, dictPath}); err != nil {
		t.Fatal(err)
	}
	docs := readJSONL(t, out)
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	want := []string{"test:apple", "test:Apple", "test:Apple#2", "test:pome", "test:café au lait"}
	if strings.Join(ids, "|") != strings.Join(want, "|") {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
	byID := docsByID(docs)
	if d := byID["test:apple"]; d.Title != "apple" || d.Body != "n 1: fruit with red or yellow or green skin" {
		t.Errorf("headword line not dropped: %+v", d)
	}
	if d := byID["test:Apple"]; !strings.HasPrefix(d.Body, "Apple \\Ap\"ple\\") || !strings.Contains(d.Body, "\uFFFDppel") {
		t.Errorf("entry body = %q; want the entry as written, invalid bytes replaced", d.Body)
	}
	if d := byID["test:pome"]; d.Title != "pome" || d.Body != byID["test:Apple#2"].Body {
		t.Errorf("alias entry = %+v; want the aliased text", d)
	}
	noTempFiles(t, dir)
}

func TestDictdErrors(t *testing.T) {
	for _, tc := range []struct{ index, want string }{
		{"apple\tA\n", "line 1: want 3 or 4"},
		{"ok\tA\tB\nbad\tA!\tB\n", "line 2: offset"},
		{"bad\tA\t\n", "line 1: length"},
	} {
		_, err := parseDictdIndex(strings.NewReader(tc.index))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseDictdIndex(%q) error = %v, want %q", tc.index, err, tc.want)
		}
	}
	entries := []dictdEntry{{Headword: "far", Offset: 5, Length: 10}}
	err := dictdDocs("x", entries, []byte("short"), func(Doc) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `"far"`) {
		t.Errorf("entry beyond the dictionary: error = %v", err)
	}
}

func TestDictdKeepOrigHeadword(t *testing.T) {
	entries, err := parseDictdIndex(strings.NewReader("new york\tA\tB\tNew York\n"))
	if err != nil || len(entries) != 1 || entries[0].Headword != "New York" {
		t.Fatalf("got %+v, %v; want the original headword from field 4", entries, err)
	}
}

func FuzzParseDictdIndex(f *testing.F) {
	f.Add("apple\tFPMv\tEL\n00-database-url\tC\tv\n")
	f.Add("x\tA\tB\tX\r\n\n")
	f.Fuzz(func(t *testing.T, index string) {
		entries, err := parseDictdIndex(strings.NewReader(index))
		if err != nil {
			return
		}
		dict := []byte(strings.Repeat("word ", 20))
		_ = dictdDocs("f", entries, dict, func(d Doc) error {
			if !strings.HasPrefix(d.ID, "f:") {
				t.Fatalf("id %q lacks its prefix", d.ID)
			}
			return nil
		})
	})
}
