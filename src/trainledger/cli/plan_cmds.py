"""plan, status, alerts, review, decide: the plan / execution / review / decision loop of a batch.

``status`` and ``review`` print their view models as one role may see them (``--role``, default
admin: the local user; report/plan_access.py ``plan_for``): a restricted figure — a labor role's variance
line, a price or rate lesson — reads "restricted" / "受限" in the text and the JSON alike."""

from __future__ import annotations

import getpass
import json
from datetime import date
from decimal import Decimal

import click

from trainledger.cli.output import pad, width
from trainledger.errors import BadInput
from trainledger.model.restricted import ADMIN, ROLES, is_withheld
from trainledger.report import freshness
from trainledger.report.primitives import unit as unit_text
from trainledger.review import service
from trainledger.review.texts import label, line_label, rework_text, rounds_text, storage_label, t
from trainledger.service import Workspace

LANGS = ("en", "zh-CN")
ROLE_HELP = ("Print restricted fields (labor rates, unit prices …) as this role may see them (docs/web.md)."
             " / 按角色输出受限字段。")


class _ManyOption(click.Option):
    """A repeatable option that also takes several values after one flag: ``--answers 1 2 3`` (the
    values that follow while they are whole numbers, so a positional argument after them stays one)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, multiple=True, **kwargs)

    def add_to_parser(self, parser, ctx) -> None:
        super().add_to_parser(parser, ctx)
        for name in self.opts:
            opt = parser._long_opt.get(name) or parser._short_opt.get(name)
            if opt is None:
                continue

            def process(value, state, _orig=opt.process) -> None:
                _orig(value, state)
                while state.rargs and state.rargs[0].isdigit():
                    _orig(state.rargs.pop(0), state)

            opt.process = process


def _ws(ctx) -> Workspace:
    return Workspace.open(ctx.obj["workspace"])


def _lang(wsp, lang):
    return lang or wsp.config.get("workspace.language") or "en"


def _json(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def _rng(r: dict) -> str:
    """Figures rounded for reading (half-even, 2 places); --json keeps every digit."""
    lo, ex, hi = (_money(r[k]) for k in ("low", "expected", "high"))
    return ex if r["low"] == r["high"] else f"{ex} ({lo}–{hi})"


def _h(s: str | None) -> str:
    from decimal import Decimal

    if is_withheld(s):
        return str(s)
    return "-" if s is None else format(Decimal(s).quantize(Decimal("0.01")), ",f")


def _for_role(obj: dict, role: str, lang: str) -> tuple[dict, str]:
    """``obj`` as ``role`` may see it, and the note naming what it leaves out ("" for nothing)."""
    from trainledger.model.restricted import note
    from trainledger.report.plan_access import plan_for

    shown, seen = plan_for(obj, role, lang)
    return shown, note(seen, lang)


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


def _estimator_options(f):
    """The ``estimate`` command's own options (its parser, not a copy), plus its price book."""
    from trainledger.cli.estimate import _estimate_options

    f = click.option("--price-book", type=click.Path(dir_okay=False), default=None,
                     help="estimate: TOML or CSV price book (default: the shipped sample)")(f)
    return _estimate_options(f)


@click.command("plan")
@click.argument("batch")
@click.option("--from-estimate", "spec", type=click.Path(dir_okay=False), help="the estimator's --from spec TOML")
@click.option("--plan-toml", type=click.Path(dir_okay=False), default=None,
              help="the plan's [plan] table (max_rounds, bounds, gates, rules…) when not in the spec")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None, help="the plan's maximum rounds")
@_estimator_options
@click.option("--from-review", "source", help="a reviewed batch whose measured rates seed this plan")
@click.option("--work", default=None, help="with --from-review: planned useful work in Mtoken, LOW..EXPECTED..HIGH"
              " (default: the reviewed batch's measured work)")
