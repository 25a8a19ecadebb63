"""The dashboard's view-model and page cache, keyed by the ledger state it was built from.

Building a page reads the workspace whole: ``Workspace.sheet`` verifies the audit chain and every
stored cost line's fingerprint, then sums the batch's lines; the batches list reads every line. On a
workspace with 1M job attempts that is seconds per request. Every write to the ledger — an import,
an attribution, a decision, a plan, a confirmation, a token created or revoked — appends one entry
to the hash-chained audit log (ledger/repo.py), so the figures a page shows are a function of

    state = (the newest audit entry that is not a ``reveal_restricted`` record: id and hash,
             trainledger.toml's size and mtime, today's date in UTC,
             the figure tables' change counters — ledger/tracking.py)

``reveal_restricted`` entries are what the server itself appends when a token was shown a
restricted field (web/auth.py); they change no figure, so a finance reader does not invalidate the
pages. The counters are moved by the database's triggers, by the ledger's writes and by an edit
behind its back alike: such an edit makes the next request build its page again, and its check
declines. ``State.key()`` reads only the entries appended since the previous call (one indexed
query) and the counters (one more), and starts over when the entry it last saw is gone or changed
(another database, a restore).

Bounded LRU maps hold, per state (``figures``: per figures digest):

* ``models`` — the role-independent view model (``Restricted`` fields still wrapped), keyed by
  the page's path and the query parameters its builder reads; and each batch's sheet
  (``Workspace.sheet``), shared by the batch page and its run pages;
* ``figures`` — pieces that depend on the verified figures only, keyed by the figures digest
  (``Pages.memo``: a run page's lines by state), kept across writes that record no figures;
* ``pages`` — the rendered body (HTML or JSON text) with its ``Disclosure``, keyed by the model's
  key plus the requester's ``Access`` (role, batch scope, token), language and form. The role is in
  the key, so a page rendered for ``finance`` is never served to an ``engineer``; the disclosure
  is kept with it so each response is still audited (``auth.audit_reveal``) as it was served.

Another, ``proofs``, keeps the verified proof per audit head (``Pages.proof``), so the batch pages
built at one head verify the ledger once, not once each; and each head's check starts from the
last one (ledger/seal.py): after a decision or a confirmation only the new audit entries are hashed
and the figure tables' change tracking read (ledger/tracking.py: counters the database's triggers
move; the tables themselves are not read while it has not moved), at a server's start the seal
recorded at attribution is checked, and only when neither holds — new figures, or something changed
behind the ledger's back — is the whole ledger verified again (which names the problem). The
figures themselves are precomputed at attribution (report/precompute.py) and used only under a
verified proof of the same figures digest.

A **background prover** (``Pages.recheck`` in a daemon thread, started and stopped with the app)
seals the tables again — what the tracking cannot see, it can — soon after a head was carried on
the tracking's word (woken by ``proof``, ``PROVE_DELAY`` later so the page that woke it is built
first, at most once per ``PROVE_GAP``) and every ``PROVE_EVERY``
seconds without writes. When the seal does not hold it runs the full check; problems found are kept
(``guard``) and every page, a cached one too, answers 409 naming them, until a later check proves
the ledger again (the database restored, or a new attribution). The prover runs off the request
path: at 1M job attempts its seal is ~6 CPU-s in SQLite's C code, which holds no GIL.

A **watcher** (``Pages.watch`` in another daemon thread, every ``WATCH_EVERY`` seconds) looks at the
ledger's state as a request does (one indexed query and the counters) and, when a write moved it,
builds the ``HOT`` pages served most recently for the new state — their proof first, so a write the
seal does not vouch for builds nothing and its reader gets the 409 — so the first reader after a write
finds its page ready instead of paying the build (at 1M job attempts ~0.5-1 CPU-s); a reader who comes
while it is being built waits for that one build. Every build is **single-flight** (``Pages._once``):
per cache and key — the page, its view model, the sheet, the proof of an audit head — one caller
builds while the others asking meanwhile wait for it, at most ``BUILD_WAIT`` seconds (then 503
``StillBuilding`` with Retry-After), and take its value, or its error when it raised one of ours:
readers of a ledger edited behind its back share one full check and each gets its 409 naming the
problems (never kept: a later request checks again). Two parts of a build are kept across states: the
config's sync (``synced``: once per config signature, not 500 batches compared per build) and the
sheet's HTML (``sheet_html``: per the sheet's content, the new head's proof put into the footer), so a
write that changes nothing on a sheet costs its rebuild the view model, not the render.

An entry of an older state is never served: the state is read before the lookup, and a model built
while a write landed is stored under the state read *before* it was built, which no later request
asks for again. Bounds: ``MODELS`` view models, and pages up to ``PAGE_BYTES`` of text in total.
A direct edit of the database that bypasses the audit chain is caught on the next build after a
write (the tracking moved, or the tables' seal differs), by the prover within ``PROVE_EVERY``
seconds without any write, by ``trainledger audit`` or ``trainledger verify``; a page served from
the cache carries the proof it was built with.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from trainledger.errors import TrainledgerError
from trainledger.ledger import seal, tracking
from trainledger.ledger.schema import audit_log

REVEAL = "reveal_restricted"  # web/auth.py audit_reveal: the one entry a read appends
MODELS = 32
PROOFS = 8
FIGURES = 4096  # pieces kept per figures digest (``Pages.memo``): a run page's groups each
GZIP_MIN = 1024  # bytes: smaller bodies are sent as they are
PAGE_BYTES = 256 * 1024 * 1024
PROVE_EVERY = 300.0  # seconds between the background prover's content checks (``Pages.recheck``)
PROVE_GAP = 10.0  # seconds at least between two, however many writes woke it
WATCH_EVERY = 0.25  # seconds between the watcher's looks at the ledger (``Pages.watch``); 0: no watcher
HOT = 8  # pages the watcher builds again after a write: the most recently served
SHEETS_HTML = 32  # rendered sheets kept per content, language and role (``Pages.sheet_html``)
_PROOF_ID, _PROOF_HASH = "tl-proof-head-id-5f0c", "tl-proof-head-hash-9b1e"  # where each head's proof goes
PROVE_DELAY = 2.0  # seconds after a wake before it starts: the request that woke it builds its page first
BUILD_WAIT = 60.0  # seconds a request waits for the build of its page under way (``Pages._once``), then 503
RETRY_AFTER = 5  # seconds: the Retry-After of that 503


class StillBuilding(TrainledgerError):
    """A request waited ``BUILD_WAIT`` seconds for its page's build under way: HTTP 503, try again."""

    http_status = 503


