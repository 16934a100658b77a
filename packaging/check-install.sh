#!/bin/sh
# Checks an installed or unpacked pi-relayd the way a machine without Swift would run it
# (`make dist-check`):
#   check-install.sh --tarball FILE   unpacks it into a fresh folder, checks the folder as it is,
#                                     then installs it with its install.sh into a fresh PREFIX
#   check-install.sh --prefix DIR     checks what `make install PREFIX=DIR` put there
# PATH loses every folder with a Swift toolchain and LD_LIBRARY_PATH is unset, so a binary that
# still needs the toolchain fails here; ldd must find every Swift library in the folder's own
# lib/pi-relayd/swift/ and nowhere else. The daemon is started from the install with a fresh home
# and must find the seven bundled plugins there.
set -eu

fail() { echo "check-install: $*" >&2; exit 1; }

work="$(mktemp -d /tmp/prd-check-XXXXXX)"
daemon_home=""
cleanup() {
    if [ -n "$daemon_home" ] && [ -S "$daemon_home/relayd.sock" ]; then
        PI_RELAYD_HOME="$daemon_home" "$work/path/pi-relayd" stop >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# A PATH without the toolchain: every entry that has a swift or swiftc in it goes.
clean_path=""
old_ifs="$IFS"; IFS=:
for dir in $PATH; do
    [ -n "$dir" ] || continue
    if [ -x "$dir/swift" ] || [ -x "$dir/swiftc" ] || [ -x "$dir/swift-frontend" ]; then continue; fi
    clean_path="${clean_path:+$clean_path:}$dir"
done
IFS="$old_ifs"
run_clean() {
    env -u LD_LIBRARY_PATH -u PI_RELAYD_BUNDLED_PLUGINS -u PI_RELAYD_EXTENSION -u XDG_CONFIG_HOME PATH="$clean_path" HOME="$work/home" "$@"
}
run_clean sh -c 'command -v swift' >/dev/null 2>&1 && fail "swift is still on the cleaned PATH ($clean_path)"

# check_tree ROOT: a folder laid out as PREFIX (bin/, lib/pi-relayd/plugins/, share/).
check_tree() {
    root="$1"
    for p in discord telegram slack formatter attachments web federation; do
        [ -x "$root/lib/pi-relayd/plugins/$p" ] || fail "the bundled plugin $p is missing from $root/lib/pi-relayd/plugins"
    done
    runtime="$(cd "$root/lib/pi-relayd/swift" && pwd -P)" || fail "$root/lib/pi-relayd/swift is missing"
    for exe in "$root/bin/pi-relayd" "$root"/lib/pi-relayd/plugins/*; do
        [ -x "$exe" ] || fail "$exe is missing or not executable"
        libraries="$(ldd "$exe")" || fail "ldd $exe failed"
        if printf '%s\n' "$libraries" | grep -q 'not found'; then fail "$exe misses libraries:
$libraries"; fi
        # The toolchain's libraries (the runtime, Foundation, Dispatch), each from the folder's own
        # copy: ldd prints the path as the RUNPATH made it ($ORIGIN/../swift/...), so each is resolved.
        core=""
        for lib in $(printf '%s\n' "$libraries" | awk '$1 ~ /^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)/ {print $3}'); do
            real="$(realpath "$lib")" || fail "$exe: cannot resolve $lib"
            case "$real" in
                "$runtime"/*) ;;
                *) fail "$exe loads a Swift library from outside $runtime: $real" ;;
            esac
            [ "$real" != "$runtime/libswiftCore.so" ] || core=yes
        done
        [ -n "$core" ] || fail "$exe does not load $runtime/libswiftCore.so:
$libraries"
    done
    for f in share/pi-relayd/pi-relayd/index.ts share/pi-relayd/pi-relayd/version.ts share/man/man1/pi-relayd.1 share/bash-completion/completions/pi-relayd \
        share/zsh/site-functions/_pi-relayd share/fish/vendor_completions.d/pi-relayd.fish; do
        [ -s "$root/$f" ] || fail "$root/$f is missing or empty"
    done
    grep -q '^\.Dt PI-RELAYD 1' "$root/share/man/man1/pi-relayd.1" || fail "the man page has no .Dt PI-RELAYD 1 header"
    grep -q 'service' "$root/share/man/man1/pi-relayd.1" || fail "the man page does not list the service command"
    bash -n "$root/share/bash-completion/completions/pi-relayd" || fail "the bash completion script does not parse"
    # What bash offers after `pi-relayd service `: the service command's own subcommands.
    offered="$(PATH="$root/bin:$clean_path" bash -c '. "$1"; COMP_WORDS=(pi-relayd service ""); COMP_CWORD=2
        COMP_LINE="pi-relayd service "; COMP_POINT=${#COMP_LINE}; _pi-relayd; printf "%s\n" "${COMPREPLY[@]}"' \
        bash "$root/share/bash-completion/completions/pi-relayd" | grep -v '^-' | sort | tr '\n' ' ')"
    [ "$offered" = "install status uninstall " ] || fail "bash completes 'pi-relayd service ' with: $offered"

    # Run through a link in another folder on PATH, as ~/bin/pi-relayd -> PREFIX/bin/pi-relayd
    # would be: the bundled plugins are found from the executable's real path.
    rm -rf "$work/path" && mkdir -p "$work/path" && ln -s "$root/bin/pi-relayd" "$work/path/pi-relayd"
    version="$(run_clean "$work/path/pi-relayd" version)" || fail "pi-relayd version failed"
    echo "check-install: $version, from $root"
    [ "$(run_clean "$work/path/pi-relayd" extension path)" = "$root/share/pi-relayd/pi-relayd/index.ts" ] \
        || fail "pi-relayd extension path does not name $root/share/pi-relayd/pi-relayd/index.ts"
    # The extension's folder installs into pi's agent folder whole, over an older pi-relayd's
    # single-file copy, and then matches this pi-relayd.
    agent="$work/agent"
    rm -rf "$agent" && mkdir -p "$agent/extensions"
    printf 'export const EXTENSION_VERSION = "0.0.9";\n' > "$agent/extensions/pi-relayd.ts"
    PI_CODING_AGENT_DIR="$agent" run_clean "$work/path/pi-relayd" extension install >/dev/null || fail "pi-relayd extension install failed"
    [ ! -e "$agent/extensions/pi-relayd.ts" ] || fail "pi-relayd extension install left the old single-file copy"
    diff -r "$root/share/pi-relayd/pi-relayd" "$agent/extensions/pi-relayd" >/dev/null \
        || fail "the installed extension differs from $root/share/pi-relayd/pi-relayd"
    PI_CODING_AGENT_DIR="$agent" run_clean "$work/path/pi-relayd" extension status >/dev/null \
        || fail "pi-relayd extension status does not match after install"

    daemon_home="$work/relay-home"
    rm -rf "$daemon_home"
    PI_RELAYD_HOME="$daemon_home" run_clean "$work/path/pi-relayd" start >/dev/null || fail "pi-relayd start failed"
    tries=0
    while :; do
        listing="$(PI_RELAYD_HOME="$daemon_home" run_clean "$work/path/pi-relayd" plugins --json 2>/dev/null || true)"
        if printf '%s' "$listing" | python3 -c '
import json, sys
plugins = {p["name"]: p for p in json.load(sys.stdin)}
want = {"discord", "telegram", "slack", "formatter", "attachments", "web", "federation"}
found_here = all(plugins[n]["path"] == sys.argv[1] + "/lib/pi-relayd/plugins/" + n for n in want) if want <= set(plugins) else False
sys.exit(0 if found_here and all(plugins[n]["state"] == "running" for n in ("formatter", "attachments")) else 1)
' "$root" 2>/dev/null; then break; fi
        tries=$((tries + 1))
        [ "$tries" -lt 150 ] || fail "the daemon did not list the seven bundled plugins from $root/lib/pi-relayd/plugins with formatter and attachments running:
$listing
$(cat "$daemon_home/logs/pi-relayd.log" 2>/dev/null | tail -n 20)"
        sleep 0.2
    done
    PI_RELAYD_HOME="$daemon_home" run_clean "$work/path/pi-relayd" stop >/dev/null || fail "pi-relayd stop failed"
    daemon_home=""
    echo "check-install: the daemon ran from $root with its bundled plugins and no Swift on PATH"
}

case "${1:-}" in
    --tarball)
        [ -f "${2:-}" ] || fail "--tarball needs a file"
        mkdir -p "$work/unpacked"
        tar -xJf "$2" -C "$work/unpacked"
        folder="$(find "$work/unpacked" -mindepth 1 -maxdepth 1 -type d)"
        [ -x "$folder/install.sh" ] || fail "no install.sh at the top of $2"
        check_tree "$folder"
        # Over an older pi-relayd, whose extension was one file: install.sh replaces it.
        mkdir -p "$work/prefix/share/pi-relayd"
        printf 'export const EXTENSION_VERSION = "0.0.9";\n' > "$work/prefix/share/pi-relayd/pi-relayd.ts"
        run_clean sh "$folder/install.sh" --prefix "$work/prefix" || fail "install.sh failed"
        [ ! -e "$work/prefix/share/pi-relayd/pi-relayd.ts" ] || fail "install.sh left the old single-file extension"
        check_tree "$work/prefix"
        # A systemd user service that runs this pi-relayd goes with it (no systemctl here: the
        # unit file is removed by hand, as `service uninstall` does where no manager answers).
        mkdir -p "$work/home/.config/systemd/user"
        printf '[Service]\nExecStart=%s start --foreground\n' "$(cd "$work/prefix" && pwd -P)/bin/pi-relayd" > "$work/home/.config/systemd/user/pi-relayd.service"
        run_clean sh "$folder/install.sh" --uninstall --prefix "$work/prefix/" >/dev/null || fail "install.sh --uninstall failed"
        left="$(find "$work/prefix" -type f)"
        [ -z "$left" ] || fail "install.sh --uninstall left: $left"
        [ ! -e "$work/home/.config/systemd/user/pi-relayd.service" ] || fail "install.sh --uninstall left the service that runs it"
        ;;
    --prefix)
        [ -d "${2:-}" ] || fail "--prefix needs a folder"
        check_tree "$2"
        ;;
    *) fail "usage: check-install.sh --tarball FILE | --prefix DIR" ;;
esac
