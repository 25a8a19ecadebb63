"""Filesystem primitives of the lake: atomic publication, locks, append-only JSON lines."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: imports into one lake must not overlap
    fcntl = None  # type: ignore[assignment]


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be fsynced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def link_into_place(tmp: Path, final: Path) -> None:
    """Atomically publish ``tmp`` as ``final``; raise FileExistsError if ``final`` exists."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(tmp, final)  # atomic and refuses an existing target
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links: check, then rename (small race window)
        if final.exists():
            raise FileExistsError(final) from None
        os.replace(tmp, final)
    else:
        tmp.unlink()
    _fsync_dir(final.parent)


def file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class FileLock:
    """An exclusive ``flock`` on a file, re-entrant within a process (threads queue on an RLock;
    the flock is taken once, by the outermost holder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._rlock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        self._rlock.acquire()
        try:
            if self._depth == 0:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    if fcntl is not None:
                        fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
            self._depth += 1
        except BaseException:
            self._rlock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        self._rlock.release()


_LOCKS: dict[Path, FileLock] = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(path: Path) -> FileLock:
    with _LOCKS_GUARD:
        lock = _LOCKS.get(path)
        if lock is None:
            lock = _LOCKS[path] = FileLock(path)
        return lock


def _forget_locks() -> None:  # a forked child holds none of its parent's locks
    global _LOCKS_GUARD
    _LOCKS.clear()
    _LOCKS_GUARD = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


def append_line(path: Path, line: bytes) -> None:
    """Append ``line`` (ending in a newline) to ``path`` under an exclusive lock of the file,
    after a newline when the file does not end with one (a line torn by a crash stays alone),
    looping until every byte is written, then fsync."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)  # releases the lock


def alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


def read_jsonl(path: Path, damage: list[int]) -> Iterator[dict[str, Any]]:
    """The JSON objects of ``path``, one per line; a line that is not one is skipped and its
    number appended to ``damage``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                yield obj
            else:
                damage.append(i)
