#!/bin/sh
# Installs pi-relayd from this folder (a release tarball, or the staging folder `make install`
# builds) into a PREFIX, or removes it from one. Needs no Swift: the Swift runtime comes along in
# lib/pi-relayd/swift/; the executables need glibc, libcurl, libyaml and libstdc++ from the
# system, checked first.
#
#   ./install.sh                       into ~/.local (bin/pi-relayd, lib/pi-relayd/plugins/, share/...)
#   ./install.sh --prefix /usr/local   anywhere else (run it as the user who will run pi-relayd:
#                                      plugins owned by another user are refused)
#   ./install.sh --uninstall [--prefix DIR]
set -eu

usage() { sed -n '2,10s/^# \{0,1\}//p' "$0"; }
# `set -e` does not stop at a failed command inside an `a && b` list: each step that must not be
# followed by the next when it fails says so.
die() { echo "install.sh: $*" >&2; exit 1; }

prefix="${PREFIX:-$HOME/.local}"
action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix="$2"; shift ;;
        --prefix=*) prefix="${1#--prefix=}" ;;
        --uninstall) action=uninstall ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$prefix" in
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"

# Every file this installs, relative to the PREFIX (and to this folder): uninstall removes exactly these,
# and the pi extension's folder (its modules change between releases, so it is replaced whole).
PLUGINS="discord telegram slack formatter attachments web federation"
EXECUTABLES="bin/pi-relayd"
for p in $PLUGINS; do EXECUTABLES="$EXECUTABLES lib/pi-relayd/plugins/$p"; done
DATA="share/man/man1/pi-relayd.1
share/bash-completion/completions/pi-relayd share/zsh/site-functions/_pi-relayd
share/fish/vendor_completions.d/pi-relayd.fish"
EXTENSION="share/pi-relayd/pi-relayd"
# What a pi-relayd before the extension became a folder installed in its place.
OLD_EXTENSION="share/pi-relayd/pi-relayd.ts"
# The Swift runtime the executables share, found through their RUNPATH ($ORIGIN-relative); replaced
# whole, as its files change with the toolchain that built the release.
RUNTIME="lib/pi-relayd/swift"
FOLDERS="lib/pi-relayd/plugins lib/pi-relayd share/pi-relayd"

if [ "$action" = uninstall ]; then
    # A systemd user service that runs this pi-relayd would try the removed file every 5 s for
    # good, and the command that removes it goes with it: it is removed first.
    unit="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user/pi-relayd.service"
    # The unit names the executable by its absolute path, as `service install` found it (no
    # trailing slash, no `..`, links resolved): compared as plain text, quoted or not.
    real="$(cd "$prefix" 2>/dev/null && pwd -P)/bin/pi-relayd"
    if [ -x "$real" ] && [ -f "$unit" ] &&
        { grep -qF "ExecStart=$real start " "$unit" || grep -qF "ExecStart=\"$real\" start " "$unit"; }; then
        "$real" service uninstall || echo "install.sh: pi-relayd service uninstall failed; remove $unit by hand" >&2
    elif [ -f "$unit" ]; then
        echo "install.sh: $unit runs another pi-relayd; it is left as it is"
    fi
    for f in $EXECUTABLES $DATA $OLD_EXTENSION; do
        if [ -e "$prefix/$f" ] || [ -L "$prefix/$f" ]; then rm -f "$prefix/$f" && echo "removed $prefix/$f"; fi
    done
    if [ -e "$prefix/$EXTENSION" ]; then rm -rf "$prefix/$EXTENSION" && echo "removed $prefix/$EXTENSION"; fi
    if [ -e "$prefix/$RUNTIME" ]; then rm -rf "$prefix/$RUNTIME" && echo "removed $prefix/$RUNTIME"; fi
    # What an interrupted install may have left.
    rm -rf "$prefix/$RUNTIME.new" "$prefix/$RUNTIME.old" "$prefix/$EXTENSION.new" "$prefix/$EXTENSION.old"
    for d in $FOLDERS; do rmdir "$prefix/$d" 2>/dev/null || true; done
    echo "pi-relayd removed from $prefix (your ~/.pi-relayd and the pi extension are left as they are: pi-relayd extension uninstall, before, removes the extension)"
    exit 0
fi

for f in $EXECUTABLES $DATA $EXTENSION/index.ts $EXTENSION/version.ts $RUNTIME/libswiftCore.so; do
    [ -f "$here/$f" ] || { echo "install.sh: $here/$f is missing: is this a complete pi-relayd folder?" >&2; exit 1; }
done

