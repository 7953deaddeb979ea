#!/usr/bin/env bash
# omkl: set up the environment and regenerate every table and figure of the papers.
#
#   ./reproduce.sh                 set-up (first run) + execute every notebook in notebooks/
#   ./reproduce.sh test [ARGS]     set-up + the whole test suite (pytest ARGS passed through)
#   ./reproduce.sh --quick         notebooks with quick=True (small horizons, for CI)
#   ./reproduce.sh --only NAME     one notebook: a name, a path or a unique prefix (e.g. p000_vaw2)
#   ./reproduce.sh setup           set-up only
#   ./reproduce.sh mutants [ARGS]  domain mutation testing of the theory tests (tools/mutants.py)
#   ./reproduce.sh --help
#
# Set-up: creates .venv with python3 (>= 3.11; override with PYTHON=/path/to/python3.11),
# installs requirements.lock and the package (editable), registers the Jupyter kernel
# "omkl" inside the venv. Later runs skip the install unless requirements.lock or
# pyproject.toml changed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
STAMP="$VENV/.omkl-installed"
RESULTS="$ROOT/results"

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

setup() {
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
        "$base" -m venv "$VENV"
    fi
    echo "[setup] installing pinned requirements (requirements.lock) and omkl (editable); log: .venv/setup.log"
    local log="$VENV/setup.log"
    : > "$log"
    if ! { "$PY" -m pip install --disable-pip-version-check --upgrade pip \
           && "$PY" -m pip install --disable-pip-version-check -r requirements.lock \
           && "$PY" -m pip install --disable-pip-version-check --no-deps -e . \
           && "$PY" -m ipykernel install --sys-prefix --name omkl --display-name "Python (omkl)"; } >> "$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "error: set-up failed (full log: $log)" >&2
        exit 1
    fi
    echo "$want" > "$STAMP"
    echo "[setup] done"
}

run_notebooks() {
    local quick="$1" only="$2"
    mkdir -p "$RESULTS/notebooks" "$RESULTS/tables" "$RESULTS/figures"
    local nbs=()
    if [[ -n "$only" ]]; then
        # a name (p000_vaw2), a path (notebooks/p000_vaw2.ipynb) or a unique prefix (p000_v)
        local name matches=()
        name="$(basename "${only%.ipynb}")"
        if [[ -f "notebooks/$name.ipynb" ]]; then
            matches=("notebooks/$name.ipynb")
        else
            while IFS= read -r f; do matches+=("$f"); done < <(ls notebooks/"$name"*.ipynb 2>/dev/null | sort)
        fi
        if ((${#matches[@]} == 0)); then
            echo "error: --only $only: no notebook matches; choose from: $(cd notebooks && ls *.ipynb | sed 's/\.ipynb$//' | tr '\n' ' ')" >&2; exit 2
        elif ((${#matches[@]} > 1)); then
            echo "error: --only $only: ambiguous prefix, matches: $(for m in "${matches[@]}"; do basename "$m" .ipynb; done | tr '\n' ' ')" >&2; exit 2
        fi
        nbs=("${matches[0]}")
    else
        while IFS= read -r f; do nbs+=("$f"); done < <(ls notebooks/*.ipynb | sort)
    fi
    local failed=() total_start=$SECONDS
    for nb in "${nbs[@]}"; do
        local name start status
        name="$(basename "$nb" .ipynb)"
        start=$SECONDS
        if "$PY" -m papermill "$nb" "$RESULTS/notebooks/$name.ipynb" -k omkl \
                --cwd "$ROOT/notebooks" -p quick "$quick" --no-progress-bar \
                > "$RESULTS/notebooks/$name.log" 2>&1; then
            status=ok
        else
            status=FAILED; failed+=("$name")
        fi
        printf '%-28s %6ds  %s\n' "$name" "$((SECONDS - start))" "$status"
        if [[ "$status" == FAILED ]]; then tail -n 25 "$RESULTS/notebooks/$name.log" | sed 's/^/    | /'; fi
    done
    "$PY" -c "import omkl_core.report as r; r.scorecard(verbose=True)" || failed+=("scorecard")
    printf '%-28s %6ds\n' "total" "$((SECONDS - total_start))"
    if ((${#failed[@]})); then
        echo "error: failed: ${failed[*]} (logs in results/notebooks/)" >&2
        exit 1
    fi
}

cmd="run"; quick="False"; only=""
args=()
while (($#)); do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        test) cmd="test"; shift; args=("$@"); break ;;
        setup) cmd="setup"; shift ;;
        mutants) cmd="mutants"; shift; args=("$@"); break ;;
        --quick) quick="True"; shift ;;
        --only) [[ $# -ge 2 ]] || { echo "error: --only needs a notebook name" >&2; exit 2; }; only="$2"; shift 2 ;;
        --only=*) only="${1#--only=}"; shift ;;
        *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

setup
case "$cmd" in
    setup) ;;
    test)
        export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
        export MPLBACKEND=Agg
        echo "[lint] ruff check omkl_core tests benchmarks"
        "$VENV/bin/ruff" check --quiet omkl_core tests benchmarks || { echo "error: ruff found problems (above)" >&2; exit 1; }
        "$PY" -m pytest tests ${args[@]+"${args[@]}"}
        ;;
    mutants) "$PY" tools/mutants.py ${args[@]+"${args[@]}"} ;;
    run) MPLBACKEND=Agg run_notebooks "$quick" "$only" ;;
esac