class _Flight:
    """One build under way (``Pages._once``): its waiters wait on ``done``, then read its outcome."""

    __slots__ = ("done", "error", "ok", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.ok, self.value, self.error = False, None, None


class LRU:
    """A thread-safe least-recently-used map bounded by entry count and by a weight per entry."""

    def __init__(self, max_entries: int, max_weight: int | None = None) -> None:
        self.max_entries, self.max_weight = max_entries, max_weight
        self._data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        self.builds = 0  # values made for it by ``Pages._once`` (one per key under way, however many asked)

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            item = self._data.get(key)
            if item is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return item[0]

    def peek(self, key: Hashable) -> Any | None:
        """The value without counting a hit or a miss, nor refreshing its place."""
        with self._lock:
            item = self._data.get(key)
            return None if item is None else item[0]

    def put(self, key: Hashable, value: Any, weight: int = 1) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            if self.max_weight is not None and weight > self.max_weight:
                return  # larger than the whole bound: served, not kept
            self._data[key] = (value, weight)
            self._weight += weight
            while len(self._data) > self.max_entries or (
                    self.max_weight is not None and self._weight > self.max_weight):
                _, (_, w) = self._data.popitem(last=False)
                self._weight -= w

    def __len__(self) -> int:
        return len(self._data)

    @property
    def weight(self) -> int:
        return self._weight

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._weight = 0


class State:
    """The ledger state a workspace's pages depend on, read cheaply per request (module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._ledger = None
        self._config_sig: tuple | None = None
        self._seen: tuple[int, str] | None = None  # the newest entry read, any action
        self._figures: tuple[int, str] | None = None  # the newest entry that is not a reveal

    def _config(self) -> tuple:
        from trainledger.workspace import CONFIG_NAME

        st = os.stat(self.root / CONFIG_NAME)
        return (st.st_size, st.st_mtime_ns, st.st_ino)

    def ledger(self):
        """The workspace's ledger, opened once and again when trainledger.toml changes (its URL
        may have); for the per-request token check, state read and audit appends."""
        from trainledger.ledger.repo import Ledger
        from trainledger.workspace import db_url, load

        sig = self._config()
        with self._lock:
            if self._ledger is None or sig != self._config_sig:
                if self._ledger is not None:
                    self._ledger.close()
                self._ledger = Ledger.open(db_url(load(self.root)))
                self._config_sig, self._seen, self._figures = sig, None, None
            return self._ledger

    def key(self) -> tuple:
        ledger = self.ledger()
        with self._lock:
            sig, seen, figures = self._config_sig, self._seen, self._figures
        q = select(audit_log.c.id, audit_log.c.hash, audit_log.c.action).order_by(audit_log.c.id)
        with ledger._read() as conn:
            rows = conn.execute(q.where(audit_log.c.id >= seen[0])).all() if seen else []
            if not rows or (rows[0].id, rows[0].hash) != seen:  # first call, or the chain was replaced
                newest = conn.execute(q.where(audit_log.c.action != REVEAL).order_by(None)
                                      .order_by(audit_log.c.id.desc()).limit(1)).first()
                head = conn.execute(select(audit_log.c.id, audit_log.c.hash)
                                    .order_by(audit_log.c.id.desc()).limit(1)).first()
                figures = None if newest is None else (newest.id, newest.hash)
                seen = None if head is None else (head.id, head.hash)
            else:
                for r in rows[1:]:
                    if r.action != REVEAL:
                        figures = (r.id, r.hash)
                seen = (rows[-1].id, rows[-1].hash)
            counters = tracking.counters(conn)
        with self._lock:
            if sig == self._config_sig:
                self._seen, self._figures = seen, figures
        return (figures, sig, datetime.now(UTC).date().isoformat(), counters)

    def close(self) -> None:
        with self._lock:
            if self._ledger is not None:
                self._ledger.close()
            self._ledger = None


class Pages:
    """One app's caches (module docstring): ``model(key, build)`` and ``page(key, render)``."""

    def __init__(self, root: str | Path, *, models: int = MODELS, page_bytes: int = PAGE_BYTES,
                 prove_every: float = PROVE_EVERY, prove_gap: float = PROVE_GAP,
                 prove_delay: float = PROVE_DELAY, watch_every: float = WATCH_EVERY,
                 wait: float = BUILD_WAIT) -> None:
        self.state = State(root)
        self.watch_every = watch_every
        self._watcher: threading.Thread | None = None
        self._watched: tuple | None = None  # the state the watcher saw last
        self._hot: OrderedDict[Hashable, Callable[[tuple], Any]] = OrderedDict()  # ``hot``
        self.prebuilt = 0  # pages the watcher built (tests, the benchmark)
        self.prove_every, self.prove_gap, self.prove_delay = prove_every, prove_gap, prove_delay
        self._failed: dict[str, list[str]] = {}  # per ledger URL: what the prover found (``guard``)
        self._wake, self._stop = threading.Event(), threading.Event()
        self._prover: threading.Thread | None = None
        self.rechecks = 0  # content checks the prover finished (tests, the benchmark)
        self.models = LRU(models)
        self.pages = LRU(100_000, page_bytes)
        self.proofs = LRU(PROOFS)
        self.figures = LRU(FIGURES)
        self._verified: dict[str, seal.Verified] = {}  # per ledger URL: the newest state proved (``proof``)
        self.sheets_html = LRU(SHEETS_HTML)
        self._synced: set[tuple] = set()  # (ledger URL, config signature) synced (``synced``)
        self._building: dict[Hashable, _Flight] = {}  # builds under way (``_once``)
        self.wait = wait
        self.joined = 0  # requests that waited for a build under way and got its answer (tests, the benchmark)
        self._lock = threading.Lock()

    def _once(self, cache: LRU, key: Hashable, make: Callable[[], Any], weight: Callable[[Any], int]) -> Any:
        """The cached value, or ``make()`` — single-flight: one caller builds it (a request, or the
        watcher after a write) while every other asking for the same key meanwhile waits for that build,
        at most ``wait`` seconds (then ``StillBuilding``: 503 with Retry-After), and gets its value —
        or its error when the build raised one of ours (``TrainledgerError``: the 404 of a missing
        batch, the 409 naming what was tampered with, found once, not once per waiter; never kept, so
        the next request after it asks again). A build that failed otherwise (a busy database) is
        taken over by one of its waiters. 20 clients opening a cold page build it once, not 20 times."""
        hit = cache.get(key)
        if hit is not None:
            return hit
        ident = (id(cache), key)
        deadline = time.monotonic() + self.wait
        while True:
            with self._lock:
                hit = cache.peek(key)
                if hit is not None:
                    return hit
                flight = self._building.get(ident)
                mine = flight is None
                if mine:
                    flight = self._building[ident] = _Flight()
            if mine:
                return self._build(cache, key, ident, flight, make, weight)
            if not flight.done.wait(max(0.0, deadline - time.monotonic())):
                raise StillBuilding(
                    f"this page is still being built for the ledger's current state (waited {self.wait:g} s)",
                    remedy=f"try again in {RETRY_AFTER} s: the page is kept once built")
            with self._lock:
                self.joined += 1
            if flight.error is not None:
                raise flight.error
            if flight.ok:
                return flight.value
            # the build failed with no answer to share (not one of ours): one waiter builds it again

    def _build(self, cache: LRU, key: Hashable, ident: tuple, flight: _Flight, make: Callable[[], Any],
               weight: Callable[[Any], int]) -> Any:
        """``make()`` as the flight's builder: its value kept and handed to the waiters, or its error."""
        try:
            with self._lock:
                cache.builds += 1
            value = make()
            cache.put(key, value, weight(value))  # before the flight ends: a caller after it finds the value
            flight.value, flight.ok = value, True
            return value
        except TrainledgerError as e:
            flight.error = e  # the same answer for each waiter (its key: path, query, access, state)
            raise
        finally:
            with self._lock:
                self._building.pop(ident, None)
            flight.done.set()

    def model(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The role-independent view model of ``key`` (which starts with ``state.key()``)."""
        return self._once(self.models, key, build, lambda _: 1)

    def sheets(self, state: Hashable, sheet: Callable[[str], dict]) -> Callable[[str], dict]:
        """``Workspace.sheet`` cached per state: the batch page and its run pages share one build.
        Callers must not change the sheet they get (it is shared)."""
        return lambda batch_id: self.model((state, "sheet", batch_id), lambda: sheet(batch_id))

    def proof(self, wsp, state: tuple | None = None) -> Callable[[], dict]:
        """The verified proof of the current audit head, once per head: the batch pages built at
        one head share one check, and pages of other heads wait for none of it. The check is the
        cheapest of ledger/seal.py that holds: ``since`` the state this app verified last (only the
        new audit entries are hashed, the tables sealed by the database), else the seal the chain
        recorded at attribution (a server's first request), else the full verification — which
        names what was tampered with (``wsp.verify``'s LedgerTampered, never kept). ``state``: the
        request's ``State.key()``; its change counters are part of the proof's key."""
        real = wsp.verify

        def verified() -> dict:
            head = wsp.ledger.audit_head()
            if head is None:
                return real()
            counters = state[-1] if state else ()  # an edit without a write moves them: proved again
            # a proof of a later head (a write landed meanwhile) is never asked for again under this
            # head, and the sheet retries with the new one
            return self._once(self.proofs, (wsp.ledger.url, head, counters), lambda: self._prove(wsp.ledger, real),
                              lambda _: 1)
        return verified

    def _prove(self, ledger, real: Callable[[], dict]) -> dict:
        url = ledger.url
        with self._lock:
            base = self._verified.get(url)
        carried = seal.since(ledger, base) if base is not None else None
        found = carried or seal.recorded(ledger)
        if found is None:
            problems, found = seal.full(ledger)
            if problems or found is None:
                return real()  # raises LedgerTampered naming the problems (or proves what full could not)
        with self._lock:  # the next head is checked from this one (any proved state is a sound start)
            self._verified[url] = found
        if carried is not None and carried is not base:
            self._wake.set()  # carried (on the tracking's word): the prover seals the tables again soon
        return found.proof

    # -- the background prover -------------------------------------------------------------------

    def guard(self, url: str) -> None:
        """LedgerTampered when the background prover found this ledger changed behind its back: every
        page then answers 409 (cached ones too) until a later check proves the ledger again."""
        with self._lock:
            problems = self._failed.get(url)
        if problems:
            from trainledger.errors import LedgerTampered

            raise LedgerTampered(
                "the ledger does not match its audit chain (found by the dashboard's background check),"
                " so no page is served from it:\n  " + "\n  ".join(problems),
                remedy="run `trainledger audit` for the details; restore the database from a backup, or run"
                       " `trainledger attribute` to recompute the figures from the lake (recorded in the chain)")

    def recheck(self) -> list[str]:
        """The prover's check, run now: the newest proved state carried to the current head with the
        tables sealed again (``seal.since(..., tracked=False)``: whatever the tracking cannot see —
        ledger/tracking.py), else the recorded seal, else the full verification. Problems found turn
        every page to 409 (``guard``); a later check that proves the ledger turns them back."""
        ledger = self.state.ledger()
        url = ledger.url
        with self._lock:
            base = self._verified.get(url)
        found = (seal.since(ledger, base, tracked=False) if base is not None else None) or seal.recorded(ledger)
        problems: list[str] = []
        if found is None:
            problems, found = seal.full(ledger)
        with self._lock:
            self.rechecks += 1
            if problems:
                self._failed[url] = problems
                self._verified.pop(url, None)
                self.proofs.clear()
            else:
                self._failed.pop(url, None)
                if found is not None:
                    self._verified[url] = found
        return problems

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._wake.wait(self.prove_every):
                self._stop.wait(self.prove_delay)
            self._wake.clear()
            if self._stop.is_set():
                return
            with contextlib.suppress(Exception):  # a busy or vanished database: tried again at the next wake
                self.recheck()
            self._stop.wait(self.prove_gap)

    def start(self) -> None:
        """Start the background prover and the watcher (daemon threads; the app's start-up)."""
        if self._prover is None:
            self._stop.clear()
            self._prover = threading.Thread(target=self._run, name="trainledger-prover", daemon=True)
            self._prover.start()
        if self._watcher is None and self.watch_every:
            self._watcher = threading.Thread(target=self._watch, name="trainledger-watcher", daemon=True)
            self._watcher.start()

    # -- the watcher: pages read recently, built again when a write moves the ledger -------------

    def hot(self, ident: Hashable, rebuild: Callable[[tuple], Any]) -> None:
        """Remember a page just served (``ident``: path, query, access, language, form) and how to
        build it for another state; the ``HOT`` most recent are kept."""
        with self._lock:
            self._hot.pop(ident, None)
            self._hot[ident] = rebuild
            while len(self._hot) > HOT:
                self._hot.popitem(last=False)

    def watch(self) -> int:
        """One look at the ledger (``State.key``: the audit entries since the last look and the
        change counters, ~1 ms): when a write moved it, each hot page is built for the new state —
        the proof first (the seal's check, ledger/seal.py; a failing one builds nothing, and the
        request that asks gets its 409), then the view model and the page, the most recent first — so
        the first reader after the write does not pay the build. Returns the pages built."""
        state = self.state.key()
        with self._lock:
            if state == self._watched or self._failed.get(self.state.ledger().url):
                self._watched = state
                return 0
            first, self._watched = self._watched is None, state
            todo = list(reversed(self._hot.values()))
        if first:  # the server's first look: nothing was built before it
            return 0
        built = 0
        for rebuild in todo:
            if self._stop.is_set() or self.state.key() != state:  # a later write: the next look builds
                break
            with contextlib.suppress(Exception):  # the reader gets the error (a 404, a 409) itself
                rebuild(state)
                built += 1
        with self._lock:
            self.prebuilt += built
        return built

    def _watch(self) -> None:
        while not self._stop.wait(self.watch_every):
            with contextlib.suppress(Exception):  # a busy or vanished database: looked at again next time
                self.watch()

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        """The app's lifespan: the prover runs while the server does."""
        self.start()
        try:
            yield
        finally:
            self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        for name in ("_prover", "_watcher"):
            thread = getattr(self, name)
            if thread is not None:
                thread.join(timeout=30)
                setattr(self, name, None)

    def synced(self, wsp, sig: Hashable) -> Callable[[], None]:
        """``Workspace.sync_config`` once per ledger and config signature (``State``: size, mtime,
        inode): the config's projects and batches are mirrored into the ledger by the first build
        that reads this config, not compared again row by row by every page built after a write
        (500 batches: ~0.1 CPU-s a build). A config edited since is synced again."""
        real = wsp.sync_config

        def sync() -> None:
            key = (wsp.ledger.url, sig)
            with self._lock:
                if key in self._synced:
                    return
            real()
            with self._lock:
                self._synced.add(key)
        return sync

    def sheet_html(self, sheet: dict, lang: str, role: str, render: Callable[[dict], str]) -> str:
        """``render(sheet)`` (report/render.py ``to_html`` for ``lang`` and ``role``), kept per the
        sheet's content: a write that records no figures and changes nothing the sheet shows (a
        token, a decision on another batch, an audit entry) moves only the proof in its footer, so the
        page is rendered once and each head's proof put in (``_PROOF_ID`` / ``_PROOF_HASH``). The
        content is hashed as JSON of everything but the proof's head (``repr`` of a Restricted field:
        its value, kind and masked text), so any other difference renders again."""
        import hashlib
        import json

        proof = sheet.get("ledger") if isinstance(sheet.get("ledger"), dict) else None
        if not proof or "audit_head_id" not in proof or "audit_head_hash" not in proof:
            return render(sheet)
        blank = dict(sheet, ledger={**proof, "audit_head_id": _PROOF_ID, "audit_head_hash": _PROOF_HASH})
        digest = hashlib.sha256(json.dumps(blank, default=repr, ensure_ascii=False).encode("utf-8")).hexdigest()
        html = self._once(self.sheets_html, (digest, lang, role), lambda: render(blank), lambda _: 1)
        return html.replace(_PROOF_ID, str(proof["audit_head_id"])).replace(_PROOF_HASH, str(proof["audit_head_hash"]))

    def memo(self, url: str) -> Callable[[Hashable, Callable[[], Any]], Any]:
        """A cache of pieces that are a function of the verified figures alone (``key`` starts with
        the figures digest, e.g. a run page's lines by state): unlike ``models`` it outlives the
        writes that record no figures. Callers must not change what they get (it is shared)."""
        return lambda key, build: self._once(self.figures, (url, *key), build, lambda _: 1)

    def page(self, key: Hashable, render: Callable[[], tuple[bytes, Any]]) -> tuple[bytes, Any, bytes | None]:
        """(body, Disclosure, the body gzipped once — None when under ``GZIP_MIN`` bytes) of ``key``:
        the model's key, the Access, language and form."""
        def make() -> tuple[bytes, Any, bytes | None]:
            body, seen = render()
            return body, seen, (gzip.compress(body, compresslevel=6, mtime=0) if len(body) >= GZIP_MIN else None)
        return self._once(self.pages, key, make, lambda v: len(v[0]) + len(v[2] or b""))