@click.option("--reason", default="", help="why this baseline (required for v2 and later)")
@click.option("--by", "author", default=None, help="who makes the plan (default: login name)")
@click.option("--show", is_flag=True, help="show the latest version")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(LANGS), default=None)
@click.pass_context
def plan(ctx, batch, spec, plan_toml, max_rounds, source, work, reason, author, show, as_json, lang,
         **est_options) -> None:
    """Make, show or list plan baselines (`plan list`). / 制定、查看或列出计划基线。

    From an estimate spec (--from-estimate), the same options as `estimate` (--task --params --tokens
    --gpu …), or a review (--from-review). 来自预估规格文件、与 estimate 相同的选项，或复盘。"""
    est_options = {k: v for k, v in est_options.items() if v is not None}
    from_options = bool(est_options) and not spec
    with _ws(ctx) as wsp:
        lang = _lang(wsp, lang)
        if batch == "list":
            rows = service.plans(wsp)
            if as_json:
                return _json(rows)
            for r in rows:
                tot = "; ".join(f"{label(x['basis'], lang)} {_rng(x)} {x['currency']}" for x in r["totals"])
                click.echo(f"{r['batch']} v{r['version']}  {r['created_at'][:19]}  {r['author']}  {r['reason']}  {tot}")
            return
        if sum(bool(x) for x in (spec or from_options, source, show)) != 1:
            raise BadInput("plan: give one of --from-estimate SPEC.toml, the estimate options (--task --params"
                           " --tokens --gpu …), --from-review BATCH or --show",
                           remedy=f"e.g. `trainledger plan {batch} --from-estimate spec.toml` or "
                                  f"`trainledger plan {batch} --show`")
        if (plan_toml or max_rounds) and not (spec or from_options):
            raise BadInput("plan: --plan-toml and --max-rounds go with an estimate (--from-estimate or its options)",
                           remedy="add --from-estimate SPEC.toml or the estimate options, or leave out --plan-toml"
                                  " and --max-rounds")
        if spec or from_options:
            _id, p = service.make_plan(wsp, batch, spec, reason=reason, author=author or _user(),
                                       options=est_options, plan_toml=plan_toml, max_rounds=max_rounds)
            service.check(wsp, batch)
        elif source:
            _id, p = service.plan_from_review(wsp, batch, source, reason=reason, author=author or _user(),
                                              work=_work(work))
            service.check(wsp, batch)
        else:
            _id, p = service.latest_plan(wsp, batch)
        body = p.as_dict()
        body["totals"] = [{"basis": b, "currency": c, **v.as_dict()} for (b, c), v in sorted(p.totals().items())]
        if as_json:
            return _json(body)
        _show_plan(body, lang)


def _work(text: str | None):
    if text is None:
        return None
    from trainledger.review.plan import Rng

    parts = [p.strip() for p in str(text).split("..")]
    return Rng.parse(parts if len(parts) > 1 else parts[0], "--work")


def _show_plan(b: dict, lang: str) -> None:
    click.echo(t("plan_title", lang, batch=b["batch"], version=b["version"]))
    click.echo(f"  {t('reason', lang)}: {b['reason']}   {t('author', lang)}: {b['author']}"
               f"   {t('source', lang)}: {b['source'].get('kind')}"
               f" {b['source'].get('spec', b['source'].get('batch', ''))}")
    w = b["work"]
    click.echo(f"  {t('work', lang)}: {w['expected']} ({w['low']}–{w['high']}) {unit_text('Mtoken', lang)}"
               f" [{label(w['evidence'], lang)}]"
               f"   {t('max_rounds', lang)}: {t('no_max', lang) if b['max_rounds'] is None else b['max_rounds']}")
    for x in b["totals"]:
        click.echo(f"  {t('plan', lang)} {label(x['basis'], lang)}: {_rng(x)} {x['currency']}")
    for ln in b["lines"]:
        p = ln["price"]
        click.echo(f"  · {ln['id']} [{label(ln['basis'], lang)}] {t('price', lang)} {p['expected']}"
                   f" ({p['low']}–{p['high']}) {ln['currency']}/{ln['unit']}, {p.get('item')} {p.get('effective')}"
                   f" [{label(p.get('evidence', ''), lang)}]"
                   f" {p.get('source', '')}")
        for k, r in ln["efficiency"].items():
            click.echo(f"      {t('efficiency', lang)} {label(k, lang)}: {r['expected']} ({r['low']}–{r['high']})"
                       f" {ln['unit']} {t('per_unit', lang)}")
        for k, r in ln["fixed"].items():
            click.echo(f"      {t('fixed', lang)} {label(k, lang)}: {r['expected']} ({r['low']}–{r['high']})"
                       f" {ln['unit']}")
        for k, r in ln["rework"].items():
            click.echo(f"      {t('rework_allowance', lang)} {label(k, lang)}: {r['expected']} ({r['low']}–{r['high']})"
                       f" {ln['unit']}")
    for w in b["source"].get("warnings_zh" if lang.startswith("zh") else "warnings", []):
        click.echo(f"  ! {w}")
    click.echo(f"  {t('bounds', lang)}: {bounds_text(b['bounds'], lang)}")
    for g in b["gates"]:
        click.echo(f"  {t('gates', lang)}: {g['id']} @ {g['at_work']} (min {g['min_spend']})")
    for r in b["rules"]:
        click.echo(f"  {t('rules', lang)}: {r['id']}: {' and '.join(r['when'])} → {label(r['action'], lang)}")
    for a in b["assumptions"]:
        click.echo(f"  {t('assumptions', lang)}: {a['name']} = {a['value']} [{label(a['evidence'], lang)}]"
                   f" {t('owner', lang)}: {a['owner']}")


