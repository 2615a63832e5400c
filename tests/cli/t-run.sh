#!/bin/sh
# End-to-end tests of `perfhunt run`.
. ./lib.sh
t "help"; "$PERFHUNT" --help >"$TMP/out" && expect_grep 'run' "$TMP/out" && ok
done_testing
