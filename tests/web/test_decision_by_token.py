"""Who a dashboard decision records (review 3 G15): with a token the decider is the token, whatever
the form types; the typed second approver is kept, marked as stated by that token; the local user
on loopback names people as the command line's ``--by`` does."""

from __future__ import annotations

import pytest

from trainledger.errors import BadInput
from trainledger.i18n import localize
from trainledger.web.auth import Access
from trainledger.web.writes import one, who_decides


def test_a_token_decides_as_itself():
    acc = Access("finance", token_id="ab12cd34")
    by, approver, stated = who_decides(acc, "zhao.min", "wang.lei")
    assert by == "token:ab12cd34"
    assert approver == "wang.lei (as stated by token:ab12cd34)"
    assert localize(approver, "zh-CN") == "wang.lei（由 token:ab12cd34 填写）"
    assert stated == {"stated_by": "zhao.min", "stated_approver": "wang.lei"}  # kept in the web_write entry
    assert who_decides(acc, "", "") == ("token:ab12cd34", None, {})  # the form needs no name


def test_the_local_user_names_people_as_the_command_line():
    acc = Access("admin")
    assert who_decides(acc, "li.na", "wang.lei") == ("li.na", "wang.lei", {})
    with pytest.raises(BadInput, match="no by"):  # the local form must name the decider
        one({"by": [" "]}, "by", required=acc.token_id is None)
