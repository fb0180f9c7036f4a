#!/usr/bin/env bash
# The Debian package (issue 38): cpack makes it from this build, it holds the binary, its
# preload libraries, the Python runner, docs, the man page and the completion scripts, and the
# installed kjudge runs from a root that has the package's files and the system's, with this
# source tree and build hidden, finding its own libraries and runner where it was installed.
# Usage: deb_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/out/kjudge_*.deb)
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
info=$(dpkg-deb -I "$deb")
grep -E '^ (Package|Version|Architecture|Depends):' <<< "$info"
grep -q '^ Depends:.*bubblewrap' <<< "$info" || fail "Depends lacks bubblewrap"
grep -q '^ Depends:.*libyaml-cpp' <<< "$info" || fail "Depends lacks the shared libraries"
# Stripped: a package of the RelWithDebInfo build would carry ~90 MB of debug information.
size=$(stat -c %s "$deb")
[ "$size" -lt $((30 << 20)) ] || fail "the package is $size bytes (unstripped?)"

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/kjudge usr/lib/kjudge/libkjudge_main_guard.so usr/lib/kjudge/libkjudge_end_clock.so \
         usr/share/kjudge/python/kjudge_triton_runner.py usr/share/kjudge/python/kjudge_triton/main.py \
         usr/share/kjudge/python/kjudge_kernelbench_runner.py \
         usr/share/doc/kjudge/README.md usr/share/doc/kjudge/docs/formats.md \
         usr/share/man/man1/kjudge.1 usr/share/bash-completion/completions/kjudge \
         usr/share/zsh/vendor-completions/_kjudge; do
  [ -e "$root/$f" ] || fail "the package lacks $f"
done
if find "$root" -path '*/tests/*' -o -name '__pycache__' | grep -q .; then
  fail "the package holds tests or bytecode"
fi
# No RPATH into the build: the installed binary uses the system's libraries.
if readelf -d "$root/usr/bin/kjudge" | grep -qE 'R(UN)?PATH'; then
  readelf -d "$root/usr/bin/kjudge" | grep -E 'R(UN)?PATH'
  fail "the installed binary keeps an RPATH"
fi
man -l "$root/usr/share/man/man1/kjudge.1" > /dev/null 2> "$work/man.err" || fail "man -l"
[ ! -s "$work/man.err" ] || { cat "$work/man.err"; fail "man page warnings"; }

# Run it from the package's root with the source tree and the build hidden: it finds its
# libraries and runner beside itself (../lib/kjudge, ../share/kjudge), not in the build.
hide=(--tmpfs "$(realpath "$src")")
case "$(realpath "$build")" in "$(realpath "$src")"/*) ;; *) hide+=(--tmpfs "$(realpath "$build")") ;; esac
run() {
  bwrap --ro-bind / / "${hide[@]}" --dev /dev --proc /proc --unshare-pid --die-with-parent "$@"
}
k=$root/usr/bin/kjudge
run "$k" --version | tee "$work/version"
grep -q '^kjudge [0-9.]* (commit ' "$work/version" || fail "--version"
run "$k" --help > "$work/help" || fail "--help"
grep -q 'evaluate' "$work/help" || fail "--help lists no commands"
run "$k" doctor --no-probe > "$work/doctor" 2>&1 || true
grep -q "main guard .*$root/usr/lib/kjudge/libkjudge_main_guard.so" "$work/doctor" ||
  { cat "$work/doctor"; fail "the installed kjudge does not find its main guard in lib/kjudge"; }
echo "ok: the package installs and runs"
