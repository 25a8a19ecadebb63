"""A viewer reads an external service's invoice amount nowhere (review 7 L13, the rest).

The demo's one USD figure is an invoice: batch B's 3,400.00 USD (external). It is the only USD money,
so every USD actual, EAC, variance part, alert, bill total or attributed of the workspace is the
invoice. Everything a viewer is served — every dashboard page in HTML and JSON (both languages), the
sheet downloads (json, md, html, csv, xlsx), and the command line's ``--role viewer`` sheet, status,
review, report and alerts — is searched for the amount in every way it is printed ("3,400.00",
"3400.00", "3400", a workbook's number cell); finance's copies must hold it in each kind of output,
so the search can fail. Batch B's CNY also holds an invoice (6,500.00): its billed CNY AC is withheld
too, while batch A's (no invoice) is the same for the viewer as for finance.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile

import pytest

from tests.web.roles_ws import BATCH_A, BATCH_B, run_cli

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

# 3400 as a figure of its own (3,400.00 / 3400.00 / 3400 / <v>3400</v>), not 34000 nor 3400.5
INVOICE = re.compile(r"(?<![\d.,])3,?400(?:\.0+)?(?![\d,]|\.0*[1-9])")
NOT_MONEY = re.compile(r"step-0*\d+")  # a checkpoint's path (".../step-03400/") is no amount
KINDS = ("cli sheet", "cli status", "cli review", "cli report", "cli alerts", "web /batches", "web /report",
         "web /alerts", "download")


@pytest.fixture(scope="module")
def ws(web_demo, tmp_path_factory):
    root = tmp_path_factory.mktemp("invoice-leak") / "ws"
    shutil.copytree(web_demo, root)
    return root


def _xml(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "\n".join(z.read(n).decode("utf-8") for n in z.namelist() if n.endswith((".xml", ".rels")))


def _served(root, role: str, tmp) -> dict[str, str]:
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    w = ("--workspace", root)
    out: dict[str, str] = {}
    for b in (BATCH_A, BATCH_B):
        for f in ("json", "md", "html", "csv"):
            out[f"cli sheet {b} {f}"] = run_cli(*w, "sheet", b, "--format", f, "--role", role)
        run_cli(*w, "sheet", b, "--format", "xlsx", "--role", role, "--out", tmp / f"{b}.xlsx")
        out[f"cli sheet {b} xlsx"] = _xml((tmp / f"{b}.xlsx").read_bytes())
        for cmd in ("status", "review"):
            out[f"cli {cmd} {b} json"] = run_cli(*w, cmd, b, "--role", role, "--json")
            for lang in ("en", "zh-CN"):
                out[f"cli {cmd} {b} {lang}"] = run_cli(*w, "--lang", lang, cmd, b, "--role", role)
    for by in ("month", "batch"):
        for f in ("json", "md", "html"):
            out[f"cli report {by} {f}"] = run_cli(*w, "report", "--by", by, "--format", f, "--role", role)
        run_cli(*w, "report", "--by", by, "--format", "xlsx", "--role", role, "--out", tmp / f"report-{by}.xlsx")
        out[f"cli report {by} xlsx"] = _xml((tmp / f"report-{by}.xlsx").read_bytes())
    out["cli alerts json"] = run_cli(*w, "alerts", "--role", role, "--json")
    for lang in ("en", "zh-CN"):
        out[f"cli alerts {lang}"] = run_cli(*w, "--lang", lang, "alerts", "--role", role)
    tok = run_cli(*w, "token", "create", "--role", role).strip().splitlines()[-1]
    h = {"Authorization": f"Bearer {tok}"}
    with TestClient(create_app(root, require_token=True)) as c:
        def get(path: str, accept: str = "application/json") -> str:
            r = c.get(path, headers={**h, "accept": accept})
            assert r.status_code == 200, (path, r.text[:300])
            return r.text

        paths = ["/batches", "/report", "/report?by=batch", "/alerts", "/imports"]
        for b in (BATCH_A, BATCH_B):
            paths += [f"/batches/{b}", f"/batches/{b}/status", f"/batches/{b}/decisions"]
        paths += [i["href"] for i in json.loads(get("/imports"))["imports"]]
        for b in (BATCH_A, BATCH_B):  # every line, source row and run the batch page links to
            links = re.findall(r'"(/(?:lines|sources|batches/[^"/]+/runs)/[^"?#]+)"', get(f"/batches/{b}"))
            paths += sorted(set(links))
        for p in dict.fromkeys(paths):
            for accept in ("text/html", "application/json"):
                for lang in ("en", "zh-CN"):
                    out[f"web {p} {accept} {lang}"] = get(f"{p}{'&' if '?' in p else '?'}lang={lang}", accept)
        for b in (BATCH_A, BATCH_B):
            for f in ("json", "md", "html", "csv", "xlsx"):
                r = c.get(f"/batches/{b}/sheet.{f}", headers=h)
                assert r.status_code == 200, (b, f, r.text[:300])
                out[f"download {b} {f}"] = _xml(r.content) if f == "xlsx" else r.text
    return out


@pytest.fixture(scope="module")
def served(ws, tmp_path_factory):
    return {role: _served(ws, role, tmp_path_factory.mktemp(role)) for role in ("finance", "viewer")}


def _hits(copies: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for k, body in copies.items():
        text = NOT_MONEY.sub("", body)
        for m in INVOICE.finditer(text):
            out.setdefault(k, []).append(text[max(0, m.start() - 60):m.end() + 10])
    return out


def test_the_demos_only_usd_money_is_one_invoice(ws):
    sheet = json.loads(run_cli("--workspace", ws, "sheet", BATCH_B, "--format", "json", "--role", "finance"))
    usd = [e for e in sheet["external"] if e["currency"] == "USD"]
    assert [e["expected"] for e in usd] == ["3400.00"]
    cons = {r["currency"]: r for r in sheet["conservation"]["by_currency"]}
    assert cons["USD"]["billed_total"] == "3400.00" and cons["USD"]["invoiced"] is True


def test_finance_reads_the_invoice_in_every_kind_of_output(served):
    found = _hits(served["finance"])
    for kind in KINDS:
        assert any(k.startswith(kind) for k in found), kind
    # and in the leaks this test was written for: status / review AC, EAC, variance; the alert
    for k in (f"cli status {BATCH_B} json", f"cli review {BATCH_B} json", "cli alerts json",
              f"web /batches/{BATCH_B}/status application/json en", "web /alerts application/json en"):
        assert k in found, k


def test_a_viewer_reads_the_invoice_nowhere(served):
    assert _hits(served["viewer"]) == {}
    assert len(served["viewer"]) > 150  # the search covered every page and format


# the demo's other invoices: batch B's 6,500.00 CNY, and the two no rule attributes (48,000.00, 12,000.00),
# whose rows of the unattributed bucket the /report JSON listed to a viewer (review 8, R8-2)
OTHERS = re.compile(r"(?<![\d.,])(?:6,?500|48,?000|12,?000)\.00(?!\d)|<v>(?:6500|48000|12000)</v>")


def test_a_viewer_reads_no_other_invoice_either(served):
    def hits(copies):
        return {k: [m.group(0) for m in OTHERS.finditer(body)] for k, body in copies.items() if OTHERS.search(body)}

    fin = hits(served["finance"])
    assert any(k.startswith("web /report") for k in fin) and any(k.startswith("cli sheet") for k in fin)
    assert hits(served["viewer"]) == {}


def _rows(status: dict, key: str) -> dict[tuple[str, str], dict]:
    return {(r["basis"], r["currency"]): r for r in status[key]}


def test_a_viewer_keeps_what_holds_no_invoice(served):
    fin = {b: json.loads(served["finance"][f"cli status {b} json"]) for b in (BATCH_A, BATCH_B)}
    vie = {b: json.loads(served["viewer"][f"cli status {b} json"]) for b in (BATCH_A, BATCH_B)}
    # batch A has no invoice: its billed CNY actual is the viewer's too
    assert _rows(vie[BATCH_A], "ac")[("billed", "CNY")] == _rows(fin[BATCH_A], "ac")[("billed", "CNY")]
    assert vie[BATCH_A]["vendor_groups"] == []
    # batch B: USD and CNY each hold an invoice; the AC and EAC are withheld, the plan and EV are not
    assert vie[BATCH_B]["vendor_groups"] == [{"basis": "billed", "currency": "CNY"},
                                             {"basis": "billed", "currency": "USD"}]
    for key in ("ac", "eac"):
        for cur in ("CNY", "USD"):
            assert _rows(vie[BATCH_B], key)[("billed", cur)]["expected"] == "restricted", (key, cur)
    for key in ("plan", "ev"):
        for cur in ("CNY", "USD"):
            assert _rows(vie[BATCH_B], key)[("billed", cur)] == _rows(fin[BATCH_B], key)[("billed", cur)]
    assert _rows(vie[BATCH_B], "ac")[("queued", "CNY")] == _rows(fin[BATCH_B], "ac")[("queued", "CNY")]
    usd = next(v for v in vie[BATCH_B]["alerts"] if v["key"] == "unplanned:billed:USD")
    assert usd["value"] == "restricted" and "restricted" in usd["text"]["en"] and "受限" in usd["text"]["zh-CN"]


def test_the_conservation_of_a_currency_without_invoices_stays(ws):
    from trainledger.model.restricted import resolve
    from trainledger.report.vendor_kinds import mark_conservation, with_invoiced

    recs = [{"currency": "EUR", "billed_total": "10.00", "attributed": "7.00", "unattributed": "3.00",
             "difference": "0.00", "unattributed_by_reason": [{"reason": "no_rule", "detail": "x", "amount": "3.00"}]},
            {"currency": "USD", "billed_total": "12.00", "attributed": "2.00", "unattributed": "10.00",
             "difference": "0.00", "unattributed_by_reason": [{"reason": "no_batch", "detail": "invoice v-1",
                                                               "amount": "10.00"}]}]
    shown, _ = resolve(mark_conservation(with_invoiced(recs, set())), "viewer")
    assert [shown[0][k] for k in ("billed_total", "attributed", "unattributed")] == ["10.00", "7.00", "3.00"]
    assert [shown[1][k] for k in ("billed_total", "attributed", "unattributed", "difference")] == \
        ["restricted", "restricted", "restricted", "0.00"]
    fin, _ = resolve(mark_conservation(with_invoiced(recs, {"USD"})), "finance")
    assert fin[1]["billed_total"] == "12.00"
