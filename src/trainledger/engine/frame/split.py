"""bill_lines × holdings → each bill row's route, and each node row's money split per (run, state).

The routing and split of ``engine.compute.bill_stage`` as Ibis expressions (``stage.py`` turns
the result into the same cost lines):

1. ``prepare``: once per row (the backend caches it) — unused commitment → ``reserved_unused``; the first ``focus`` rule
   that matches (decided by the Python matcher over the *distinct* values of the rule fields, so
   exact, prefix, regex, template and ``tags.<key>`` mean what they mean in Python, then joined
   back null-safely) → ``rule``; the row's node is one a GPU run holds → ``node`` (ResourceId,
   its short host name, ResourceName, its short name, in that order, each a node's own name or a
   resource id the node map gives it: ``engine/node_map.py``); a commitment purchase →
   ``commitment_purchase``; else ``no_rule_matched``;
2. ``pieces``: per node row and view (0 billed, 1 effective), the GPU-seconds of each (run, state)
   overlapping its charge period on its node (``W``, integer GPU-µs × ``scale``) and the rest no
   job held (slots × period − used, never below 0; all-zero → the rest gets weight 1);
3. largest remainder in integers, in two levels as ``compute.two_level``: first over the runs
   (each weighing the sum of its states) and the rest no job held, then each run's share over its
   states — so a progress log, which only re-divides a run's GPU-seconds into states, never moves
   a unit between runs, batches and the unattributed bucket. At each level share = ⌊units × w /
   total⌋, the units left over go one each to the largest remainders, ``row_number()`` ordered by
   (remainder desc, idle last, run) then (remainder desc, state) — ``model.allocate``'s order over
   the sorted keys, total and fixed. A run with one state in the row takes its level-one share
   whole (no second window: ⌊got·w/w⌋ = got), and with one view the windows partition by row alone.

The expressions reference each input a few times only: Ibis copies every intermediate into the
expression that uses it, so the node (one left join per candidate name) and the money digits
(padded with zeros as text, ``exact.units``) are built flat instead of as nested cases.

Each piece also carries what rebuilding the Python engine's GPU-hours digit for digit needs: the
decimal exponent of its exact Decimal sum (``exp``: the smallest, over its segments, of the
exponent of the weight per second, ``pn_exp``, plus that of the overlap in seconds). Rows touching
a segment the frame cannot weigh exactly (``holdings.exact``), or whose |units| × total weight is
not below 10**29 (``_rows``: every integer of the split then stays below 10**30, where
``floordiv`` is exact), are not split here (``fallback_rows``; ``may_overflow`` proves from the
maxima when no row can be too large, so the check costs one small aggregate).
"""

from __future__ import annotations

from collections.abc import Sequence

import ibis

from trainledger.engine.frame.exact import DEC, PLAIN, dec, floordiv, units

ROUTES = ("reserved_unused", "rule", "node", "commitment_purchase", "no_rule_matched")  # route column values


def _with_node(t, nodes: ibis.Table):
    """``t`` with ``node``, the held node a row is for: its ResourceId, else the short host name of
    it, else its ResourceName, else that one's short name (null: none is held). ``nodes`` is (name,
    node): each held node under its own name and the resource ids ``[[nodes]]`` gives it
    (``node_map.names``). Each candidate is left-joined to it once, so no text expression is copied
    into another."""
    cands = {}
    for col in ("resource_id", "resource_name"):
        full = t[col].cast("string")
        cands[f"_{col}"], cands[f"_{col}_short"] = full, full.re_extract(r"^([^.]*)", 1)
    order = ("_resource_id", "_resource_id_short", "_resource_name", "_resource_name_short")
    out = t.mutate(**cands)
    names = []
    name = nodes.name if "name" in nodes.columns else nodes.node  # a table of nodes alone: each its own name
    for k, cand in enumerate(order):
        n = nodes.select(**{f"_m{k}": name, f"_n{k}": nodes.node}).distinct()
        out = out.left_join(n, out[cand] == n[f"_m{k}"]).select(out, n[f"_n{k}"])
        names.append(f"_n{k}")
    return out.select(*t.columns, node=ibis.coalesce(*(out[c] for c in names)))


