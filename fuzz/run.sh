#!/bin/sh
# fuzz/run.sh [SECONDS]: builds every libFuzzer target of fuzz/meson.build in
# build-fuzz (clang, ASan+UBSan) and runs each over its corpus for SECONDS
# (default 30). New inputs go to a scratch folder, so the committed corpus only
# changes by hand; a crash is kept in build-fuzz/artifacts/<name>/ and fails the
# run: minimise it (-minimize_crash=1), fix the bug, commit it to fuzz/corpus/<name>/.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-30}
case $secs in ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS]" >&2; exit 2 ;; esac
[ -x scripts/setup ] && scripts/setup --quiet
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz --buildtype=debugoptimized -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >/dev/null
fi
targets=$(awk '/^fuzz_targets = \[/{on=1; next} on && /^\]/{on=0} on' fuzz/meson.build | tr -d " ',")
[ -n "$targets" ] || { echo "fuzz/run.sh: no targets in fuzz/meson.build" >&2; exit 1; }
exes=
for t in $targets; do exes="$exes fuzz/fuzz_$t"; done
# shellcheck disable=SC2086
ninja -C build-fuzz $exes
scratch=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failed=
for t in $targets; do
	mkdir -p "$scratch/$t" "build-fuzz/artifacts/$t"
	echo "== fuzz_$t: ${secs}s over fuzz/corpus/$t"
	if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"build-fuzz/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t/" \
		"$scratch/$t" "fuzz/corpus/$t" 2>"$scratch/$t.log"; then
		failed="$failed $t"
		tail -40 "$scratch/$t.log" >&2
	fi
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+.*DONE' "$scratch/$t.log" || true
done
if [ -n "$failed" ]; then
	echo "fuzz/run.sh: crashes in:$failed (inputs in build-fuzz/artifacts/)" >&2
	exit 1
fi
echo "fuzz/run.sh: no crash in $(echo $targets | wc -w) targets"
