package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version describes this binary from its build information: the module
// version ("(devel)" for a build from a work tree), the VCS revision and
// time, and whether the tree had uncommitted changes.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version) " + runtime.Version()
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev == "" {
		return fmt.Sprintf("%s %s", v, runtime.Version())
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return fmt.Sprintf("%s (revision %s, %s%s) %s", v, rev, at, dirty, runtime.Version())
}
