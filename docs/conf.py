"""Sphinx configuration of omkl's documentation site (``./reproduce.sh docs``).

Sphinx + MyST-NB + the PyData theme, the tool of the scientific-Python family (NumPy, SciPy,
scikit-learn, pandas): autodoc reads the numpydoc docstrings as they are, MyST-NB renders the
executed notebooks from ``results/notebooks/`` with ``nb_execution_mode = "off"`` (never executed
again), and ``-W`` turns every warning into an error. Generated at build time into
``docs/_generated/`` (never committed): the API pages (one per public name of ``omkl_core``, one per
module with every name of its ``__all__``), the notebooks, the errata (from the registry), the
benchmarks page, the CLI's help; the HTML report of the committed full run (``reproduction/``) is built into
``report/`` of the site and its verdict and published tables are shown on the report page.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
GEN = DOCS / "_generated"

import omkl_core  # noqa: E402

sys.path.insert(0, str(DOCS))
from apigen import _escape_plain, write_api  # noqa: E402

project = "omkl"
author = "the omkl authors"
copyright = "omkl authors, MIT licence"   # noqa: A001
release = version = omkl_core.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_generated/notebooks/*.log"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"

# numpydoc: the docstrings' sections as they are; no class-member tables (autodoc lists the members)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set = set()
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"            # the numpydoc Parameters sections carry the types
autosummary_generate = False

# the executed notebooks are results: rendered as stored, never run again
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# notebooks start with an H1 per notebook and use H3 under H1 in places: a results document,
# not a docs source; MyST's header-level check would reject them
# "ref.python": an attribute that many classes share (weights_, t_) named in a numpydoc Attributes
# section is ambiguous for Sphinx, which then links the first; that is not a documentation error
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "ref.python"]

html_theme = "pydata_sphinx_theme"
html_title = f"omkl {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2, "navbar_align": "left",
                      "footer_start": ["copyright"], "footer_end": [],
                      "secondary_sidebar_items": {"**": ["page-toc", "edit-this-page", "sourcelink"],
                                                  "_generated/report": []}}
# without it the theme's script reads an empty mode on a page whose origin has no stored mode (every
# file:// page) and logs "Got invalid theme mode" to the console
html_context = {"default_mode": "auto"}
html_static_path = ["_static"]
html_css_files = ["omkl.css"]     # code blocks fit the page (wrap or scroll)
# the report page is one page of sections: its left sidebar lists them (the section navigation of a
# page without sub-pages would be empty), and the right one, which would repeat them, gives its room
# to the wide tables
html_sidebars = {"_generated/report": ["page-toc"]}
html_extra_path = [str(GEN / "extra")]   # the HTML report, copied as it is
html_copy_source = False
html_show_sourcelink = False

# ----------------------------------------------------------------------------- results
def _results_folder(sub: str) -> Path | None:
    base = Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")
    for cand in (base / sub, base / "quick" / sub):
        if cand.is_dir() and any(cand.iterdir()):
            return cand
    return None


def _report_page(extra: Path) -> str:
    """The site's report page: the committed full run (``reproduction/``), its verdict and every
    published table laid out as printed with tiers and causes, shown in the page; the whole HTML
    report of that run is built into the site beside it (``report/``)."""
    from omkl_core.repro import committed, html_report  # noqa: PLC0415

    head = "# Reproduction report\n\n"
    if not committed.exists():
        return head + ("This checkout has no committed full run (`reproduction/`): run `./reproduce.sh` and "
                       "`./reproduce.sh publish`.\n")
    out = extra / "report"
    html_report.build(committed.FOLDER, out=out)
    pages = [("index.html", None)] + [(p.name, p.stem) for p in sorted(out.glob("paper*_table*.html"))]
    text = (head + "The reproduction as the committed full run found it (`reproduction/`, written by "
            "`./reproduce.sh publish` from a full `./reproduce.sh`): no run needed to read it. Its stamp and "
            "whether the code changed since are in the verdict below.\n\n"
            "The whole report of that run, with the figures and their claims, the errata, the theory register "
            "with its tests' outcomes, the number hashes and the timing tables, opens as static pages (link "
            "below). A run of yours writes its own (`results/report/index.html`; a quick run "
            "`results/quick/report/index.html`), which shows this committed run beside its short-horizon "
            "numbers.\n\n"
            f"```{{raw}} html\n<style>{html_report.embed_css()}</style>\n"
            '<p><a href="../report/index.html"><b>Open the whole report of the committed full run</b></a></p>\n```\n\n')
    for name, stem in pages:
        title = "The verdict" if stem is None else stem.replace("paper", "Paper ").replace("_table", ", Table ")
        body = html_report.embed(out / name, base="../report/")
        text += f"## {title}\n\n```{{raw}} html\n<div class=\"omkl-report\">{body}</div>\n```\n\n"
    return text


def write_results_pages() -> None:
    """The executed notebooks, the report, the errata, the benchmarks and the CLI help, from what is there."""
    nb_out = GEN / "notebooks"
    shutil.rmtree(nb_out, ignore_errors=True)
    nb_out.mkdir(parents=True)
    src = _results_folder("notebooks")
    names = []
    if src is not None:
        for nb in sorted(src.glob("*.ipynb")):
            if nb.name.endswith((".FAILED.ipynb",)):
                continue
            shutil.copyfile(nb, nb_out / nb.name)
            names.append(nb.stem)
    mode = "quick" if src is not None and src.parent.name == "quick" else "full"
    where = (f"from ``{src.relative_to(ROOT) if src.is_relative_to(ROOT) else src}`` ({mode} run)"
             if src else "none: run ``./reproduce.sh`` (or ``--quick``) first")
    (nb_out / "index.md").write_text(
        "# Executed notebooks\n\nThe notebooks as the last run executed them, rendered without running them again; "
        f"source {where}."
        + (" **Quick run**: short horizons, not a reproduction of the papers." if mode == "quick" else "")
        + "\n\n```{toctree}\n:maxdepth: 1\n\n" + "\n".join(names) + "\n```\n", encoding="utf-8")
    extra = GEN / "extra"
    shutil.rmtree(extra, ignore_errors=True)
    extra.mkdir(parents=True)
    (GEN / "report.md").write_text(_report_page(extra), encoding="utf-8")
    from omkl_core.repro import errata  # noqa: PLC0415

    (GEN / "errata.md").write_text(errata.render_markdown(), encoding="utf-8")
    bench = sorted((ROOT / "benchmarks" / "results").glob("*.md"))
    text = "# Benchmarks\n\nThe measured tables of ``benchmarks/results/`` (each names its machine and date).\n\n"
    for b in bench:
        text += f"```{{include}} ../../benchmarks/results/{b.name}\n:heading-offset: 1\n:relative-images:\n```\n\n"
    (GEN / "benchmarks.md").write_text(text, encoding="utf-8")
    from omkl_core import cli  # noqa: PLC0415

    parser = cli.build_parser()
    helps = [("omkl --help", parser.format_help())]
    for action in parser._actions:
        for name, sub in (getattr(action, "choices", None) or {}).items():
            if hasattr(sub, "format_help"):
                helps.append((f"omkl {name} --help", sub.format_help()))
    (GEN / "cli_help.md").write_text("".join(f"## `{cmd}`\n\n```text\n{h.rstrip()}\n```\n\n" for cmd, h in helps),
                                     encoding="utf-8")



def _plain_notation(app, what, name, obj, options, lines):
    lines[:] = [_escape_plain(line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _plain_notation, priority=600)   # after numpydoc (500)


write_api(GEN / "api")
write_results_pages()
