"""The frame's oracle context (``frame/oracle.py``) reads no clock: it is ``engine.attribute``'s."""

from datetime import UTC, date, datetime

from trainledger.engine import Facts, attribute
from trainledger.engine.frame.oracle import context

from .factories import at, bill, job, price_lookup


def test_the_oracle_cuts_where_attribute_cuts_on_any_day(config):
    # an open job (no End) and an as-of day in the future: the old oracle cut at min(now, end of
    # as_of), so its context (capacity's cutoff) moved with the wall clock
    facts = Facts(jobs=(job("1", start=at(0), end=None, row=1),), bill_lines=(bill(at(0), hours=2),))
    ctx = context(facts, config, price_lookup, date(2099, 1, 1))
    assert ctx.cutoff == datetime(2099, 1, 2, tzinfo=UTC)
    assert ctx.facts_time == at(120)  # the bill row's ChargePeriodEnd: the latest fact
    ran = attribute(facts, config, price_lookup, date(2099, 1, 1))
    assert [s.end for s in ctx.runs["1"].segments] == [s.end for s in ran.runs["1"].segments]
    assert ctx.runs["1"].segments[-1].end == at(120)  # the open job ends at the latest fact
    cut = datetime(2026, 11, 2, 1, 0, tzinfo=UTC)
    assert context(facts, config, price_lookup, date(2099, 1, 1), cut).cutoff == cut
