// Package doclist encodes the exact document lists of a segment's rare
// terms, which the index writes and the query matcher reads in place. A
// segment with lists has at most MaxDocs documents, so a document number is
// a uint16, and a list is stored in whichever of two encodings is smaller:
//
//   - plain: df uint16 document numbers, ascending (16 bits an entry);
//   - chunked: for every 256-document chunk the list touches, in ascending
//     order, the chunk number (document >> 8) as one byte, the number of its
//     entries minus one as one byte, then the low bytes of those entries,
//     ascending (8 bits an entry plus 16 a chunk). Dense lists, with many
//     entries to a chunk, come close to 8 bits an entry.
//
// Both are padded to an even length, so every list starts 2-byte aligned and
// a plain list is used in place as a []uint16.
package doclist

import "slices"

// MaxDocs is the largest segment whose rare terms get lists: a document
// number then fits a uint16.
const MaxDocs = 1 << 16

// List is a term's document list in one segment.
type List struct {
	plain   []uint16 // the plain encoding, or nil
	chunked []byte   // the chunked encoding from its first byte to the end of the section, or nil
	n       int      // entries
}

// NewPlain is the plain list of docs (ascending), read in place.
func NewPlain(docs []uint16) List { return List{plain: docs, n: len(docs)} }

// NewChunked is the chunked list of n entries that starts at b[0], read in
// place; b may run on past the list's end (to the end of the lists
// section). ChunkedEnd validates it.
func NewChunked(b []byte, n int) List { return List{chunked: b, n: n} }

// Len is the number of documents in the list.
func (l List) Len() int { return l.n }

// Chunked reports whether the list is in the chunked encoding.
func (l List) Chunked() bool { return l.chunked != nil }

// Plain returns the entries of a plain list in place (nil for a chunked one).
func (l List) Plain() []uint16 { return l.plain }

// Bytes returns the chunked encoding, from its first chunk to the end of the
// lists section: a reader stops after Len entries (nil for a plain list).
func (l List) Bytes() []byte { return l.chunked }

// AppendTo appends the list's documents to dst, ascending.
func (l List) AppendTo(dst []uint16) []uint16 { return appendDocs(l, dst) }

// AppendDocs appends the list's documents to dst as int32s, ascending: a
// matcher's candidates, decoded in one pass from either encoding.
func (l List) AppendDocs(dst []int32) []int32 { return appendDocs(l, dst) }

// appendDocs appends l's documents to dst, ascending.
func appendDocs[T uint16 | int32](l List, dst []T) []T {
	if l.chunked == nil {
		for _, d := range l.plain {
			dst = append(dst, T(d))
		}
		return dst
	}
	b := l.chunked
	for i, seen := 0, 0; seen < l.n; {
		hi, cnt := T(b[i])<<8, int(b[i+1])+1
		for _, lo := range b[i+2 : i+2+cnt] {
			dst = append(dst, hi|T(lo))
		}
		i += 2 + cnt
		seen += cnt
	}
	return dst
}

// Contains reports whether doc is in the list.
func (l List) Contains(doc int) bool {
	if l.chunked == nil {
		_, ok := slices.BinarySearch(l.plain, uint16(doc))
		return ok
	}
	b, hi := l.chunked, byte(doc>>8)
	for i, seen := 0, 0; seen < l.n; {
		cnt := int(b[i+1]) + 1
		seen += cnt
		switch {
		case b[i] == hi:
			_, ok := slices.BinarySearch(b[i+2:i+2+cnt], byte(doc))
			return ok
		case b[i] > hi:
			return false
		}
		i += 2 + cnt
	}
	return false
}

// Filter keeps, in place, the documents of docs (ascending, each below
// MaxDocs) that the list holds, and returns them. It merges the two in one
// pass: in a plain list it gallops from the entry it reached last to the
// next document, so that a long list costs a few probes a document; in a
// chunked one it steps over the chunks before a document's by their
// headers, and merges within its chunk. Asking the list about each
// document in turn (a search from the entry found last) costs several
// times as much per document when the list is about as long as docs.
func (l List) Filter(docs []int32) []int32 {
	if l.chunked == nil {
		return filterPlain(docs, l.plain)
	}
	b, n := l.chunked, l.n
	j := 0
	i, seen := 0, 0           // the chunk at b[i], with seen entries before it
	lo, end := 2, 2+int(b[1]) // its entries left, b[lo:end+1]
	for _, d := range docs {
		hi := byte(d >> 8)
		for b[i] < hi {
			seen += int(b[i+1]) + 1
			if seen >= n {
				return docs[:j]
			}
			i += 2 + int(b[i+1]) + 1
			lo, end = i+2, i+2+int(b[i+1])
		}
		if b[i] > hi {
			continue
		}
		for lo <= end && b[lo] < byte(d) {
			lo++
		}
		if lo <= end && b[lo] == byte(d) {
			docs[j] = d
			j++
		}
	}
	return docs[:j]
}

// filterPlain is Filter for a plain list.
func filterPlain(docs []int32, l []uint16) []int32 {
	j, k := 0, 0
	for _, d := range docs {
		// Gallop: find a step past d, then search below it.
		step := 1
		for k+step < len(l) && int32(l[k+step]) < d {
			k += step
			step *= 2
		}
		hi := min(k+step, len(l))
		for k < hi && int32(l[k]) < d {
			if m := k + (hi-k)/2; int32(l[m]) < d {
				k = m + 1
			} else {
				hi = m
			}
		}
		if k == len(l) {
			break
		}
		if int32(l[k]) == d {
			docs[j] = d
			j++
		}
	}
	return docs[:j]
}

// chunkedSize is the size in bytes of docs (ascending) in the chunked
// encoding, before padding.
func chunkedSize(docs []uint16) int {
	size, last := 0, -1
	for _, d := range docs {
		if c := int(d >> 8); c != last {
			size += 2
			last = c
		}
		size++
	}
	return size
}

// Append appends docs (ascending) in the smaller encoding, padded to an
// even length, and reports whether it is chunked.
func Append(dst []byte, docs []uint16) ([]byte, bool) {
	if chunkedSize(docs) >= 2*len(docs) {
		for _, d := range docs {
			dst = append(dst, byte(d), byte(d>>8))
		}
		return dst, false
	}
	for i := 0; i < len(docs); {
		c := docs[i] >> 8
		j := i
		for j < len(docs) && docs[j]>>8 == c {
			j++
		}
		dst = append(dst, byte(c), byte(j-i-1))
		for _, d := range docs[i:j] {
			dst = append(dst, byte(d))
		}
		i = j
	}
	if len(dst)%2 != 0 {
		dst = append(dst, 0)
	}
	return dst, true
}

// ChunkedEnd validates the chunked list of n entries starting at b[0] and
// returns its length without padding, or -1 when it is malformed: chunk
// numbers must ascend and lie below chunks, and the chunks must hold n
// entries inside b.
func ChunkedEnd(b []byte, n, chunks int) int {
	i, seen, last := 0, 0, -1
	for seen < n {
		if i+1 >= len(b) {
			return -1
		}
		c, cnt := int(b[i]), int(b[i+1])+1
		if c <= last || c >= chunks || i+2+cnt > len(b) {
			return -1
		}
		seen += cnt
		last = c
		i += 2 + cnt
	}
	if seen != n {
		return -1
	}
	return i
}

// Encode returns docs (ascending, below MaxDocs) as a List in the smaller
// encoding, as a segment would store it.
func Encode(docs []uint16) List {
	b, chunked := Append(nil, docs)
	if chunked {
		return NewChunked(b, len(docs))
	}
	return NewPlain(slices.Clone(docs))
}