def prepare(bills: ibis.Table, nodes: ibis.Table, rule_map: ibis.Table | None, keys: Sequence[str],
            views: int) -> ibis.Table:
    """idx, p0, p1, route, node, rule_batch, rule_id and each view's money as (units, scale):
    ``u0``/``s0`` BilledCost, ``u1``/``s1`` EffectiveCost — one row per bill row (cached once)."""
    b = bills
    if rule_map is not None:
        m = rule_map
        b = b.left_join(m, [b[k].identical_to(m[f"k{i}"]) for i, k in enumerate(keys)])
        b = b.select(*bills.columns, "rule_batch", "rule_id")
    else:
        b = b.mutate(rule_batch=ibis.null("string"), rule_id=ibis.null("string"))
    b = _with_node(b, nodes)
    node = b.node
    unused = b.commitment_discount_status.fill_null("").lower() == "unused"
    purchase = (b.charge_category.fill_null("").lower() == "purchase") & (b.commitment_discount_id.fill_null("") != "")
    route = ibis.cases((unused, "reserved_unused"), (b.rule_id.notnull(), "rule"), (node.notnull(), "node"),
                       (purchase, "commitment_purchase"), else_="no_rule_matched")
    money = {}
    for view, column in enumerate(("billed_cost", "effective_cost")[:views]):
        u, sc = units(b[column], b.currency)
        money[f"u{view}"], money[f"s{view}"] = ibis.ifelse(b[column].isnull(), ibis.literal(0, DEC), u), sc
    return b.select("idx", "p0", "p1", route=route, node=node, rule_batch=b.rule_batch, rule_id=b.rule_id, **money)


def _fd(us):
    """Digits after the point of ``us`` microseconds as seconds (0 … 6)."""
    return ibis.cases(*((us % 10 ** (6 - k) == 0, k) for k in range(6)), else_=6).cast("int64")


LIMIT = 1e29  # a node row is split here only if float(|units|) × float(total) < LIMIT (see _rows)


def _rows(prepared: ibis.Table, holdings: ibis.Table, *, gpus_per_node: int, scale: int, views: int):
    """(node rows, their (run, state) GPU-seconds ``p``, per row ``used`` / ``rest`` / ``total`` and
    whether the frame may split it: not ``inexact`` (a segment holdings cannot weigh) and not
    ``too_large``.

    The bound: every integer the split computes is at most |units| × total (absu × w with
    w ≤ total, floor × total, a run's share × its state's w). A row is split here only when that
    product, computed in float64 from the same terms, is below ``LIMIT`` = 10**29: float64 is
    within 10**-15 of it, so the exact product is below 10**30, where ``floordiv`` is exact and every
    value fits ``decimal(38,0)``. Rows above (a ``gpu_share`` with 12 decimals makes ``scale`` 10**12;
    a month-long row × a large amount) are split by ``compute.node_split`` (``fallback_rows``).
    Before the guard only the GPU-second sums are decimal: ``gpus_num`` < 2**62 (holdings) × the
    overlap in µs, which fits 38 digits unless one row's overlaps add up to 700,000 years."""
    r = prepared.filter(prepared.route == "node")
    money = r.u0.abs().cast("float64") if views == 1 else ibis.greatest(r.u0.abs().cast("float64"),
                                                                         r.u1.abs().cast("float64"))
    n = r.select("idx", "node", "p0", "p1", money_f=money)
    h = holdings
    j = n.join(h, [n.node == h.node, h.start_us < n.p1, h.end_us > n.p0])
    overlap = ibis.least(j.end_us, j.p1) - ibis.greatest(j.start_us, j.p0)
    j = j.mutate(overlap=overlap).filter(ibis._.overlap > 0)
    j = j.mutate(w=dec(j.gpus_num) * dec(j.overlap), exp=j.pn_exp - _fd(j.overlap),
                 wf=j.gpus_num.cast("float64") * j.overlap.cast("float64"))
    p = j.group_by(["idx", "run_id", "state", "batch_id"]).aggregate(
        w=j.w.sum().cast(DEC), exp=j.exp.min())
    used = j.group_by("idx").aggregate(used=j.w.sum().cast(DEC), used_f=j.wf.sum(),
                                       inexact=(~j.exact).cast("int64").max())
    rows = n.left_join(used, "idx").select(n, used=ibis.coalesce(ibis._.used, ibis.literal(0, DEC)),
                                           used_f=ibis.coalesce(ibis._.used_f, 0.0),
                                           inexact=ibis.coalesce(ibis._.inexact, 0))
    per_us = gpus_per_node * scale  # capacity per µs of the period, in the weights' unit
    period = ibis.greatest(rows.p1 - rows.p0, 0)
    total_f = ibis.greatest(period.cast("float64") * float(per_us), rows.used_f, 1.0)
    too_large = (rows.money_f * total_f >= LIMIT) if per_us < LIMIT else ibis.literal(True)
    rows = rows.mutate(too_large=too_large)
    return r, p, rows, (per_us if per_us < LIMIT else 0)


