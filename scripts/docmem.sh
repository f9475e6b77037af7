#!/usr/bin/env bash
# Measures what reading one large document costs the server: it writes a
# single-line text file of MB megabytes (words, with "alpha" every 1,000),
# indexes it, serves the index, and sends N concurrent requests for the
# document with q=alpha, to the page (/doc) and then to the API. It prints
# the server's resident set before, and its peak during each round
# (VmHWM, reset before each), in MiB.
#
#   bash scripts/docmem.sh [MB] [N]        (defaults: 29 and 4)
#   BIN=path/to/bitsieve bash scripts/docmem.sh 200
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-29}
N=${2:-4}
BIN=${BIN:-bin/bitsieve}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/bitsieve
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/src"
python3 - "$work/src/big.txt" "$MB" <<'EOF'
import random, sys
path, mb = sys.argv[1], int(sys.argv[2])
words = "lorem ipsum dolor sit amet sea ship whale harbour tide".split()
r = random.Random(1)
chunk = " ".join(("alpha" if i % 1000 == 999 else r.choice(words)) for i in range(200000)) + " "
with open(path, "w") as f:
    left = mb << 20
    while left > 0:
        f.write(chunk[:left])
        left -= len(chunk)
EOF
"$BIN" index --max-file-size $(((MB + 1) << 20)) --index "$work/ix" "$work/src" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --index "$work/ix" --addr "127.0.0.1:$port" >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
kb() { awk -v k="$1" '$1==k":" {print $2}' /proc/$pid/status; }
mib() { echo $(( $1 / 1024 )); }
echo "document: $MB MB on one line; $N concurrent requests; server RSS before: $(mib "$(kb VmRSS)") MiB"
for route in "/doc?key=src/big.txt&q=alpha" "/api/documents/src/big.txt?q=alpha"; do
	before=$(kb VmRSS)
	echo 5 >/proc/$pid/clear_refs
	start=$(date +%s.%N)
	for _ in $(seq "$N"); do curl -sS -o /dev/null -w "%{http_code} " "http://127.0.0.1:$port$route" & done
	wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
	end=$(date +%s.%N)
	peak=$(kb VmHWM)
	printf '%-36s peak %5d MiB, +%4d MiB over %d MiB; %.2f s\n' "$route" "$(mib "$peak")" "$(mib $((peak - before)))" "$(mib "$before")" "$(echo "$end - $start" | bc)"
done
