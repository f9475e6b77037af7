// Command bitsieve indexes text files and searches them exactly, with
// bit-sliced signatures verified against a forward index.
//
// Usage:
//
//	bitsieve index [flags] PATH...    index a directory, a .jsonl file or a file
//	bitsieve search [flags] QUERY     ranked hits with highlighted snippets
//	bitsieve explain [flags] QUERY    how the signature answers a query
//	bitsieve stats [flags]            documents, rows, densities, bytes by section
//	bitsieve check [flags]            verify every checksum and invariant
//	bitsieve compact [flags]          merge small segments, drop deleted documents
//	bitsieve serve [flags]            the search page and JSON API over HTTP
//	bitsieve bench [flags] [FILE...]  the signature engine against an inverted index
//	bitsieve demo                     index the embedded sample, run example searches
//
// Run again on an existing index, index updates it: new files are added,
// changed ones (size, modification time or content) replaced, vanished ones
// deleted, and the rest left untouched, within the sources it is given
// (--prune: in the whole index); --rebuild builds it afresh, and
// --watch keeps it following a directory (as serve --watch does).
//
// Without --index, commands use $BITSIEVE_INDEX, else the user's default index
// ($XDG_DATA_HOME/bitsieve/index, usually ~/.local/share/bitsieve/index); when
// that does not exist, read-only commands use a sample corpus embedded in the
// binary. Exit status: 0 success, 1 no match (search) or problems found
// (check), 2 an error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands []command

func register(c command) { commands = append(commands, c) }

// Exit codes that scripts can rely on.
const (
	exitOK      = 0
	exitNoMatch = 1 // search found nothing; check found problems
	exitError   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "bitsieve: unknown command %q (run 'bitsieve help' for the list)\n", args[0])
	return exitError
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "bitsieve — exact full-text search with bit-sliced signatures")
	fmt.Fprintln(w, "\nUsage: bitsieve COMMAND [flags] [args]\n\nCommands:")
	sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'bitsieve COMMAND -h' for a command's flags.")
}

// newFlags makes a flag set whose errors are reported once, on stderr.
func newFlags(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: bitsieve %s [flags] %s\n\nFlags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and returns an exit code when the command should stop.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(interleave(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitError, false
	}
	return 0, true
}

// interleave moves flags found after positional arguments to the front, so
// `bitsieve search 'foo bar' --limit 5` works like most command-line tools.
func interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' && a != "-" && !strings.HasPrefix(a, "-\"") {
			name := strings.TrimLeft(a, "-")
			if k := strings.IndexByte(name, '='); k >= 0 {
				name = name[:k]
			}
			f := fs.Lookup(name)
			if name == "h" || name == "help" {
				flags = append(flags, a)
				continue
			}
			if f == nil {
				// Not a flag of ours: a negated query word such as -foo.
				pos = append(pos, a)
				continue
			}
			flags = append(flags, a)
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); (!ok || !bf.IsBoolFlag()) && !strings.Contains(a, "=") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, append([]string{"--"}, pos...)...)
}

// fail prints a one-sentence error and returns the error exit code.
func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "bitsieve: "+format+"\n", a...)
	return exitError
}
