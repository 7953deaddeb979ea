#!/usr/bin/env bash
# omkl: set up the environment and regenerate every table and figure of the papers.
#
#   ./reproduce.sh                 set-up (first run) + execute every notebook in notebooks/
#   ./reproduce.sh test [ARGS]     set-up + the test suite; pytest ARGS passed through as given
#                                  (test tests/test_cli.py runs only that file)
#   ./reproduce.sh --quick         notebooks with quick=True (small horizons, for CI), results in results/quick/
#   ./reproduce.sh --only NAME     one notebook: a name, a path or a unique prefix (e.g. p000_vaw2)
#   ./reproduce.sh setup           set-up only
#   ./reproduce.sh mutants [ARGS]  domain mutation testing of the theory tests (tools/mutants.py)
#   ./reproduce.sh --help
#
# Ctrl-C / SIGTERM stops the whole run within seconds (kernel shut down, exit status 130/143);
# the interrupted notebook's partial outputs are removed and marked in results/notebooks/.
# Progress: one line per notebook with an ETA from the last run, and a line every 60 s while it runs.
# Environment: PYTHON (base interpreter for set-up), OMKL_RESULTS (results folder),
# OMKL_NOTEBOOKS (notebooks folder), OMKL_SKIP_SETUP=1 (use .venv as it is).
#
# Set-up: creates .venv with python3 (>= 3.11; override with PYTHON=/path/to/python3.11),
# installs requirements.lock and the package (editable), registers the Jupyter kernel
# "omkl" inside the venv. Later runs skip the install unless requirements.lock or
# pyproject.toml changed.
set -euo pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"     # the real file, also when called through a symlink
# A script that starts us in the background (`./reproduce.sh &`) leaves SIGINT ignored, and
# bash cannot trap a signal ignored on entry: re-exec once with default signal handling.
if [[ -z "${_OMKL_SIGNALS_RESET:-}" ]] && env --default-signal=INT true 2>/dev/null; then
    export _OMKL_SIGNALS_RESET=1
    exec env --default-signal=INT,TERM "$SELF" "$@"
fi
unset _OMKL_SIGNALS_RESET    # not inherited: a driver started by our children (tests) resets its own
# Children start in the background, where bash ignores SIGINT; give them default handling back
# so that a forwarded SIGINT lets papermill shut its kernel down and pytest print its summary.
DEFAULT_SIGNALS=()
if env --default-signal=INT true 2>/dev/null; then DEFAULT_SIGNALS=(env --default-signal=INT); fi
ROOT="$(dirname "$SELF")"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
STAMP="$VENV/.omkl-installed"
NOTEBOOKS="${OMKL_NOTEBOOKS:-$ROOT/notebooks}"

# --------------------------------------------------------------------- signals and children
# Every long child (pip, papermill, pytest) runs in the background in its own session and the
# driver waits for it; a trapped SIGINT/SIGTERM interrupts the wait at once, and on_signal
# stops the child's whole process group and the Jupyter kernel it started.
CHILD=""
CURRENT_NB=""
INTERRUPTED=""
stop_child() {
    [[ -n "$CHILD" ]] || return 0
    local kids pid
    kids="$(pgrep -P "$CHILD" 2>/dev/null || true)"       # e.g. the kernel (its own session)
    kill -INT -- "-$CHILD" 2>/dev/null || kill -INT "$CHILD" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do                     # up to 2 s for a clean shut-down
        kill -0 "$CHILD" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL -- "-$CHILD" 2>/dev/null || kill -KILL "$CHILD" 2>/dev/null || true
    for pid in $kids; do
        pkill -KILL -s "$pid" 2>/dev/null || true          # the kernel's session (it leads it)
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait "$CHILD" 2>/dev/null || true
    CHILD=""
}
on_signal() {
    local sig="$1" code="$2"
    trap '' INT TERM
    INTERRUPTED="$sig"
    echo "" >&2
    echo "interrupted by SIG$sig: stopping${CURRENT_NB:+ notebook $CURRENT_NB} ..." >&2
    stop_child
    if [[ -n "$CURRENT_NB" ]]; then mark_interrupted "$CURRENT_NB"; fi
    echo "error: interrupted (SIG$sig); no further notebook started" >&2
    exit "$code"
}
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

