"""Hand memory the engine no longer needs back to the system between ``attribute``'s stages.

The lake's tables and the engine's frames are Arrow buffers from pyarrow's default pool (mimalloc on
Linux), which keeps freed pages for reuse by later Arrow allocations; Python objects (the summary's
columns, the ledger write's rows, the sheets' figures) cannot use them. At 1M job attempts that held
memory is what put the ledger write and the sheets' precompute above 3 GB (issue 7, bench/bench_jobheavy.py):
``release()`` after the lake's rows and after the engine's result are freed returns it. It changes no value:
only where freed memory lives.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys


def release() -> None:
    """Collect unreachable cycles, then ask pyarrow's pool and glibc's heap to give back their free pages."""
    gc.collect()
    pa = sys.modules.get("pyarrow")  # never imported just for this: nothing to release then
    if pa is not None:
        pa.default_memory_pool().release_unused()
    _trim()


def _trim() -> None:
    """glibc's ``malloc_trim(0)``: free pages inside the heap go back too, not only its top; a no-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return
    trim(0)


__all__ = ["release"]