@click.command("status")
@click.argument("batch")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(LANGS), default=None)
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True, help=ROLE_HELP)
@click.pass_context
def status(ctx, batch, as_json, lang, role) -> None:
    """AC, EV and EAC against the plan; rounds, gates and open alerts. / 执行状态：实际、挣值、完工估算。"""
    with _ws(ctx) as wsp:
        lang = _lang(wsp, lang)
        st, withheld = _for_role(service.status(wsp, batch), role, "en" if as_json else lang)
        st["stale"] = freshness.check(wsp)  # AC is the last attribution's; the lake may have moved on
        if as_json:
            return _json(st)
        if withheld:
            click.echo(withheld)
        click.echo(t("status_title", lang, batch=batch, version=st["plan_version"]))
        if st["stale"]:
            click.echo(f"  ! {freshness.note(st['stale'], lang)}")
        w, mtok = st["work"], unit_text("Mtoken", lang)  # 百万 token in zh-CN, as the pages say
        if w.get("known", True):
            click.echo(f"  {t('work_done', lang)}: {_h(w['done'])} / {_h(w['expected'])} {mtok}")
        else:
            key = "zh-CN" if lang.startswith("zh") else "en"
            click.echo(f"  {t('work_done', lang)}: {t('unknown', lang)} / {_h(w['expected'])} {mtok}"
                       f" ({w['why_unknown'][key]})")
        click.echo(f"  {t('rounds', lang)}: {rounds_text(st['rounds'], lang)}")
        for k in ("plan", "ac", "ev", "eac"):
            for r in st[k]:
                why = r.get("why_not_recorded")  # nothing recorded on the basis: not a measured zero
                click.echo(f"  {t(k, lang) if k != 'plan' else t('plan', lang)} {label(r['basis'], lang)}:"
                           f" {_rng(r)} {r['currency']}"
                           + (f" ({why['zh-CN' if lang.startswith('zh') else 'en']})" if why else ""))
        click.echo(f"  {t('hours_by_state', lang)}:")
        hrs = st["gpu_hours_by_state"]
        wide = max([16] + [width(label(h["state"], lang)) for h in hrs]
                   + [width(label(x["state"], lang)) + 2 for h in hrs for x in h.get("states", ())])
        for h in st["gpu_hours_by_state"]:
            click.echo(f"    {pad(label(h['state'], lang), wide)} {_h(h['actual']):>12}  {t('planned_to_date', lang)}"
                       f" {_h(h['planned_for_work_done'])}  {t('planned_total', lang)}"
                       f" {_h(h['planned_at_completion'])}")
            for x in h.get("states", ()):  # the measured states the plan's overhead stands for (its parts)
                click.echo(f"      {pad(label(x['state'], lang), wide - 2)} {_h(x['actual']):>12}")
        for c in st.get("curves", []):
            click.echo(f"  {t('curve', lang, metric=c['metric'], frac=c['work_fraction'])}: {t('plan', lang)}"
                       f" {c['planned']} / {t('actual', lang)} {c['actual'] or '-'}"
                       f" ({t('gap', lang)} {c['gap'] or '-'})")
        for g in st["gates"]:
            if g["reached"]:
                click.echo("  " + t("gate_reached", lang, id=g["id"], frac=g["at_work"],
                                    verdict=label(g["verdict"]["action"], lang)) + f" ({t('verdict_note', lang)})")
            else:
                click.echo("  " + t("gate_pending", lang, id=g["id"], frac=g["at_work"]))
        _print_alerts(st["alerts"], lang)


