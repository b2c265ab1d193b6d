#!/usr/bin/env bash
# The wheel carries everything: build futocp's wheel, install it in a fresh venv
# outside the checkout and use it from another directory (a Sudoku line, a
# Futoshiki file, the families, the compiled cores); then install it with
# `pip install --target DIR` and check that `futocp families` lists every family.
#
# Usage: scripts/check_wheel.sh   (or `make wheel-check`; PYTHON picks the interpreter)
# Exit 0 when every check passes; the first failure stops it with its reason.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/futocp-wheel.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
SUDOKU="4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
FUTOSHIKI="$ROOT/instances/futoshiki/5x5-easy-01.json"
# the families the wheel must list: the names of the package's family files
FAMILIES=$(cd "$ROOT/futocp/models" && ls -- *.yaml | sed 's/\.yaml$//' | sort | tr '\n' ' ')

fail() { echo "check_wheel: FAILED: $*" >&2; exit 1; }

echo "== build the wheel (from a copy of the checkout's files, in $TMP/dist)"
# a copy: the build leaves the checkout as it was, and no stale build/ of it
# slips into the wheel (the files git tracks or would track, edits included)
mkdir "$TMP/src"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 tar -cf - --ignore-failed-read) | tar -xf - -C "$TMP/src"
"$PY" -m pip wheel -q --no-deps "$TMP/src" -w "$TMP/dist"
WHEEL=$(ls "$TMP"/dist/futocp-*.whl)
echo "$(basename "$WHEEL")"
# what the wheel holds: every family file, the README of the families, the licence
"$PY" - "$WHEEL" "$FAMILIES" "$TMP/n_cores" <<'EOF' || fail "the wheel lacks files (above)"
import sys
import zipfile

names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = [f"futocp/models/{f}.yaml" for f in sys.argv[2].split()] + ["futocp/models/README.md"]
missing = [n for n in need if n not in names]
if not any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")
           for n in names):
    missing.append("<dist-info>/LICENSE")
missing += [f"{n} (a data file outside the package: not every install has it)"
            for n in sorted(names) if ".data/" in n]
cores = sorted(n for n in names if n.endswith((".so", ".pyd")))
print("compiled cores in the wheel:", ", ".join(cores) or "none")
with open(sys.argv[3], "w") as out:  # the number of compiled cores, for the check below
    out.write(str(len(cores)))
for n in missing:
    print("missing:", n)
sys.exit(1 if missing else 0)
EOF

echo "== a fresh venv outside the checkout ($TMP/venv)"
"$PY" -m venv "$TMP/venv"
VPY="$TMP/venv/bin/python"
"$VPY" -m pip install -q "$WHEEL"
mkdir "$TMP/elsewhere"
cp "$FUTOSHIKI" "$TMP/elsewhere/puzzle.json"
cd "$TMP/elsewhere"  # not the checkout: only the installed futocp can be imported

where=$("$VPY" -c "import futocp; print(futocp.__file__)")
case "$where" in
    "$TMP/venv/"*) echo "futocp imported from the venv" ;;
    *) fail "futocp imported from $where, not from the venv" ;;
esac

# a JSON answer must be sat and verified
check_answer() {
    "$VPY" -c '
import json, sys
doc = json.load(sys.stdin)
stats = doc["stats"]
by, core = stats.get("answered_by", doc["backend"]), stats.get("core", "-")
print(sys.argv[1] + ":", doc["status"], "verified=%s" % doc["verified"], "backend", by, "core", core)
sys.exit(0 if doc["status"] == "sat" and doc["verified"] is True else 1)' "$1"
}
echo "== futocp solve --puzzle <a Sudoku line>"
"$TMP/venv/bin/futocp" solve --puzzle "$SUDOKU" --json | check_answer "sudoku line" \
    || fail "the Sudoku line"
echo "== futocp solve puzzle.json (a Futoshiki file)"
"$TMP/venv/bin/futocp" solve puzzle.json --json | check_answer "futoshiki file" \
    || fail "the Futoshiki file"

# every family of futocp/models/, by name (`futocp families --json` lists them)
families_listed() {  # $1: the python to run, the rest: its environment
    local py=$1
    shift
    env "$@" "$py" -m futocp families --json |
        "$py" -c 'import json, sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))'
}
echo "== futocp families"
got=$(families_listed "$VPY")
[ "$got " = "$FAMILIES" ] || fail "futocp families lists [$got], expected [$FAMILIES]"
echo "$(wc -w <<<"$got") families: $got"

echo "== futocp backends (the compiled cores)"
"$TMP/venv/bin/futocp" backends | grep "compiled core" | tee "$TMP/cores.txt"
built=$(grep -c ": compiled$" "$TMP/cores.txt" || true)
[ "$built" = "$(cat "$TMP/n_cores")" ] \
    || fail "the wheel has $(cat "$TMP/n_cores") compiled cores, futocp backends says $built load"

echo "== pip install --target ($TMP/target)"
"$VPY" -m pip uninstall -q -y futocp  # the venv keeps the dependencies (pyyaml, argcomplete)
"$VPY" -m pip install -q --no-deps --target "$TMP/target" "$WHEEL"
where=$(PYTHONPATH="$TMP/target" "$VPY" -c "import futocp; print(futocp.__file__)")
case "$where" in
    "$TMP/target/"*) ;;
    *) fail "futocp imported from $where, not from the --target folder" ;;
esac
got=$(families_listed "$VPY" PYTHONPATH="$TMP/target")
[ -n "$got" ] || fail "futocp families lists nothing from a --target install"
[ "$got " = "$FAMILIES" ] || fail "--target: futocp families lists [$got], expected [$FAMILIES]"
echo "$(wc -w <<<"$got") families from the --target install"

echo "check_wheel: OK"
