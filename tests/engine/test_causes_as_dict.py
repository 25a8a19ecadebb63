"""RunFacts / Explained ``as_dict`` (two per run in the attribution summary) give exactly what
``dataclasses.asdict`` gave, without its deep copy (review 4 H12: 1M job attempts)."""

from dataclasses import asdict

from trainledger.engine.causes import Explained, RunFacts
from trainledger.i18n.core import Msg


def test_run_facts_as_dict_is_asdict_with_versions_as_a_list():
    f = RunFacts("r1", "b1", "100", "FAILED", "2026-11-01T00:00:00+00:00", tag_cause="oom", retry_of="r0",
                 versions=("d1", "c1", "k1"))
    d = f.as_dict()
    assert d == asdict(f) | {"versions": ["d1", "c1", "k1"]}
    assert list(d) == list(asdict(f))  # field order kept: the summary JSON is byte-identical
    assert RunFacts.from_dict(d) == f


def test_explained_as_dict_keeps_the_messages_and_their_ids():
    e = Explained("r1", "infra_fault", "assumed", Msg("cause.confirmed", by="li"), "fault_retry",
                  review_note="", retry_of="r0")
    d = e.as_dict()
    assert d == asdict(e) | {"cause_source_id": "cause.confirmed", "review_note_id": None}
    assert list(d)[:8] == list(asdict(e))
    assert d["cause_source"] == str(e.cause_source) and d["cause_source"].key == "cause.confirmed"