def _print_alerts(rows, lang) -> None:
    key = "zh-CN" if lang.startswith("zh") else "en"
    if not rows:
        click.echo(f"  {t('no_alerts', lang)}")
    for a in rows:
        state = (t("open", lang) if a["open"] else t("answered", lang, d=a["answered_by"]) if not a.get("retired")
                 else a["retired"]["zh-CN" if lang.startswith("zh") else "en"])
        drv = (a.get("driver") or {}).get(key) or ""
        click.echo(f"  [{a['id']}] {a['batch']} {a['text'][key]} — {state}" + (f"\n       {drv}" if drv else ""))


def bounds_text(bounds: dict, lang: str) -> str:
    """A plan's alert bounds as sentences (``spend alerts at 50, 80, 100 % of the plan; …``), not JSON;
    a bound this table does not know is shown as ``key=value``."""
    from trainledger.i18n import text

    out = []
    for key, value in bounds.items():
        if key == "spend_pct":
            out.append(text("cli.plan.bound.spend_pct", lang, pcts=[str(v) for v in value]))
        elif key in ("eac_high_over_plan_high", "rounds_at_max"):
            said = text(f"cli.plan.bound.{key}", lang)
            out.append(said if value else text("cli.plan.bound.off", lang, bound=said))
        else:
            out.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
    return ("；" if lang.startswith("zh") else "; ").join(out)


@click.command("alerts")
@click.option("--batch", default=None)
@click.option("--open", "open_only", is_flag=True, help="only alerts no decision has answered")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(LANGS), default=None)
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True, help=ROLE_HELP)
@click.pass_context
def alerts(ctx, batch, open_only, as_json, lang, role) -> None:
    """Crossed bounds awaiting a decision. / 越界预警（等待决策）。"""
    with _ws(ctx) as wsp:
        lang = _lang(wsp, lang)
        rows = service.alerts(wsp, batch, open_only=open_only)
        if role != ADMIN:  # as the dashboard's /alerts marks them (web/pages.py alerts)
            rows = _alerts_for_role(wsp, rows, role, "en" if as_json else lang)
        if as_json:
            return _json(rows)
        _print_alerts(rows, lang)


def _alerts_for_role(wsp, rows: list[dict], role: str, lang: str) -> list[dict]:
    """The alerts as ``role`` may see them: each naming its plan version's labor kind and whether an
    invoice is part of its figures (report/vendor_kinds.py), marked and resolved; the note on stderr."""
    from trainledger.model.restricted import note
    from trainledger.report.plan_section import labor_kinds, with_kinds
    from trainledger.report.vendor_kinds import alert_invoiced, groups_of

    invoiced, kinds = groups_of(wsp), {}
    marked = []
    for a in rows:
        if a["batch"] not in kinds:
            kinds[a["batch"]] = labor_kinds(wsp, a["batch"])
        k = kinds[a["batch"]]
        marked.append({**with_kinds([a], k, k[max(k)] if k else None)[0],
                       "invoiced": alert_invoiced(a, invoiced.get(a["batch"], []))})
    shown, seen = _for_role_rows(marked, role, lang)
    if said := note(seen, lang):
        click.echo(said, err=True)
    return shown


def _for_role_rows(rows: list[dict], role: str, lang: str):
    from trainledger.report.plan_access import plan_for

    shown, seen = plan_for({"alerts": rows}, role, lang)
    return shown["alerts"], seen


