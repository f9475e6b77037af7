package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand writes a man page for bitsieve and each of its commands.
func manCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "write man pages (bitsieve.1, bitsieve-search.1, …) into DIR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return fmt.Errorf("cannot make %s: %w", args[0], err)
			}
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "BITSIEVE", Section: "1", Source: "bitsieve " + version()}
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return fmt.Errorf("writing man pages: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "man pages written to %s (man -l %s/bitsieve.1)\n", args[0], args[0])
			return nil
		},
	}
}
