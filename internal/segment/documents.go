package segment

import (
	"bytes"
	"time"

	"github.com/bitsieve/bitsieve/internal/prefetch"
)

// DocInfo describes one document of a segment.
type DocInfo struct {
	Key      string
	Title    string
	Size     int64
	ModTime  time.Time // zero when unknown
	Hash     uint64    // xxhash64 of the text
	Tokens   int       // indexed tokens, the BM25 length
	Distinct int       // distinct terms
	TextLen  int
	Source   uint32 // SourceTag of the document's source (0: none)
}

// Doc returns the document table entry of doc.
func (s *Segment) Doc(doc int) DocInfo {
	r := s.docRecord(doc)
	d := DocInfo{
		Key:      string(r.key(s.docStrs)),
		Title:    string(r.title(s.docStrs)),
		Size:     r.size(),
		Hash:     r.hash(),
		Tokens:   r.tokens(),
		Distinct: r.distinct(),
		TextLen:  r.textLen(),
		Source:   r.source(),
	}
	if ns := r.mtime(); ns != 0 {
		d.ModTime = time.Unix(0, ns)
	}
	return d
}

// PrefetchDoc asks for doc's record, for a Doc of it soon: a page of hits
// from many segments asks for all its records first, so that their cache
// misses overlap instead of following one another.
func (s *Segment) PrefetchDoc(doc int) {
	prefetch.Range(s.docRecs[doc*docRecordSize : doc*docRecordSize+1])
}

// PrefetchDocStrings reads doc's record (best asked for by PrefetchDoc
// first), asks for its key and title, and returns their length together.
func (s *Segment) PrefetchDocStrings(doc int) int {
	r := s.docRecord(doc)
	off, n := r.strOff(), r.keyLen()+r.titleLen()
	if n > 0 && off+n <= uint64(len(s.docStrs)) {
		prefetch.Range(s.docStrs[off : off+n])
	}
	return int(n)
}

// DocStrings returns doc's key and title in place, for a caller that
// copies them: a page of hits copies all its keys and titles into one
// string, where Doc would allocate two strings a hit.
func (s *Segment) DocStrings(doc int) (key, title []byte) {
	r := s.docRecord(doc)
	return r.key(s.docStrs), r.title(s.docStrs)
}

// DocTextLen is the length in bytes of doc's stored text.
func (s *Segment) DocTextLen(doc int) int { return s.docRecord(doc).textLen() }

// DocTokens is the BM25 length of doc, without decoding its key.
func (s *Segment) DocTokens(doc int) int { return int(s.lengths[doc]) }

// DocSource is the SourceTag of doc's source, 0 for none.
func (s *Segment) DocSource(doc int) uint32 {
	return s.docRecord(doc).source()
}

// DocKey is the key of doc.
func (s *Segment) DocKey(doc int) string { return string(s.keyBytes(doc)) }

// keyBytes is the key of doc, in place.
func (s *Segment) keyBytes(doc int) []byte { return s.docRecord(doc).key(s.docStrs) }

// CompareKeys compares the key of document a with that of document b of
// segment t (which may be s), as strings.Compare would, without copying them.
func (s *Segment) CompareKeys(a int, t *Segment, b int) int {
	return bytes.Compare(s.keyBytes(a), t.keyBytes(b))
}