@click.command("review")
@click.argument("batch")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(LANGS), default=None)
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True, help=ROLE_HELP)
@click.pass_context
def review(ctx, batch, as_json, lang, role) -> None:
    """Plan against actual: price, volume, efficiency and rework, exactly. / 计划与实际差异分解。"""
    with _ws(ctx) as wsp:
        lang = _lang(wsp, lang)
        rv, withheld = _for_role(service.review(wsp, batch), role, "en" if as_json else lang)
        rv["stale"] = freshness.check(wsp)
        if as_json:
            return _json(rv)
        click.echo(t("review_title", lang, batch=batch, version=rv["plan_version"]))
        if rv["stale"]:
            click.echo(f"  ! {freshness.note(rv['stale'], lang)}")
        if withheld:
            click.echo(f"  {withheld}")
        click.echo(f"  {t('bridge', lang)}")
        cols = ("plan", "actual", "price", "volume", "efficiency", "rework")
        for v in rv["variance"]:  # credits / not split: shown when they hold money (review/variance.py)
            extra = [c for c in ("other", "not_split") if v.get(c) not in (None, "0", "0.00") and
                     (is_withheld(v[c]) or Decimal(v[c]))]
            click.echo(f"  {label(v['basis'], lang)} {v['currency']}: "
                       + "  ".join(f"{t(c, lang)} {_money(v[c])}" for c in (*cols, *extra)))
        for ln in rv["lines"]:
            if ln.get("note"):
                click.echo(f"  {line_label(ln['line'], lang)} — {t('note_' + ln['note'], lang)}")
        click.echo(f"  ({t('rework_def', lang)})")
        for ln in rv["lines"]:
            if ln["efficiency_by_state"]:
                click.echo(f"  {line_label(ln['line'], lang)} — {t('by_state', lang)}: " + ", ".join(
                    f"{label(k, lang)} {_money(x)}" for k, x in ln["efficiency_by_state"].items()
                    if is_withheld(x) or Decimal(x)))
            if ln["rework_by"] and any(is_withheld(x) for x in ln["rework_by"].values()):
                click.echo(f"  {line_label(ln['line'], lang)} — {t('by_reason', lang)}: "  # nothing to add up
                           + "; ".join(
                    f"{label(k, lang)} {x}" for k, x in sorted(ln["rework_by"].items()) if "/" not in k))
            elif parts := rework_text(ln["rework_by"], lang, _money):  # no row when every part is 0
                click.echo(f"  {line_label(ln['line'], lang)} — {t('by_reason', lang)}: " + "; ".join(parts))
        click.echo(f"  {t('classes', lang)}: " + ", ".join(
            f"{label(c['review_class'], lang)} {c['runs']} ({_h(c['gpu_hours'])} {t('gpu_h', lang)})"
            for c in rv["review_classes"]))
        click.echo(f"  {t('lessons', lang)}:")
        for x in rv["lessons"]:
            b = x["before"]
            name = x["name_zh"] if lang.startswith("zh") else x["name"]
            click.echo(f"    {name}: {t('before', lang)} {b['expected']} ({b['low']}–{b['high']})"
                       f" [{label(b['evidence'], lang)}] → {t('after', lang)}"
                       f" {x['after']['value'] if x['after']['value'] is not None else t('unknown', lang)}"
                       f" [{label(x['after']['evidence'], lang)}] ({x['change_pct'] or '-'} %)")


def _money(s: str) -> str:
    from decimal import ROUND_HALF_EVEN, Decimal

    if is_withheld(s):  # a field the role may not see: its word ("restricted" / "受限")
        return str(s)
    d = Decimal(s).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    return format(d if d else abs(d), ",f")  # no "-0.00" for a part that rounds to zero


@click.command("decide")
@click.argument("batch")
@click.option("--action", type=click.Choice(["continue", "shrink", "stop", "retarget"]), required=True)
@click.option("--reason", required=True)
@click.option("--by", "by", required=True, help="who decides")
@click.option("--approver", default=None, help="second named approver (needed to override the rules)")
@click.option("--answers", type=int, cls=_ManyOption, default=(), help="alert ids this decision answers:"
              " --answers 1 2 3 (or repeat the flag)")
