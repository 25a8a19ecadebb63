"""Markdown output is inert (issue #6, item 8): a link, an image, emphasis or a heading cannot be
injected through a job's run tag, a storage path, a vendor name or a batch's name — checked on the
real sheet renderer fed by the real importers, and on the estimate renderer, with a CommonMark
parser (markdown-it-py) when it is installed and structurally in any case."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.demo import generate
from trainledger.mdtext import Md, inline, table
from trainledger.report.render import to_markdown
from trainledger.service import Workspace

LINK = "[x](https://evil.example)"
IMAGE = "![i](https://evil.example/i.png)"
HOSTILE = f"# {LINK} {IMAGE} *b* _u_ ~s~ #h"
BATCH = "csa-sft-2026-11-a"


def _tokens(md: str) -> list:
    mdit = pytest.importorskip("markdown_it")
    parser = mdit.MarkdownIt("commonmark").enable(["table", "strikethrough"])

    def walk(tokens):
        for t in tokens:
            yield t
            yield from walk(t.children or [])

    return list(walk(parser.parse(md)))


MARKUP = ("link_open", "image", "em_open", "strong_open", "s_open", "html_inline", "html_block",
          "blockquote_open", "heading_open", "bullet_list_open", "ordered_list_open", "hr")


def _markup(md: str) -> dict[str, int]:
    return {k: sum(t.type == k for t in _tokens(md)) for k in MARKUP}


def _assert_inert(md: str, clean: str) -> None:
    """``md`` (rendered from hostile data) has no more markup than ``clean`` (the same render
    from plain data): the renderer's own headings and bold, and nothing from the data."""
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", md), "an unescaped [text]( remains"
    assert "<" not in md.replace("&lt;", "")
    found, own = _markup(md), _markup(clean)
    assert found == own
    assert found["link_open"] == found["image"] == found["html_inline"] == found["blockquote_open"] == 0


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> tuple[str, str]:
    """The demo's batch-A sheet, clean and with hostile text in four places of its inputs."""
    out = []
    for hostile in (False, True):
        root = tmp_path_factory.mktemp("ws")
        f = generate(root)
        if hostile:
            _poison(f)
        with Workspace.init(root) as w:
            for kind in ("slurm", "focus", "storage", "timesheet", "progress", "invoice"):
                w.import_files(kind, [getattr(f, kind)])
            w.attribute()
            out.append(to_markdown(w.sheet(BATCH), "en"))
    return out[0], out[1]


def _poison(f) -> None:
    inv = f.invoice.read_text(encoding="utf-8").splitlines(keepends=True)
    inv[1] = inv[1].replace("云桥智算服务有限公司（示例）", f'"{HOSTILE}"').rstrip("\n") + BATCH + "\n"
    f.invoice.write_text("".join(inv), encoding="utf-8")
    st = f.storage.read_text(encoding="utf-8")
    st = st.replace("oss://train-cache/tokenized/clean-v4-qwen2.5/,96304558848,cache,standard,wang.lei,",
                    f"oss://train-cache/tokenized/{LINK}/,96304558848,cache,standard,,", 1)
    f.storage.write_text(st, encoding="utf-8")
    sa = f.slurm.read_text(encoding="utf-8")
    f.slurm.write_text(sa.replace("run=a-r01;", f"run={IMAGE};", 1), encoding="utf-8")
    cfg = f.config.read_text(encoding="utf-8")
    cfg = cfg.replace('name = "SFT 批次 A：Qwen2.5-7B 全参微调 (SFT round A)"', f'name = "> {HOSTILE}"', 1)
    cfg = cfg.replace('team = "applied-ml"', 'team = "- [t](https://evil.example)"', 1)
    f.config.write_text(cfg, encoding="utf-8")


def test_the_sheet_stays_inert_with_hostile_inputs(sheets):
    clean, hostile = sheets
    for poison in (LINK, IMAGE, "*b*"):  # the hostile text did reach the sheet...
        assert inline(poison, lead=False) in hostile, poison
    _assert_inert(hostile, clean)  # ...and made no link, image, emphasis or heading
    assert "\\# \\[x\\]\\(https://evil.example\\)" in hostile  # the vendor, escaped
    lines = hostile.splitlines()
    assert all(not ln.startswith((">", "- [", "# [")) for ln in lines)


def test_the_rendered_sheet_shows_the_text_as_it_was(sheets):
    mdit = pytest.importorskip("markdown_it")
    render = mdit.MarkdownIt("commonmark").enable("table").render
    html, clean = render(sheets[1]), render(sheets[0])
    assert "<a " not in html and "<img" not in html and "<blockquote>" not in html
    assert html.count("<em>") == clean.count("<em>") and html.count("<h") == clean.count("<h")
    assert "# [x](https://evil.example) ![i](https://evil.example/i.png) *b* _u_ ~s~ #h" in html
    assert "oss://train-cache/tokenized/[x](https://evil.example)/" in html
    assert "&gt; # [x](https://evil.example)" in html  # the batch name, leading quote and all


def test_the_renderers_own_markup_survives(sheets):
    clean = sheets[0]
    tokens = _tokens(clean)
    assert any(t.type == "strong_open" for t in tokens)  # **build** in the labor table
    assert any(t.type == "em_open" for t in tokens)  # the rounding rule in italics


def _estimate(name: str) -> str:
    r = CliRunner().invoke(cli, ["estimate", "--name", name, "--task", "lora", "--params", "7B", "--tokens", "50M",
                                 "--gpu", "h800", "--on", "2026-11-29", "--samples", "200", "--format", "md"])
    assert r.exit_code == 0, r.output
    return r.stdout


def test_estimate_markdown_is_inert():
    name = f"{HOSTILE}\n> quoted\n- listed\n1. ordered"
    md = _estimate(name)
    _assert_inert(md, _estimate("plain name"))
    assert inline(name) in md


@pytest.mark.parametrize(("text", "escaped"), [
    ("- item", "\\- item"), ("+ item", "\\+ item"), ("> quote", "\\> quote"), ("1. one", "1\\. one"),
    ("---", "\\---"), ("-3.00", "-3.00"), ("12.50 x", "12.50 x"),
    ("a (b) [c] !d *e* _f_ #g ~h~", "a \\(b\\) \\[c\\] \\!d \\*e\\* \\_f\\_ \\#g \\~h\\~"),
])
def test_inline_escapes(text, escaped):
    assert inline(text) == escaped


def test_table_cells_keep_signs_and_renderer_markup():
    (_, _, row) = table(["a", "b", "c"], [["-3.00", Md("**build**"), "- x | y"]])
    assert row == "| -3.00 | **build** | - x \\| y |"
