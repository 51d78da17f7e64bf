#!/usr/bin/env bash
# compare-cli.sh OLD NEW [DIR...]: runs two stackdump binaries on every
# dump file under the directories (default: testdata and ../shared/corpus)
# through every offline command and output form, and reports each
# difference in what they wrote (stdout, stderr, exit code, output files).
# A refactor that changes no behaviour must report none:
#
#	git stash; go build -C cmd/stackdump -o /tmp/old .; git stash pop
#	go build -C cmd/stackdump -o /tmp/new .
#	scripts/compare-cli.sh /tmp/old /tmp/new
#
# The HTML report embeds the time it was generated; it is compared with
# that time taken out.
set -uo pipefail
old=$(realpath "$1") new=$(realpath "$2")
shift 2
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	dirs=(testdata ../shared/corpus)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run BIN TAG ARGS...: runs BIN in its own directory, keeping stdout,
# stderr, the exit code and every file it wrote there under TAG.
run() {
	local bin=$1 tag=$2
	shift 2
	local d="$work/$tag"
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && "$bin" "$@" >stdout 2>stderr </dev/null; echo $? >code)
	# Outputs name the input; the binaries differ, the paths not.
	sed -i "s#$bin#BIN#g" "$d/stderr" "$d/stdout"
}

files=0 runs=0 diffs=0
while IFS= read -r -d '' f; do
	f=$(realpath "$f")
	files=$((files + 1))
	base=$(basename "$f")
	for args in \
		"convert --format text" "convert --format json" "convert --format debug1" \
		"convert --format pprof -o out.pb" "convert --format folded -o out.folded" \
		"convert --dedupe --format text" "convert --dedupe --format json" "convert --dedupe --by func --format debug1" \
		"analyze" "analyze --json" "timeline --json" "report -o out.html"; do
		# shellcheck disable=SC2086
		run "$old" old $args "$f"
		# shellcheck disable=SC2086
		run "$new" new $args "$f"
		runs=$((runs + 1))
		for h in "$work"/old/out.html "$work"/new/out.html; do
			[ -f "$h" ] && sed -i -E 's/"generated":"[^"]*"//' "$h"
		done
		if ! diff -r "$work/old" "$work/new" >"$work/diff" 2>&1; then
			diffs=$((diffs + 1))
			echo "DIFFERS: stackdump $args $base"
			head -20 "$work/diff"
		fi
	done
done < <(find "${dirs[@]}" -type f ! -name '*.md' ! -name '*.go' ! -name '*.golden' ! -path '*/gen/*' ! -path '*/fuzz/*' -print0 | sort -z)
echo "compared $runs runs over $files files: $diffs differ"
[ "$diffs" = 0 ]
