// Package corpus reads documents: the files under a directory, the lines of a
// JSONL file, or the sample corpus embedded in the binary. It only reads; the
// caller hands each Document to the index writer. It imports no other bitsieve
// package.
//
// # Sources
//
// Read dispatches on what a path names:
//
//   - a directory: Walk, one document per regular text file;
//   - a file ending in .jsonl or .ndjson, optionally followed by .gz, .zst or
//     .zstd: ReadJSONL, one document per line;
//   - any other regular file: one document (Walk on that file).
//
// Every reader calls fn once per document, in a deterministic order, and
// returns Stats: how many documents and bytes were read, and every file or line
// that was skipped, with its reason. Skipping is never fatal: a permission
// error on one file, a binary file or a malformed JSON line is reported in Stats
// and the read goes on. Only a problem with the input as a whole (a root that
// does not exist, a bad glob pattern, a read error on the JSONL stream) or an
// error returned by fn stops a read; fn's error is returned as is.
//
// fn may keep the Document it is given: its Text is never reused by the reader.
//
// # Directory walk
//
// Key is the path relative to the root, slash-separated, taken byte for byte
// from the file system (it may contain newlines or invalid UTF-8). Entries are
// visited in byte order of their names, directories depth first, so the same
// tree always yields the same documents in the same order. The walk:
//
//   - skips version-control directories (.git, .hg, .svn, .bzr, .jj) always,
//     and other names starting with '.' unless WalkOptions.IncludeHidden;
//   - never follows symbolic links (so a link loop cannot trap it);
//   - never opens anything but regular files: a FIFO would block the open, a
//     device could be endless;
//   - skips files larger than WalkOptions.MaxFileSize (10 MiB by default),
//     decided from the directory entry's size, before opening the file;
//   - skips binary files: a NUL byte in the first 8 KiB, or more than 1% of
//     the bytes not part of valid UTF-8 (mostly-UTF-8 text with a few stray
//     Latin-1 bytes is kept; the analyzer turns the stray bytes into spaces);
//   - skips files and directories it may not read, and goes on;
//   - applies the WalkOptions.Include and Exclude glob patterns.
//
// A root that is a regular file yields that one file, keyed by its base name;
// the size and binary checks apply to it, the hidden and glob filters do not.
//
// # JSONL
//
// Each non-blank line is a JSON object:
//
//	{"id": "doc-17", "title": "A title", "body": "The text ..."}
//
// "text" is accepted in place of "body" (body wins when a line has both).
// "id" may be a JSON string or number (a number is kept as written: 017 is
// invalid JSON, 1e3 stays "1e3"); a line without an id, or with a null or
// empty one, is keyed "<name>:<line>", name being the name given to ReadJSONL
// (Read passes the file's base name) and line its 1-based line number. "title"
// is optional. Other fields are ignored. Field names are matched exactly.
// The document's Text is title + "\n" + body, its Size is len(Text).
//
// A line that is not a JSON object, has a field of the wrong type, has no body,
// or repeats an id already seen is skipped and reported with its line number;
// the first document with a given id wins (the reader keeps the set of ids
// seen, in memory proportional to their total length). Lines may be of any length: the
// reader holds one line at a time, however long, and never more.
package corpus
