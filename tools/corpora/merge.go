package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// sourceStats is one line of the .stats file merge writes.
type sourceStats struct {
	Name  string
	Docs  int
	Bytes int64
}

// mergeParts concatenates per-source JSONL parts into w, checking that every
// line is a document whose id is unique and carries its source's prefix.
func mergeParts(w io.Writer, names, paths []string) ([]sourceStats, error) {
	ids := make(map[string]struct{})
	var stats []sourceStats
	for i, path := range paths {
		st := sourceStats{Name: names[i]}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		br := bufio.NewReaderSize(f, 1<<20)
		for lineNo := 1; ; lineNo++ {
			line, err := br.ReadBytes('\n') // lines can be megabytes long
			if len(line) == 0 && err == io.EOF {
				break
			}
			if err != nil && err != io.EOF {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			var d Doc
			if err := json.Unmarshal(line, &d); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
			}
			if !strings.HasPrefix(d.ID, st.Name+":") {
				f.Close()
				return nil, fmt.Errorf("%s:%d: id %q lacks the source prefix %q", path, lineNo, d.ID, st.Name+":")
			}
			if _, dup := ids[d.ID]; dup {
				f.Close()
				return nil, fmt.Errorf("%s:%d: duplicate id %q", path, lineNo, d.ID)
			}
			ids[d.ID] = struct{}{}
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if _, err := w.Write(line); err != nil {
				f.Close()
				return nil, err
			}
			st.Docs++
			st.Bytes += int64(len(line))
		}
		f.Close()
		stats = append(stats, st)
	}
	return stats, nil
}

// formatStats renders the per-source counts as a small TSV table.
func formatStats(stats []sourceStats) string {
	var b strings.Builder
	b.WriteString("source\tdocuments\tbytes\n")
	var total sourceStats
	for _, s := range stats {
		fmt.Fprintf(&b, "%s\t%d\t%d\n", s.Name, s.Docs, s.Bytes)
		total.Docs += s.Docs
		total.Bytes += s.Bytes
	}
	fmt.Fprintf(&b, "total\t%d\t%d\n", total.Docs, total.Bytes)
	return b.String()
}

// writeFileAtomic writes data to a temporary file and renames it to path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it private
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func runMerge(args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("o", "", "output JSONL file")
	statsPath := fs.String("stats", "", "output stats file (TSV: source, documents, bytes)")
	if err := parseFlags(fs, args, 1, -1); err != nil {
		return err
	}
	if *out == "" || *statsPath == "" {
		return fmt.Errorf("%w: -o and -stats are required", errUsage)
	}
	var names, paths []string
	for _, a := range fs.Args() {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("%w: want NAME=PATH, got %q", errUsage, a)
		}
		names = append(names, name)
		paths = append(paths, path)
	}
	f, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".tmp*")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	stats, err := mergeParts(bw, names, paths)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), *out)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return writeFileAtomic(*statsPath, []byte(formatStats(stats)))
}
