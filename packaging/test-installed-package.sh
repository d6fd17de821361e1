#!/usr/bin/env bash
# test-installed-package.sh BUILD_DIR SAMPLE.json: packs BUILD_DIR's Debian package (cpack, into
# a scratch directory), unpacks it into a scratch root (dpkg-deb -x: no root, no chroot) and
# checks it as an installed GraphLens:
#   - Depends names the shared libraries the binaries link (dpkg-shlibdeps ran);
#   - the desktop entry validates, the MIME type knows a capture by its content, the icon
#     exists in SVG and PNG sizes, every subcommand has a man page that renders cleanly;
#   - the installed graphlens-cli states its version and git revision, analyses the sample;
#   - the installed `graphlens-cli record` finds the installed capture layer through the
#     installed manifest (share/vulkan/explicit_layer.d beside its bin/) with no environment,
#     and the loader loads the installed library through the manifest's relative path;
#   - the installed GUI opens the sample offscreen and writes its screenshots.
# The Vulkan steps run on whatever GRAPHLENS_DEVICE picks (scripts/test.sh: lavapipe).
set -euo pipefail
build="$(realpath "$1")"
sample="$(realpath "$2")"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
root="$scratch/root"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

step "pack"
cpack --config "$build/CPackConfig.cmake" -B "$scratch/package" > "$scratch/cpack.log" 2>&1 \
  || { cat "$scratch/cpack.log"; fail "cpack failed"; }
debs=("$scratch"/package/graphlens_*.deb)
[ -f "${debs[0]}" ] || fail "cpack wrote no graphlens_*.deb"
deb="${debs[0]}"
step "unpack $(basename "$deb")"
dpkg-deb -x "$deb" "$root"
usr="$root/usr"
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libvulkan1 libqt6widgets6 libspirv-cross-c-shared libc6; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
for f in bin/graphlens bin/graphlens-cli share/vulkan/explicit_layer.d/VkLayer_graphlens_capture.json \
         share/graphlens/capture-format.schema.json share/doc/graphlens/README.md \
         share/doc/graphlens/capture-format.md share/icons/hicolor/scalable/apps/graphlens.svg; do
  [ -e "$usr/$f" ] || fail "the package has no /usr/$f"
done
for size in 16 24 32 48 64 128 256; do
  png="$usr/share/icons/hicolor/${size}x${size}/apps/graphlens.png"
  file "$png" | grep -q "PNG image data, $size x $size" || fail "$png is not a ${size}px PNG"
done

step "desktop entry and MIME type"
desktop-file-validate "$usr/share/applications/graphlens.desktop"
grep -qx "MimeType=application/x-graphlens-capture+json;" "$usr/share/applications/graphlens.desktop" \
  || fail "the desktop entry does not open captures"
mime="$scratch/mime"
mkdir -p "$mime/mime/packages"
cp /usr/share/mime/packages/freedesktop.org.xml "$usr/share/mime/packages/graphlens.xml" "$mime/mime/packages/"
update-mime-database "$mime/mime"
content_type() { XDG_DATA_HOME=/nonexistent XDG_DATA_DIRS="$mime" gio info -a standard::content-type "$1" | sed -n 's/.*content-type: //p'; }
cp "$sample" "$scratch/capture.json"
printf '{"format": "something-else"}\n' > "$scratch/other.json"
[ "$(content_type "$scratch/capture.json")" = application/x-graphlens-capture+json ] \
  || fail "a capture is $(content_type "$scratch/capture.json")"
[ "$(content_type "$scratch/other.json")" = application/json ] \
  || fail "a JSON file that is no capture is $(content_type "$scratch/other.json")"

step "man pages"
subcommands="$("$usr/bin/graphlens-cli" --help | sed -n '/^Subcommands:/,$s/^  \([a-z0-9-]*\).*/\1/p')"
[ -n "$subcommands" ] || fail "graphlens-cli --help lists no subcommands"
for page in graphlens graphlens-cli $(printf 'graphlens-cli-%s ' $subcommands); do
  file="$usr/share/man/man1/$page.1.gz"
  [ -f "$file" ] || fail "no man page $page(1)"
  warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$file" 2>&1 > "$scratch/page.txt")"
  [ -z "$warnings" ] || fail "$page(1) renders with warnings: $warnings"
  grep -q -- "--help" "$scratch/page.txt" || fail "$page(1) lists no options"
done
zcat "$usr/share/man/man1/graphlens-cli-passes.1.gz" | grep -q -- "reorder" \
  || fail "graphlens-cli-passes(1) does not describe --reorder"

step "installed CLI"
version="$("$usr/bin/graphlens-cli" --version)"
[[ "$version" =~ ^graphlens-cli\ [0-9]+\.[0-9]+\.[0-9]+\ \(git\ revision\ [0-9a-g-]+(-dirty)?\)$ ]] \
  || fail "graphlens-cli --version says: $version"
"$usr/bin/graphlens-cli" passes "$sample" > "$scratch/passes.txt"
grep -q "captured" "$scratch/passes.txt" || fail "passes printed no captured stage"

step "installed record finds the installed layer"
# No GRAPHLENS_LAYER_PATH and no VK_LAYER_PATH: record finds the manifest beside its bin/ and
# hands that directory to the loader itself. VK_LOADER_DEBUG=layer makes the loader say which
# library it loaded.
(cd "$scratch" && env -u GRAPHLENS_LAYER_PATH -u VK_LAYER_PATH -u VK_ADD_LAYER_PATH \
   VK_LOADER_DEBUG=layer "$usr/bin/graphlens-cli" record -o "$scratch/demo.json" \
   -- "$usr/bin/graphlens-cli" demo > "$scratch/record.txt" 2>&1) \
  || { cat "$scratch/record.txt"; fail "installed record failed"; }
grep -q "dispatches: [1-9]" "$scratch/record.txt" || { cat "$scratch/record.txt"; fail "record captured no dispatch"; }
grep "Library:" "$scratch/record.txt" | grep -F "$usr/" | grep -q "libVkLayer_graphlens_capture.so" \
  || { cat "$scratch/record.txt"; fail "the loader did not load the installed layer library"; }

step "installed GUI, offscreen"
[[ "$(QT_QPA_PLATFORM=offscreen "$usr/bin/graphlens" --version)" =~ ^graphlens\ [0-9.]+\ \(git\ revision ]] \
  || fail "graphlens --version states no revision"
QT_QPA_PLATFORM=offscreen timeout 300 "$usr/bin/graphlens" --screenshots "$scratch/shots" "$sample"
[ -s "$scratch/shots/main-window.png" ] || fail "the installed GUI wrote no screenshot"
echo "installed package OK"
