package corpus

import "time"

// Document is one unit of text to index, as read from a directory or a JSONL
// file. Text is exactly what is analyzed and stored: for a file, its content
// (decompressed if it is a .gz file), or the visible text of an HTML file;
// for JSONL, title + "\n" + body.
type Document struct {
	Key     string    // unique: slash-separated path relative to the indexed root, or the JSONL id
	Title   string    // display title: taken from the file (see the package documentation) or the JSONL title; may be ""
	Text    []byte    // the analyzed and stored text
	Size    int64     // size of the source in bytes (the file's size, compressed for .gz; len(Text) for JSONL)
	ModTime time.Time // file modification time (zero for JSONL)
	Source  string    // the source it came from, set by the caller that names sources ("" here)
}
