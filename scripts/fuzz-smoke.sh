#!/usr/bin/env bash
# Runs every fuzz target of the module (func FuzzXxx in a _test.go file) for
# FUZZTIME each, and prints how many inputs each one tried.
#
# A crasher is saved under the package's testdata/fuzz and fails the run
# (commit it: it becomes a regression test). Go 1.26's fuzz coordinator can
# also end a run with a bare "context deadline exceeded" at the -fuzztime
# boundary on a loaded machine (golang/go#75804, fixed in Go 1.27); such a
# run, which wrote no crasher and whose corpus replays cleanly, is reported
# and not counted as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
# Minimizing each new interesting input may take a minute by default, during
# which a short run makes no progress: keep it brief.
MINIMIZE=${FUZZMINIMIZETIME:-1s}
failed=0
summary=()
for f in $(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do
	pkg=./$(dirname "${f#./}")
	for fn in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
		echo "fuzz: $pkg $fn for $FUZZTIME"
		out=$("$GO" test -run='^$' -fuzz="^$fn\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$MINIMIZE" "$pkg" 2>&1)
		rc=$?
		execs=$(printf '%s\n' "$out" | sed -n 's/.*execs: \([0-9]*\).*/\1/p' | tail -1)
		if [ $rc -eq 0 ]; then
			summary+=("$pkg $fn: ${execs:-0} execs, ok")
			continue
		fi
		if printf '%s\n' "$out" | grep -q 'context deadline exceeded' &&
			! printf '%s\n' "$out" | grep -q 'Failing input written' &&
			"$GO" test -count=1 -run="^$fn\$" "$pkg" >/dev/null 2>&1; then
			summary+=("$pkg $fn: ${execs:-0} execs, ok (stopped by the fuzz deadline race, golang/go#75804)")
			continue
		fi
		printf '%s\n' "$out" | grep -v 'fuzz: elapsed'
		summary+=("$pkg $fn: ${execs:-0} execs, FAILED")
		failed=1
	done
done
printf '%s\n' "${summary[@]}"
exit $failed
