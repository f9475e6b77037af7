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
// binary. Flags follow GNU conventions (--flag value, --flag=value, anywhere
// among the arguments; a query word that starts with - goes after --), and
// an unknown flag or a bad value is an error. Exit status: 0 success, 1 no
// match (search) or problems found (check), 2 an error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// command is one subcommand: define declares its flags on the command's
// flag set and returns the function that runs it once they are parsed.
type command struct {
	parent  string // the command it is a subcommand of ("cluster status"), or ""
	name    string
	args    string // what follows the flags, for the usage line
	summary string
	define  func(fs *pflag.FlagSet) runFunc
}

// runFunc runs a command on its positional arguments; it returns the exit code.
type runFunc func(args []string, stdout, stderr io.Writer) int

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

// run parses args with the command tree (newRoot) and runs the command they
// name. Help goes to stdout with exit 0; a usage error is one sentence on
// stderr with exit 2.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		rootUsage(stderr)
		return exitError
	}
	code := exitOK
	root := newRoot(stdout, stderr, &code)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err != nil {
		fmt.Fprintln(stderr, usageError(cmd, err))
		return exitError
	}
	return code
}

// newRoot builds the command tree; a command's exit code lands in *code.
func newRoot(stdout, stderr io.Writer, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:           "bitsieve",
		Short:         "exact full-text search with bit-sliced signatures",
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		Run:           func(cmd *cobra.Command, args []string) { cmd.Help() },
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("bitsieve {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	parents := map[string]*cobra.Command{}
	for _, c := range commands {
		sub := &cobra.Command{
			Use:                   c.name + " [flags] " + c.args,
			Short:                 c.summary,
			DisableFlagsInUseLine: true,
		}
		exec := c.define(sub.Flags())
		sub.Flags().SortFlags = false
		sub.RunE = func(cmd *cobra.Command, args []string) error {
			*code = exec(args, stdout, stderr)
			return nil
		}
		if c.parent == "" {
			root.AddCommand(sub)
			continue
		}
		p := parents[c.parent]
		if p == nil {
			p = &cobra.Command{Use: c.parent + " COMMAND", Short: parentSummaries[c.parent], Args: cobra.NoArgs,
				Run: func(cmd *cobra.Command, args []string) { cmd.Help() }}
			parents[c.parent] = p
			root.AddCommand(p)
		}
		p.AddCommand(sub)
	}
	root.AddCommand(manCommand(root))
	return root
}

// parentSummaries describe the commands that group subcommands.
var parentSummaries = map[string]string{"cluster": "a cluster index on NATS JetStream: status"}

// rootUsage prints the command list, for a bare `bitsieve`.
func rootUsage(w io.Writer) {
	var code int
	newRoot(w, w, &code).Usage()
}

// usageError turns a parse error into one sentence that says what to do.
func usageError(cmd *cobra.Command, err error) string {
	name := "bitsieve"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	var notExist *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	var required *pflag.ValueRequiredError
	switch {
	case errors.As(err, &notExist):
		flag := "--" + notExist.GetSpecifiedName()
		if short := notExist.GetSpecifiedShortnames(); short != "" {
			flag = "-" + short
		}
		msg := fmt.Sprintf("%s: unknown flag %s", name, flag)
		if near := nearestFlag(cmd, strings.TrimLeft(flag, "-")); near != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", near)
		}
		if cmd != nil && (cmd.Name() == "search" || cmd.Name() == "explain") {
			return msg + fmt.Sprintf("; a query word that starts with - goes after --, as in %s -- %s", name, flag)
		}
		return msg + fmt.Sprintf("; run '%s --help' for its flags", name)
	case errors.As(err, &invalid):
		return fmt.Sprintf("%s: --%s wants %s, not %q", name, invalid.GetFlag().Name, valueKind(invalid.GetFlag().Value.Type()), invalid.GetValue())
	case errors.As(err, &required):
		return fmt.Sprintf("%s: --%s needs a value", name, required.GetFlag().Name)
	case strings.HasPrefix(err.Error(), "unknown command"):
		return fmt.Sprintf("bitsieve: unknown command %q; run 'bitsieve --help' for the list", strings.SplitN(err.Error(), `"`, 3)[1])
	}
	return fmt.Sprintf("%s: %v", name, err)
}

// nearestFlag returns the flag of cmd closest to name, if it is at most two
// edits away.
func nearestFlag(cmd *cobra.Command, name string) string {
	if cmd == nil {
		return ""
	}
	best, bestD := "", 3
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// valueKind names what a flag of a pflag value type takes.
func valueKind(typ string) string {
	switch {
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "duration":
		return "a duration such as 500ms or 2s"
	case typ == "bool":
		return "true or false"
	}
	return "a " + typ
}

// fail prints a one-sentence error and returns the error exit code.
func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "bitsieve: "+format+"\n", a...)
	return exitError
}
