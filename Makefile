# mpimatch: the two entry points on a fresh Debian machine.
#   make bench   install what is needed, build, run `mpimatch bench` (default suite)
#   make test    install what is needed, build (release, debug, ASan+UBSan, TSan), run every test
.PHONY: bench test build clean
bench:
	scripts/setup.sh
	.venv/bin/mpimatch bench --out bench-out
test:
	scripts/test.sh
build:
	scripts/setup.sh
clean:
	rm -rf build build-debug build-asan build-tsan