# run_child CMD...: run CMD in its own session, wait for it, return its status.
run_child() {
    if command -v setsid >/dev/null; then
        ${DEFAULT_SIGNALS[@]+"${DEFAULT_SIGNALS[@]}"} setsid "$@" &
    else
        ${DEFAULT_SIGNALS[@]+"${DEFAULT_SIGNALS[@]}"} "$@" &
    fi
    CHILD=$!
    local rc=0
    wait "$CHILD" || rc=$?
    CHILD=""
    return "$rc"
}

usage() { sed -n '2,22p' "$SELF" | sed 's/^# \{0,1\}//'; }

setup() {
    if [[ -n "${OMKL_SKIP_SETUP:-}" ]]; then
        [[ -x "$PY" ]] || { echo "error: OMKL_SKIP_SETUP is set but $PY does not exist" >&2; exit 1; }
        return 0
    fi
    local want
    want="$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)"
    if [[ -x "$PY" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
        return 0
    fi
    if [[ ! -x "$PY" ]]; then
        local base="${PYTHON:-python3}"
        command -v "$base" >/dev/null || { echo "error: $base not found (need Python >= 3.11)" >&2; exit 1; }
        "$base" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
            || { echo "error: $base is $("$base" -V 2>&1); omkl needs Python >= 3.11 (set PYTHON=...)" >&2; exit 1; }
        echo "[setup] creating .venv with $("$base" -V 2>&1)"
        run_child "$base" -m venv "$VENV"
    fi
    echo "[setup] installing pinned requirements (requirements.lock) and omkl (editable); log: .venv/setup.log"
    local log="$VENV/setup.log"
    : > "$log"
    if ! { run_child "$PY" -m pip install --disable-pip-version-check --upgrade pip \
           && run_child "$PY" -m pip install --disable-pip-version-check -r requirements.lock \
           && run_child "$PY" -m pip install --disable-pip-version-check --no-deps -e . \
           && run_child "$PY" -m ipykernel install --sys-prefix --name omkl --display-name "Python (omkl)"; } >> "$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "error: set-up failed (full log: $log)" >&2
        exit 1
    fi
    echo "$want" > "$STAMP"
    echo "[setup] done"
}

# mark_interrupted NAME: remove what the interrupted notebook wrote in this run (its partial
# notebook copy, tables, figures and scorecard rows newer than its start) and leave a marker.
mark_interrupted() {
    local name="$1" nbdir="$RESULTS/notebooks"
    rm -f "$nbdir/$name.partial.ipynb"
    if [[ -f "$nbdir/.$name.started" ]]; then
        find "$RESULTS" -type f -newer "$nbdir/.$name.started" \
            ! -path "$nbdir/*" -print -delete 2>/dev/null | sed 's|^|    removed partial output |' >&2 || true
        rm -f "$nbdir/.$name.started"
    fi
    rm -f "$nbdir/$name.ipynb"
    printf 'INTERRUPTED by SIG%s at %s after %ss: this notebook did not finish; its partial outputs were removed.\n' \
        "${INTERRUPTED:-?}" "$(date -u +%FT%TZ)" "$((SECONDS - ${NB_START:-$SECONDS}))" | tee -a "$nbdir/$name.log" > "$nbdir/$name.INTERRUPTED"
    echo "    $name: partial outputs removed; marker $nbdir/$name.INTERRUPTED" >&2
}

# the last successful duration of each notebook (for the ETA lines), one "name seconds" a line
TIMINGS=""
last_seconds() { [[ -f "$TIMINGS" ]] && awk -v n="$1" '$1 == n {s = $2} END {if (s != "") print s}' "$TIMINGS" || true; }

# CPU seconds (user + sys) used so far by the driver's finished children (papermill and the
# kernel it reaps): on a busy machine this, not the wall time, says what a notebook costs.
# Sets CPU_NOW; `times` must run in this shell (a subshell has no finished children).
CPU_NOW=0
cpu_children() {
    times > "$RESULTS/notebooks/.times"
    CPU_NOW="$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$RESULTS/notebooks/.times")"
    rm -f "$RESULTS/notebooks/.times"
}

run_notebooks() {
    local quick="$1" only="$2"
    mkdir -p "$RESULTS/notebooks" "$RESULTS/tables" "$RESULTS/figures"
    TIMINGS="$RESULTS/notebooks/timings.txt"
    local nbs=()
    if [[ -n "$only" ]]; then
        # a name (p000_vaw2), a path (notebooks/p000_vaw2.ipynb) or a unique prefix (p000_v)
        local name matches=()
        name="$(basename "${only%.ipynb}")"
        if [[ -f "$NOTEBOOKS/$name.ipynb" ]]; then
            matches=("$NOTEBOOKS/$name.ipynb")
        else
            while IFS= read -r f; do matches+=("$f"); done < <(ls "$NOTEBOOKS"/"$name"*.ipynb 2>/dev/null | sort)
        fi
        if ((${#matches[@]} == 0)); then
            echo "error: --only $only: no notebook matches; choose from: $(cd "$NOTEBOOKS" && ls *.ipynb | sed 's/\.ipynb$//' | tr '\n' ' ')" >&2; exit 2
        elif ((${#matches[@]} > 1)); then
            echo "error: --only $only: ambiguous prefix, matches: $(for m in "${matches[@]}"; do basename "$m" .ipynb; done | tr '\n' ' ')" >&2; exit 2
        fi
        nbs=("${matches[0]}")
    else
        while IFS= read -r f; do nbs+=("$f"); done < <(ls "$NOTEBOOKS"/*.ipynb | sort)
    fi
    local mode=full
    [[ "$quick" == True ]] && mode=quick
    echo "[run] $mode mode, ${#nbs[@]} notebook(s), results in $RESULTS (logs: $RESULTS/notebooks/NAME.log)"
    local failed=() total_start=$SECONDS k=0
    for nb in "${nbs[@]}"; do
        local name status last eta log out
        k=$((k + 1))
        name="$(basename "$nb" .ipynb)"
        log="$RESULTS/notebooks/$name.log"
        out="$RESULTS/notebooks/$name.ipynb"
        last="$(last_seconds "$name")"
        eta="${last:+, last run ${last}s, ETA $(date -d "+${last} seconds" +%H:%M:%S 2>/dev/null || echo "~${last}s")}"
        echo "[$k/${#nbs[@]}] $name: started $(date +%H:%M:%S)$eta"
        rm -f "$RESULTS/notebooks/$name.INTERRUPTED" "$out"
        touch "$RESULTS/notebooks/.$name.started"
        NB_START=$SECONDS
        local cpu0
        cpu_children
        cpu0=$CPU_NOW
        CURRENT_NB="$name"
        # papermill writes the executed copy as it goes: keep it as NAME.partial.ipynb until it finished
        ${DEFAULT_SIGNALS[@]+"${DEFAULT_SIGNALS[@]}"} setsid "$PY" -m papermill "$nb" "$RESULTS/notebooks/$name.partial.ipynb" -k omkl \
            --cwd "$(dirname "$nb")" -p quick "$quick" --no-progress-bar --log-output > "$log" 2>&1 &
        CHILD=$!
        local next=$((SECONDS + 60)) cells rc=0
        while kill -0 "$CHILD" 2>/dev/null; do
            sleep 1 & wait $! || true
            if ((SECONDS >= next)); then
                cells="$(grep -c 'Executing Cell [0-9]' "$log" 2>/dev/null || true)"
                echo "    $name: running $((SECONDS - NB_START))s${cells:+, cell ${cells}}${last:+ of ~${last}s last time}"
                next=$((SECONDS + 60))
            fi
        done
        wait "$CHILD" || rc=$?
        CHILD=""
        CURRENT_NB=""
        rm -f "$RESULTS/notebooks/.$name.started"
        if ((rc == 0)); then
            status=ok
            mv -f "$RESULTS/notebooks/$name.partial.ipynb" "$out"
            { grep -v "^$name " "$TIMINGS" 2>/dev/null || true; echo "$name $((SECONDS - NB_START))"; } > "$TIMINGS.tmp"
            mv -f "$TIMINGS.tmp" "$TIMINGS"
        else
            status=FAILED; failed+=("$name")
            mv -f "$RESULTS/notebooks/$name.partial.ipynb" "$RESULTS/notebooks/$name.FAILED.ipynb" 2>/dev/null || true
        fi
        cpu_children
        printf '[%d/%d] %-28s %6ds  %s  (CPU %ds)\n' "$k" "${#nbs[@]}" "$name" "$((SECONDS - NB_START))" "$status" \
            "$((CPU_NOW - cpu0))"
        if [[ "$status" == FAILED ]]; then tail -n 25 "$log" | sed 's/^/    | /'; fi
    done
    run_child "$PY" -c "import omkl_core.report as r; r.scorecard(verbose=True)" || failed+=("scorecard")
    printf '%-34s %6ds\n' "total" "$((SECONDS - total_start))"
    if ((${#failed[@]})); then
        echo "error: failed: ${failed[*]} (logs in $RESULTS/notebooks/)" >&2
        exit 1
    fi
}

cmd="run"; quick="False"; only=""
args=()
run_opts=()   # options that apply to notebook runs only
while (($#)); do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        test|setup)
            if ((${#run_opts[@]})); then
                echo "error: ${run_opts[*]} applies to notebook runs, not to '$1' (see ./reproduce.sh --help)" >&2; exit 2
            fi
            if [[ "$1" == test ]]; then cmd="test"; shift; args=("$@"); break; fi
            cmd="setup"; shift ;;
        --quick|--only|--only=*) [[ "$cmd" == run ]] || { echo "error: $1 applies to notebook runs, not to '$cmd'" >&2; exit 2; } ;;&
        --quick) quick="True"; run_opts+=("$1"); shift ;;
        --only) [[ $# -ge 2 && -n "$2" ]] || { echo "error: --only needs a notebook name" >&2; exit 2; }; only="$2"; run_opts+=("$1"); shift 2 ;;
        --only=*) only="${1#--only=}"; [[ -n "$only" ]] || { echo "error: --only needs a notebook name" >&2; exit 2; }; run_opts+=("--only"); shift ;;
        mutants)
            if ((${#run_opts[@]})); then
                echo "error: ${run_opts[*]} applies to notebook runs, not to 'mutants'" >&2; exit 2
            fi
            cmd="mutants"; shift; args=("$@"); break ;;
        *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

# quick runs never touch the full results: they go to results/quick/ (or $OMKL_RESULTS/quick)
RESULTS="${OMKL_RESULTS:-$ROOT/results}"
export OMKL_MODE=full
if [[ "$quick" == True ]]; then RESULTS="$RESULTS/quick"; OMKL_MODE=quick; fi
export OMKL_RESULTS="$RESULTS"

setup
case "$cmd" in
    setup) ;;
    test)
        export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
        export MPLBACKEND=Agg
        echo "[lint] ruff check omkl_core tests benchmarks tools"
        run_child "$VENV/bin/ruff" check --quiet omkl_core tests benchmarks tools || { echo "error: ruff found problems (above)" >&2; exit 1; }
        # no argument: the whole suite; otherwise pytest gets exactly the user's arguments, so paths
        # run only those files, and options alone (-k, -x) fall back to pyproject's testpaths (tests)
        if ((${#args[@]})); then run_child "$PY" -m pytest "${args[@]}"; else run_child "$PY" -m pytest tests; fi
        ;;
    mutants) run_child "$PY" tools/mutants.py ${args[@]+"${args[@]}"} ;;
    run) MPLBACKEND=Agg run_notebooks "$quick" "$only" ;;
esac
