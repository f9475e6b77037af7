package index

import "time"

// Document is one document handed to a Writer. Text is what is analyzed and
// stored; Key must be unique within an index. Source names where it came
// from (a directory root, a JSONL file; "" for a document added on its
// own): the index keeps its SourceTag, so that an update of one source
// deletes only that source's vanished documents (Writer.DeleteUnseen).
type Document struct {
	Key     string
	Title   string
	Text    []byte
	Size    int64
	ModTime time.Time
	Source  string
}
