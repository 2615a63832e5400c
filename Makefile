# Thin wrapper over Meson + Ninja. `make` builds build/perfhunt.
PREFIX ?= /usr/local
BUILD  ?= build
MESON_FLAGS ?= --buildtype=debugoptimized

.PHONY: all setup demo check check-asan check-clang install bench fuzz clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	@scripts/setup --quiet
	meson setup $(BUILD) $(MESON_FLAGS) --prefix=$(PREFIX)

setup:
	scripts/setup

demo: all
	tests/workloads/demo.sh $(BUILD)

# meson counts test programs; scripts/test-summary closes with the cases.
check: all
	meson test -C $(BUILD) --print-errorlogs; st=$$?; scripts/test-summary $(BUILD); exit $$st

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
check-asan:
	@scripts/setup --quiet
	test -f build-asan/build.ninja || meson setup build-asan --buildtype=debug \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all
	ninja -C build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C build-asan --print-errorlogs --timeout-multiplier 3; st=$$?; scripts/test-summary build-asan; exit $$st

# The same code with clang, warnings as errors; its unit tests run too.
check-clang:
	@scripts/setup --quiet
	test -f build-clang/build.ninja || CC=clang meson setup build-clang --buildtype=debugoptimized
	ninja -C build-clang
	meson test -C build-clang --suite unit --print-errorlogs; st=$$?; scripts/test-summary build-clang; exit $$st

install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson install -C $(BUILD)

# The peers the benchmarks measure against come from Debian too.
BENCH_PEERS = hyperfine:/usr/bin/hyperfine python3-psutil:/usr/lib/python3/dist-packages/psutil \
	python3-memory-profiler:/usr/lib/python3/dist-packages/memory_profiler.py linux-perf:/usr/bin/perf
bench: all
	PERFHUNT_SETUP_EXTRA="$(BENCH_PEERS)" scripts/setup --quiet
	bench/run-all.sh $(BUILD)

fuzz:
	fuzz/run.sh

clean:
	rm -rf $(BUILD) build-asan build-clang build-fuzz
