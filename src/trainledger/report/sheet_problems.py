"""The problems a batch sheet carries (review 5 J10): those that concern the batch, and one counted
line per other kind of the workspace's problems — never another batch's job or run names.

A problem of the attribution summary concerns a batch when what it names is the batch's:

    job_id, taken_by    jobs of the batch's runs (``Run.source_job``) — every job it names
    run_id              the batch's runs
    role                a labor role of the batch's lines (``missing_labor_rate``)
    source_sha256       a file one of the batch's lines came from (a time-zone mismatch of that file)

A problem naming none of these is the workspace's (an unpriced queue or storage tier, rows in
quarantine, a capacity not stated): it may concern every batch and names no batch's job or run, so
the first ``SHOWN`` of each such kind are on every sheet. A problem naming a job or run of another
batch (or of none), and the workspace's beyond the first ``SHOWN`` of a kind, are counted per kind:
``{kind: workspace_problems, detail: {of: KIND, count: N}}`` (problems_i18n renders it "job without
a batch × 1,782 more in the workspace …"). ``Index`` is built once per attribution (by
``RetryLinks``, once for every batch the precompute writes); a batch's share is then found from its
runs and lines alone, never by scanning every problem per batch:

    Index(problems).of(run_ids, jobs, roles, shas)   (own problems, {kind: count elsewhere})
    for_sheet(own, elsewhere)                        the sheet's ``problems`` list (JSON-able)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from trainledger.report import problems_i18n

ELSEWHERE = problems_i18n.ELSEWHERE
SHOWN = 3  # the workspace's problems of one kind listed on a sheet (the Markdown shows three a kind too)
JOB_KEYS = ("job_id", "taken_by")


def _names(detail: Mapping[str, Any]) -> tuple[set[str], set[str], str | None, str | None]:
    jobs = {str(detail[k]) for k in JOB_KEYS if detail.get(k) not in (None, "")}
    runs = {str(detail["run_id"])} if detail.get("run_id") not in (None, "") else set()
    role = str(detail["role"]) if detail.get("role") not in (None, "") else None
    sha = str(detail["source_sha256"]) if detail.get("source_sha256") not in (None, "") else None
    return jobs, runs, role, sha


class Index:
    """The summary's problems by the job, run, role and file they name, and their count per kind. A
    problem naming one job only (most of them: a job without a batch, a bad tag) is one dict entry,
    no set: at 1M jobs the index is built in about a second."""

    def __init__(self, problems: Iterable[Mapping[str, Any]]) -> None:
        self.problems = problems if isinstance(problems, list) else list(problems)
        self.counts = Counter(p.get("kind") for p in self.problems)
        self.by_job: dict[str, Any] = {}  # job → a problem's index, or a list of them
        self.by_run: dict[str, list[int]] = defaultdict(list)
        self.by_role: dict[str, list[int]] = defaultdict(list)
        self.by_sha: dict[str, list[int]] = defaultdict(list)
        self.names: dict[int, tuple] = {}  # what a problem naming more than one job names
        self.shown: list[int] = []  # the workspace's problems (naming no batch's anything): SHOWN a kind
        shown = Counter()
        for i, p in enumerate(self.problems):
            detail = p.get("detail")
            if not isinstance(detail, Mapping):
                continue
            job = detail.get("job_id")
            if job and not any(detail.get(k) for k in ("taken_by", "run_id", "role", "source_sha256")):
                self._job(str(job), i)  # names one job: the batch's when that job is
                continue
            jobs, runs, role, sha = got = _names(detail)
            if not (jobs or runs or role or sha):  # names nothing of a batch: the workspace's
                if shown[p.get("kind")] < SHOWN:
                    shown[p.get("kind")] += 1
                    self.shown.append(i)
                continue
            self.names[i] = got
            for j in jobs:
                self._job(j, i)
            for r in runs:
                self.by_run[r].append(i)
            if role is not None:
                self.by_role[role].append(i)
            if sha is not None:
                self.by_sha[sha].append(i)

    def _job(self, job: str, i: int) -> None:
        had = self.by_job.get(job)
        self.by_job[job] = i if had is None else [*had, i] if isinstance(had, list) else [had, i]

    def of(self, run_ids: Iterable[str], jobs: Iterable[str], roles: Iterable[str] = (),
           shas: Iterable[str] = ()) -> tuple[list[dict[str, Any]], dict[str, int]]:
        """(the problems that concern a batch of these runs, jobs, labor roles and source files, in
        the summary's order; {kind: how many others the workspace has}, in the kinds' first-seen order)."""
        run_ids, jobs, roles, shas = set(run_ids), {str(j) for j in jobs if j}, set(roles), set(shas)
        found: set[int] = set(self.shown)
        for j in jobs:
            got = self.by_job.get(j)
            if got is not None:
                found.update(got if isinstance(got, list) else (got,))
        for keys, index in ((run_ids, self.by_run), (roles, self.by_role), (shas, self.by_sha)):
            for k in keys:
                found.update(index.get(k, ()))
        own = []
        for i in sorted(found):
            if i not in self.names:
                own.append(i)  # the workspace's, or it names one job and that job is the batch's
                continue
            named_jobs, named_runs, role, sha = self.names[i]
            if named_jobs <= jobs and named_runs <= run_ids and (role is None or role in roles) \
                    and (sha is None or sha in shas or named_jobs or named_runs):
                own.append(i)  # everything it names is the batch's: no other batch's job or run in it
        mine = Counter(self.problems[i].get("kind") for i in own)
        elsewhere = {str(k): n - mine[k] for k, n in self.counts.items() if n - mine[k] > 0}
        return [dict(self.problems[i]) for i in own], elsewhere


def for_sheet(own: list[Mapping[str, Any]], elsewhere: Mapping[str, int]) -> list[dict[str, Any]]:
    """The sheet's ``problems``: the batch's own (problems_i18n.for_json) then one counted line per
    other kind of the workspace's problems."""
    return ([problems_i18n.for_json(p) for p in own]
            + [problems_i18n.for_json(counted(kind, n)) for kind, n in elsewhere.items()])


def counted(kind: str, n: int) -> dict[str, Any]:
    """The counted line of ``n`` problems of ``kind`` that are not the batch's."""
    detail = {"of": kind, "count": f"{n:,}"}
    return {"kind": ELSEWHERE, "message": problems_i18n.message({"kind": ELSEWHERE, "detail": detail}, "en"),
            "detail": detail}


__all__ = ["ELSEWHERE", "Index", "counted", "for_sheet"]
