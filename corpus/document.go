package corpus

import "time"

// Document is one unit of text to index, as read from a directory or a JSONL
// file. Text is exactly what is analyzed and stored: the file's content for a
// directory, title + "\n" + body for JSONL.
type Document struct {
	Key     string    // unique: slash-separated path relative to the indexed root, or the JSONL id
	Title   string    // display title ("" for files: the key is shown instead)
	Text    []byte    // the analyzed and stored text
	Size    int64     // size of the source in bytes (file size, or len(Text) for JSONL)
	ModTime time.Time // file modification time (zero for JSONL)
	Source  string    // the source it came from, set by the caller that names sources ("" here)
}
