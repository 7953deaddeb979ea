#!/usr/bin/env bash
# omkl: set the environment up, then run the Python driver (python -m omkl_core.repro).
#
#   ./reproduce.sh                 set-up (first run) + execute every notebook in notebooks/
#   ./reproduce.sh test [ARGS]     set-up + ruff + pytest ARGS as given (test tests/test_cli.py: that file)
#   ./reproduce.sh --quick         notebooks with quick=True (small horizons, for CI), results in results/quick/
#   ./reproduce.sh --only NAME     one notebook: a name, a path or a unique prefix (e.g. p000_vaw2)
#   ./reproduce.sh --local N       learner runs on a Dask LocalCluster of N workers (--scheduler ADDRESS: a running one)
#   ./reproduce.sh setup           set-up only
#   ./reproduce.sh mutants [ARGS]  domain mutation testing of the theory tests (tools/mutants.py)
#   ./reproduce.sh verify [--quick] check the recorded results
#   ./reproduce.sh publish         copy the last full run into reproduction/ (the committed run)
#   ./reproduce.sh docs            the documentation site (warnings as errors) -> docs/_build/html
#   ./reproduce.sh --no-venv ...   use PYTHON's environment as it is (e.g. conda; see README)
#   ./reproduce.sh --help          this text and the driver's options
#
# Ctrl-C / SIGTERM stops the run within seconds (exit 130/143); a notebook's outputs replace the
# previous ones only when it succeeds. Environment: PYTHON (interpreter, >= 3.11), OMKL_RESULTS,
# OMKL_NOTEBOOKS, OMKL_SKIP_SETUP=1 (use .venv as it is). Set-up: .venv from requirements.lock +
# omkl (editable) + the Jupyter kernel "omkl", redone when requirements.lock or pyproject.toml change.
set -euo pipefail
SELF="$(readlink -f "${BASH_SOURCE[0]}")" && ROOT="$(dirname "$SELF")"   # also through a symlink
# started with SIGINT ignored (`./reproduce.sh &` in a script): bash cannot trap it; re-exec once with it reset
if [[ -z "${_OMKL_SIGNALS:-}" ]] && env --default-signal=INT true 2>/dev/null; then
    export _OMKL_SIGNALS=1; exec env --default-signal=INT,TERM "$SELF" "$@"; fi
unset _OMKL_SIGNALS
cd "$ROOT"
BASE="${PYTHON:-python3}" VENV="$ROOT/.venv" NO_VENV="" CHILD="" ARGS=()
for a in "$@"; do if [[ "$a" == --no-venv ]]; then NO_VENV=1; else ARGS+=("$a"); fi; done
if [[ "${ARGS[0]:-}" == -h || "${ARGS[0]:-}" == --help ]]; then   # this text, then the driver's options
    sed -n '2,20p' "$SELF" | sed 's/^# \{0,1\}//'; echo
    HPY="$VENV/bin/python"; [[ -n "$NO_VENV" ]] && HPY="$BASE"
    if "$HPY" -c "import omkl_core.repro" 2>/dev/null; then echo "The driver (python -m omkl_core.repro --help):"; echo
        "$HPY" -m omkl_core.repro --help
    else echo "The driver's options: python -m omkl_core.repro --help (after ./reproduce.sh setup)"; fi
    exit 0; fi
die() { echo "error: $*" >&2; exit 1; }
# set-up children run in their own session; a signal stops that session and ends the set-up
stop() { trap '' INT TERM; [[ -n "$CHILD" ]] && kill -TERM -- "-$CHILD" 2>/dev/null
         echo "" >&2; echo "error: set-up interrupted by SIG$1; run ./reproduce.sh setup again" >&2; exit "$2"; }
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
step() { setsid "$@" >> "$LOG" 2>&1 & CHILD=$!; local rc=0; wait "$CHILD" || rc=$?; CHILD=""
         ((rc == 0)) || { tail -n 30 "$LOG" >&2; die "set-up failed: $* (full log: $LOG)"; }; }
pip() { step "$PY" -m pip install --disable-pip-version-check "$@"; }
kernel() { step "$PY" -m ipykernel install --sys-prefix --name omkl --display-name "Python (omkl)"; }
check_python() {
    command -v "$1" >/dev/null || die "$1 not found (need Python >= 3.11; set PYTHON=/path/to/python3.11)"
    "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$1 is $("$1" -V 2>&1); omkl needs Python >= 3.11 (set PYTHON=...)"
}
if [[ -n "$NO_VENV" ]]; then           # an existing environment (conda, ...): install only what is missing
    check_python "$BASE"; PY="$(command -v "$BASE")"
    PREFIX="$("$PY" -c 'import sys; print(sys.prefix)')"; LOG="$PREFIX/omkl-setup.log"
    [[ -w "$PREFIX" ]] || LOG="$(mktemp -t omkl-setup.XXXXXX.log)"
    if [[ -z "${OMKL_SKIP_SETUP:-}" ]]; then
        if ! (cd / && "$PY" -c 'import omkl_core, papermill, ipykernel' 2>/dev/null); then
            echo "[setup] installing omkl (editable) into $PREFIX; log: $LOG"; pip -e "$ROOT"
        fi
        [[ -f "$PREFIX/share/jupyter/kernels/omkl/kernel.json" ]] \
            || { echo "[setup] registering the Jupyter kernel 'omkl' in $PREFIX"; kernel; }
    fi
else
    PY="$VENV/bin/python" STAMP="$VENV/.omkl-installed" LOG="$VENV/setup.log"
    if [[ -n "${OMKL_SKIP_SETUP:-}" ]]; then
        [[ -x "$PY" ]] || die "OMKL_SKIP_SETUP is set but $PY does not exist"
    else
        want="$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)"
        if ! [[ -x "$PY" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
            if [[ ! -x "$PY" ]]; then
                check_python "$BASE"; echo "[setup] creating .venv with $("$BASE" -V 2>&1)"
                LOG="$(mktemp -t omkl-setup.XXXXXX.log)"; step "$BASE" -m venv "$VENV"; LOG="$VENV/setup.log"
            fi
            echo "[setup] installing requirements.lock and omkl (editable); log: $LOG"; : > "$LOG"
            pip --upgrade pip; pip -r requirements.lock; pip --no-deps -e .; kernel
            echo "$want" > "$STAMP"; echo "[setup] done"
        fi
    fi
fi
trap - INT TERM
# the driver (python -m omkl_core.repro), with Ctrl-C while it imports -- before it handles signals
# itself -- one line and exit 130, not a traceback of the import under way
exec "$PY" -c 'import os, runpy, signal; signal.signal(signal.SIGINT, lambda *_: (os.write(2, b"error: interrupted (SIGINT) while starting; nothing was started\n"), os._exit(130))); runpy.run_module("omkl_core.repro", run_name="__main__", alter_sys=True)' ${ARGS[@]+"${ARGS[@]}"}