@click.option("--next-review", default=None, help="YYYY-MM-DD (default: in 7 days)")
@click.option("--child", default=None, help="retarget: the linked child batch that takes the assets by reference")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(LANGS), default=None)
@click.pass_context
def decide(ctx, batch, action, reason, by, approver, answers, next_review, child, as_json, lang) -> None:
    """Record a continue / shrink / stop / retarget decision. / 记录继续、缩小、停止或重定目标决策。"""
    try:
        nr = date.fromisoformat(next_review) if next_review else None
    except ValueError:
        raise BadInput(f"--next-review {next_review!r} is not an ISO date (YYYY-MM-DD)") from None
    with _ws(ctx) as wsp:
        lang = _lang(wsp, lang)
        d = service.decide(wsp, batch, action=action, reason=reason, by=by, approver=approver,
                           answers=list(answers), next_review=nr, child=child)
        if as_json:
            return _json(d)
        show_decision(d, lang)


def show_decision(d: dict, lang: str) -> None:
    key = "zh-CN" if lang.startswith("zh") else "en"
    click.echo(t("decision_title", lang, id=d["id"], batch=d["batch"], action=label(d["action"], lang)))
    click.echo(f"  {t('reason', lang)}: {d['reason']}   {t('author', lang)}: {d['by']}"
               + (f"   {t('approver', lang)}: {d['approver']}" if d.get("approver") else ""))
    v = d["verdict"]
    click.echo(f"  {t('verdict', lang)}: {label(v['action'], lang)} ({v.get('rule') or '-'}; {t('verdict_note', lang)})"
               f"   {t('override', lang)}: {t('yes' if d['override'] else 'no', lang)}")
    click.echo(f"  {t('options', lang)}:")
    for o in d["options"]:
        why = (o.get("unknown_why") or {}).get(key)
        rng = "; ".join(f"{label(x['basis'], lang)} {_rng(x)} {x['currency']}" for x in o["cost_to_go"]) or (
            t("unknown", lang) + (f" ({why})" if why else ""))  # never a bare 0 without a currency
        click.echo(f"    {label(o['action'], lang)}: {o['what'][key]} — {rng}")
        if (o.get("estimated_from") or {}).get("text"):
            click.echo(f"      {t('estimated_from', lang)}: {o['estimated_from']['text'][key]}")
    click.echo(f"  {t('sunk', lang)}: " + "; ".join(f"{label(x['basis'], lang)} {_rng(x)} {x['currency']}"
                                                   for x in d["sunk_cost"]))
    click.echo(f"  {t('answers', lang)}: {d['answers'] or t('none', lang)}   {t('supersedes', lang)}:"
               f" {d['supersedes'] or t('none', lang)}   {t('next_review', lang)}: {d['next_review']}")
    click.echo(f"  {t('evidence_hash', lang)}: {d['evidence_sha256']}")
    if d.get("child_batch"):
        click.echo(f"  {t('child', lang, child=d['child_batch'], n=len(d['assets_by_reference']))}")
    click.echo(f"  {t('assets', lang)}:")
    for a in d["reusable_assets"]:
        click.echo(f"    {a['path']} [{storage_label(a['storage_class'], lang)}] {t('owner', lang)} {a['owner']}"
                   f" {t('expiry', lang)} {a['expiry'] or '-'} {t('monthly', lang)} {_monthly(a, lang)}")
    click.echo(f"  {t('unknowns', lang)}:")
    for u in d["unknowns_removed"]:
        b = u["before"]
        name = u["name_zh"] if key == "zh-CN" else u["name"]
        click.echo(f"    {name}: {b['expected']} ({b['low']}–{b['high']}) → {u['after']['value']}")
    for u in d.get("new_unknowns", []):
        click.echo(f"  {t('new_unknowns', lang)}: {u['why_zh'] if key == 'zh-CN' else u['why']}")


def _monthly(asset: dict, lang: str) -> str:
    """A kept object's monthly cost with its currency, or "not priced" — never "None CNY"."""
    if asset.get("monthly_cost") is None:
        return t("not_priced", lang)
    return f"{asset['monthly_cost']} {asset['currency']}"


COMMANDS = (plan, status, alerts, review, decide)
