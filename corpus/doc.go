// Package corpus reads documents: the files under a directory, the lines of a
// JSONL file, or the sample corpus embedded in the binary. It only reads; the
// caller hands each Document to the index writer. Of bitsieve's packages it
// imports only internal/textbuf, which lays out the text of HTML.
//
// # Sources
//
// Read dispatches on what a path names:
//
//   - a directory: Walk, one document per regular text file (HTML as its
//     visible text, .gz files decompressed; see File formats);
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
//   - skips files and directories it may not read, and goes on, and files
//     whose path would make a key longer than MaxKeyBytes;
//   - applies the WalkOptions.Include and Exclude glob patterns;
//   - skips what .gitignore files exclude, unless WalkOptions.NoIgnore (see
//     below).
//
// A root that is a regular file yields that one file, keyed by its base name;
// the size and binary checks apply to it, the hidden, glob and .gitignore
// filters do not.
//
// # File formats
//
// What a file contributes is decided by its name (any case):
//
//   - .html, .htm, .xhtml: the visible text. The markup is tokenized with
//     golang.org/x/net/html, which recovers from malformed markup as
//     browsers do; script, style, noscript and template elements are dropped
//     with their content, and so are comments; block elements (p, div, li,
//     h1–h6, br, tr, pre, table, section and the like) start a new line or
//     paragraph, so snippets read like the page; white space collapses
//     except inside pre; character references are decoded; there is never
//     more than one blank line in a row. The title is the first <title>,
//     else the first <h1>; a <title> is also the first line of the text
//     (unless the text already begins with it), so its words are found.
//   - .md, .markdown: the text as it is. The title is the first heading,
//     ATX ("## Title ##", closing #s dropped) or setext (a line underlined
//     with === or ---), if nothing of substance comes before it: blank
//     lines, YAML front matter, HTML comments and markup, and badge images
//     do not count. Otherwise the title is taken as for plain text.
//   - any other file: the text as it is, titled by its first line that
//     holds a letter or digit (a line of "{" or "/*" alone names nothing).
//     When that line mentions a copyright or an SPDX license identifier,
//     the paragraph it opens is a license header, as at the top of most
//     source files, and the title is the first such line after it: a Go
//     file is titled by its package comment or clause, not by
//     "// Copyright 2009 The Go Authors".
//   - a name ending in .gz is decompressed with compress/gzip and then read
//     by the name without .gz: index.html.gz is HTML, changelog.Debian.gz
//     plain text. The key keeps the .gz. The size limit applies to the
//     compressed file and again to the decompressed bytes, so a
//     decompression bomb is skipped as too-large ("more than N bytes
//     decompressed"), and the binary checks apply to the decompressed
//     bytes. A damaged or truncated stream is skipped as corrupt, with the
//     decompressor's error as detail.
//
// Titles taken from files have white space collapsed, control characters
// and invalid UTF-8 replaced, and are cut at a word boundary to about 100
// characters, marked with "…". A file with no text has an empty title.
//
// # .gitignore
//
// A directory walk skips, as git does, the files and directories that the
// .gitignore files of the tree exclude, and those in .git/info/exclude. The
// patterns of a .gitignore apply to the directory that holds it and below,
// relative to that directory; a deeper file overrides a shallower one and a
// later line an earlier one ("!keep.txt" re-includes); "build/" matches
// directories only; nothing under an excluded directory is read, whatever
// a deeper pattern says. If the walk root lies inside a repository (a
// directory above it holds .git), the .gitignore files between the
// repository's top and the root apply too, and .git/info/exclude is the
// repository's. The global excludes file (core.excludesFile) is not read.
// Ignored entries are reported in Stats with the reason "ignored", a
// directory once, like hidden or excluded ones, so a verbose listing shows
// why a file is missing. WalkOptions.NoIgnore turns all this off. The
// .gitignore files themselves are hidden files, and are not indexed unless
// WalkOptions.IncludeHidden. A partial walk (WalkOptions.Only) reads the
// .gitignore files of the directories on its way, so it skips exactly what a
// full walk skips.
//
// # JSONL
//
// Each non-blank line is a JSON object:
//
//	{"id": "doc-17", "title": "A title", "body": "The text ..."}
//
// "text" is accepted in place of "body" (body wins when a line has both).
// "id" follows the one rule for keys: a string of 1 to MaxKeyBytes bytes, or
// an integer of at most MaxIntID in magnitude, keyed by its decimal form (-0
// is "0"). A null, empty or longer string, a fraction or exponent (1.0 and
// 1e3 included), a larger number, a boolean, array or object is a bad field.
// A line without an id is keyed "<name>:<line>", name being the name given
// to ReadJSONL (Read passes the file's base name) and line its 1-based line
// number. "title"
// is optional. Other fields are ignored. Field names are matched exactly; a
// name given twice counts once, with its last value. Invalid UTF-8 in a
// string becomes U+FFFD. The document's Text is title + "\n" + body, its
// Size is len(Text).
//
// A line that is not a JSON object, has a field of the wrong type, has no body,
// or repeats an id already seen is skipped and reported with its line number
// (and, for malformed JSON, the byte offset where it goes wrong);
// the first document with a given id wins (the reader keeps the set of ids
// seen, in memory proportional to their total length). Lines may be of any length: the
// reader holds one line at a time, however long, and never more.
//
// DecodeJSON decodes one such object on its own, by the same rules and with
// the same messages, for a caller that takes documents one by one and needs
// each to carry its id (bitsieve's write API): there a missing id is an error
// too.
package corpus