def pieces(prepared: ibis.Table, holdings: ibis.Table, *, gpus_per_node: int, scale: int,
           views: int) -> ibis.Table:
    """idx, view, is_idle, run_id, state, batch_id, units (signed share), scale, W, exp — every share of
    every split row, idle rest included (share 0 too: ``stage.py`` keeps what Python keeps); rows
    ``fallback_rows`` names are left out."""
    r, p, rows, per_us = _rows(prepared, holdings, gpus_per_node=gpus_per_node, scale=scale, views=views)
    rows = rows.filter((rows.inexact == 0) & ~rows.too_large)
    cap = dec(ibis.greatest(rows.p1 - rows.p0, 0)) * ibis.literal(per_us, DEC)
    rest = ibis.greatest((cap - rows.used).cast(DEC), ibis.literal(0, DEC))
    rest = ibis.ifelse((rest == 0) & (rows.used == 0), ibis.literal(1, DEC), rest).cast(DEC)
    rows = rows.mutate(rest=rest, total=(rows.used + rest).cast(DEC))
    amounts = [r.select("idx", view=ibis.literal(view, "int64"), units=r[f"u{view}"], scale=r[f"s{view}"])
               for view in range(views)]
    am = amounts[0] if len(amounts) == 1 else amounts[0].union(amounts[1])
    am = am.filter(am.units != 0)
    am = am.join(rows.select("idx", "total"), "idx")
    am = am.select("idx", "view", "scale", "total", neg=am.units < 0, absu=am.units.abs().cast(DEC))

    # level one: the runs (each weighing the sum of its states) and the rest no job held; with one
    # view, ``view`` is the constant 0 and left out of the partitions (the same groups)
    views_key = ["view"] if views > 1 else []
    per_run = p.group_by(["idx", "run_id"]).aggregate(w=p.w.sum().cast(DEC), n=p.count())
    top = per_run.select("idx", "run_id", "w", "n", is_idle=ibis.literal(0, "int64")).union(
        rows.select("idx", run_id=ibis.null("string"), w=rows.rest, n=ibis.literal(1, "int64"),
                    is_idle=ibis.literal(1, "int64")))
    top = top.join(am, "idx")
    top = _largest_remainder(top, ["idx", *views_key], ["is_idle", "run_id"])
    top = top.select("idx", "view", "scale", "neg", "is_idle", "run_id", "w", "n", got=top.share)
    # level two: each run's share over its states, weighed by their GPU-seconds; a run with one
    # state here gets its whole share (⌊got·w/w⌋ = got, nothing left over; w = 0 only with got = 0)
    runs = top.filter(top.is_idle == 0).select("idx", "view", "scale", "neg", "run_id", "n", rw=top.w,
                                               got=top.got)
    two = p.join(runs, ["idx", "run_id"])
    two = two.select("idx", "view", "scale", "neg", "run_id", "state", "batch_id", "w", "exp", "n",
                     absu=two.got, total=ibis.greatest(two.rw, ibis.literal(1, DEC)).cast(DEC))
    one = two.filter(two.n == 1)
    one = one.select("idx", "view", "scale", "neg", "run_id", "state", "batch_id", "w", "exp", share=one.absu)
    many = _largest_remainder(two.filter(two.n > 1), ["idx", *views_key, "run_id"], ["state"])
    many = many.select(*one.columns)
    two = one.union(many)
    cols = ("idx", "view", "is_idle", "run_id", "state", "batch_id", "scale", "exp", "units", "W")
    states = two.select("idx", "view", is_idle=ibis.literal(0, "int64"), run_id=two.run_id, state=two.state,
                        batch_id=two.batch_id, scale=two.scale, exp=two.exp, units=_signed(two.neg, two.share), W=two.w)
    idle = top.filter(top.is_idle == 1)
    idle = idle.select("idx", "view", is_idle=idle.is_idle, run_id=ibis.null("string"), state=ibis.null("string"),
                       batch_id=ibis.null("string"), scale=idle.scale, exp=ibis.literal(0, "int64"),
                       units=_signed(idle.neg, idle.got), W=idle.w)
    return states.select(*cols).union(idle.select(*cols))