# The libraries the executables need. ldd names each missing one; the Debian/Ubuntu package that
# has it is named too. A glibc that is too old shows as a missing GLIBC_x.y version.
package_for() {
    case "$1" in
        libcurl.so.4) echo "libcurl4 (libcurl4t64 on Debian 13 and Ubuntu 24.04 or newer)" ;;
        libyaml-0.so.2) echo "libyaml-0-2" ;;
        libstdc++.so.6) echo "libstdc++6" ;;
        libgcc_s.so.1) echo "libgcc-s1" ;;
        libz.so.1) echo "zlib1g" ;;
        *) echo "the package that has $1" ;;
    esac
}
if command -v ldd >/dev/null 2>&1; then
    missing=""
    for f in $EXECUTABLES; do
        report="$(ldd "$here/$f" 2>&1 || true)"
        for lib in $(printf '%s\n' "$report" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p'); do
            case " $missing " in *" $lib "*) ;; *) missing="$missing $lib" ;; esac
        done
        glibc="$(printf '%s\n' "$report" | sed -n "s/.*version \`\(GLIBC_[0-9.]*\)' not found.*/\1/p" | sort -uV | tail -n 1)"
        if [ -n "$glibc" ]; then
            echo "install.sh: $f needs glibc ${glibc#GLIBC_} or newer (Debian 12, Ubuntu 22.04); this system has $(ldd --version 2>&1 | head -n 1)" >&2
            exit 1
        fi
    done
    if [ -n "$missing" ]; then
        echo "install.sh: these libraries are missing:" >&2
        for lib in $missing; do echo "    $lib: install $(package_for "$lib")" >&2; done
        echo "on Debian or Ubuntu: sudo apt-get install libcurl4 libyaml-0-2 (the names above where they differ)" >&2
        exit 1
    fi
else
    echo "install.sh: no ldd here, so the libraries were not checked (pi-relayd needs glibc 2.35+, libcurl, libyaml, libstdc++)"
fi

for d in bin lib/pi-relayd/plugins share/pi-relayd share/man/man1 share/bash-completion/completions share/zsh/site-functions share/fish/vendor_completions.d; do
    mkdir -p "$prefix/$d"
done
# The runtime first, copied whole beside the old one, then swapped in (a running pi-relayd keeps
# the files it has open), so the executables copied next find theirs. A copy that fails (a full
# disk) replaces nothing.
rm -rf "$prefix/$RUNTIME.new" "$prefix/$RUNTIME.old"
cp -R "$here/$RUNTIME" "$prefix/$RUNTIME.new" || { rm -rf "$prefix/$RUNTIME.new"; die "cannot copy the Swift runtime into $prefix/$RUNTIME.new (disk full?); nothing was replaced"; }
chmod -R u=rwX,go=rX "$prefix/$RUNTIME.new" || die "cannot set the modes of $prefix/$RUNTIME.new"
if [ -e "$prefix/$RUNTIME" ]; then mv "$prefix/$RUNTIME" "$prefix/$RUNTIME.old" || die "cannot move $prefix/$RUNTIME aside"; fi
if ! mv "$prefix/$RUNTIME.new" "$prefix/$RUNTIME"; then
    if [ -e "$prefix/$RUNTIME.old" ]; then mv "$prefix/$RUNTIME.old" "$prefix/$RUNTIME"; fi
    die "cannot move the new Swift runtime into $prefix/$RUNTIME; the old one is back"
fi
# Into a temporary name, then renamed over the old file: a running pi-relayd (or plugin) keeps
# its executable, and nothing is ever half written.
for f in $EXECUTABLES; do
    cp "$here/$f" "$prefix/$f.new" || { rm -f "$prefix/$f.new"; die "cannot copy $f (disk full?): run install.sh again once there is room"; }
    chmod 755 "$prefix/$f.new" && mv -f "$prefix/$f.new" "$prefix/$f" || die "cannot install $prefix/$f"
done
rm -rf "$prefix/$RUNTIME.old"
for f in $DATA; do
    cp "$here/$f" "$prefix/$f.new" || { rm -f "$prefix/$f.new"; die "cannot copy $f (disk full?)"; }
    chmod 644 "$prefix/$f.new" && mv -f "$prefix/$f.new" "$prefix/$f" || die "cannot install $prefix/$f"
done
# The extension's folder: copied beside the old one, then swapped in, so `pi-relayd extension
# install` never copies half of it.
rm -rf "$prefix/$EXTENSION.new" "$prefix/$EXTENSION.old"
cp -R "$here/$EXTENSION" "$prefix/$EXTENSION.new" || { rm -rf "$prefix/$EXTENSION.new"; die "cannot copy the pi extension (disk full?)"; }
chmod -R u=rwX,go=rX "$prefix/$EXTENSION.new" || die "cannot set the modes of $prefix/$EXTENSION.new"
if [ -e "$prefix/$EXTENSION" ]; then mv "$prefix/$EXTENSION" "$prefix/$EXTENSION.old" || die "cannot move $prefix/$EXTENSION aside"; fi
mv "$prefix/$EXTENSION.new" "$prefix/$EXTENSION" || die "cannot move the pi extension into $prefix/$EXTENSION"
rm -rf "$prefix/$EXTENSION.old"
# Whatever went before, the installed executables must load: the runtime they find is the one
# installed with them.
for f in $EXECUTABLES; do
    if command -v ldd >/dev/null 2>&1 && env -u LD_LIBRARY_PATH ldd "$prefix/$f" 2>&1 | grep -q 'not found'; then
        die "$prefix/$f misses libraries after the install: $(env -u LD_LIBRARY_PATH ldd "$prefix/$f" 2>&1 | grep 'not found' | tr -s ' \t' ' ')"
    fi
done
if [ -e "$prefix/$OLD_EXTENSION" ]; then
    rm -f "$prefix/$OLD_EXTENSION" && echo "removed $prefix/$OLD_EXTENSION (the pi extension is the folder $prefix/$EXTENSION now)"
fi
echo "installed pi-relayd $("$prefix/bin/pi-relayd" version 2>/dev/null | sed 's/^pi-relayd //') into $prefix"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH; add it (for ~/.local/bin, log in again or add it in ~/.profile)" ;;
esac
echo "next: pi-relayd start; pi-relayd extension install (again after an upgrade); pi-relayd service install (see README)"
echo "after an upgrade: pi-relayd restart, so the daemon and its plugins run the new release together"