def _largest_remainder(a: ibis.Table, part: list[str], order: list[str]) -> ibis.Table:
    """``share`` (unsigned units) of ``absu`` for each row by its weight ``w`` of ``total`` (the sum
    of ``w`` over ``part``, or any positive number when every ``w`` there is 0): ⌊absu·w/total⌋, and
    the units left over one each to the largest remainders, ties by ``order`` (``model.allocate``)."""
    prod = (a.absu * a.w).cast(DEC)
    a = a.mutate(prod=prod)
    fl = floordiv(a.prod, a.total)
    a = a.mutate(floor=fl, rem=(a.prod - fl * a.total).cast(DEC))
    win = ibis.window(group_by=part, order_by=[ibis.desc("rem"), *order])
    a = a.mutate(rn=ibis.row_number().over(win),
                 left=(a.absu - a.floor.sum().over(ibis.window(group_by=part))).cast(DEC))
    return a.mutate(share=(a.floor + ibis.ifelse(dec(a.rn) < a.left, ibis.literal(1, DEC),
                                                 ibis.literal(0, DEC))).cast(DEC))


def _signed(neg, share) -> ibis.Value:
    return ibis.ifelse(neg, -share, share).cast(DEC)


def fallback_rows(prepared: ibis.Table, holdings: ibis.Table, *, gpus_per_node: int, scale: int,
                  views: int) -> ibis.Expr:
    """idx of node rows split by Python instead (``compute.node_split``): a row overlapping a run the
    frame cannot weigh exactly, or one whose integers could leave the frame's exact range (``_rows``)."""
    _, _, rows, _ = _rows(prepared, holdings, gpus_per_node=gpus_per_node, scale=scale, views=views)
    return rows.filter((rows.inexact == 1) | rows.too_large).select("idx").distinct()


def may_overflow(prepared: ibis.Table, holdings, *, gpus_per_node: int, views: int) -> bool:
    """False when no node row can be ``too_large``, proved from maxima (one small aggregate): the
    largest |units| × the longest period × max(capacity per µs, Σ every segment's ``gpus_num``)
    bounds every row's |units| × total (``holdings`` is ``holdings.Holdings``)."""
    import pyarrow.compute as pc

    r = prepared.filter(prepared.route == "node")
    got = r.aggregate(**{f"m{v}": r[f"u{v}"].abs().max() for v in range(views)},
                      period=(r.p1 - r.p0).max()).to_pyarrow().to_pylist()[0]
    money = max((abs(int(got[f"m{v}"] or 0)) for v in range(views)), default=0)
    held = pc.sum(pc.cast(holdings.table.column("gpus_num"), "float64")).as_py() or 0.0
    bound = float(money) * float(max(got["period"] or 0, 0)) * max(float(gpus_per_node * holdings.scale), held)
    return bound >= LIMIT / 10  # the float maxima's own rounding: a margin of 10


def not_plain(bills: ibis.Table, column: str) -> ibis.Table:
    """Rows whose money text ``units`` cannot read (exponents, spaces inside): refused, never guessed."""
    t = bills.filter(bills[column].notnull())
    return t.filter(~t[column].strip().re_search(PLAIN)).select("idx", column).limit(3)
