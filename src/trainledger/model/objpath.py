"""Object-store paths in one form: the path stored, and the identity rules match on.

An object is named three ways by the sources that reach trainledger: a URI (``oss://b/k``,
``s3://b/k``; a listing's path column, a checkpoint event, a rule), a bucket and a key (an S3
or OSS inventory, a listing with ``bucket`` and ``key`` columns) or a bare ``b/k`` (a rule, a
listing written without a scheme). Every storage importer stores ``canonical(...)``:

* a URI keeps its scheme, lower-cased, with Hadoop's aliases folded (``S3A://b/k`` → ``s3://b/k``);
* a bucket and key become ``scheme://bucket/key`` when the source names its provider (an S3
  manifest's ``arn:aws:s3:::`` destination, an OSS manifest), else ``bucket/key``.

``identity`` drops the scheme (``oss://b/k`` → ``b/k``): two names of one object have one
identity, so a rule written ``oss://b/ckpt/`` matches an inventory row of bucket ``b`` and key
``ckpt/x`` and a rule written ``b/ckpt/`` matches a row ``oss://b/ckpt/x`` (``under``). Storage
prefix rules, attribution rules on a storage path, successive snapshots of one object and the
bill-against-inventory reconciliation all compare identities.
"""

from __future__ import annotations

import re

_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*)://", re.I)
ALIASES = {"s3a": "s3", "s3n": "s3"}  # Hadoop's names for S3


def scheme_of(path: str | None) -> str | None:
    """``oss://b/k`` → ``oss`` (lower-cased, aliases folded); None without a scheme."""
    m = _SCHEME.match(str(path or "").strip())
    if not m:
        return None
    s = m.group(1).lower()
    return ALIASES.get(s, s)


def canonical(path: str | None = None, *, bucket: str | None = None, key: str | None = None,
              scheme: str | None = None) -> str:
    """The stored form of an object's name (module docstring); ``""`` when nothing names it."""
    text = str(path or "").strip()
    if not text and key:
        text = str(key).strip()
        if bucket and not scheme_of(text):
            text = f"{str(bucket).strip().strip('/')}/{text}"
            if scheme:
                text = f"{scheme.lower()}://{text}"
    own = scheme_of(text)
    if own:
        return f"{own}://{_SCHEME.sub('', text)}"
    return text


def identity(path: str | None) -> str:
    """An object's (or a prefix's) name without its scheme: ``oss://b/k`` → ``b/k``."""
    return _SCHEME.sub("", str(path or "").strip()).lstrip("/")


def under(path: str, prefix: str) -> bool:
    """Whether the object ``path`` lies under the rule prefix ``prefix``, whatever scheme either
    is written with (a prefix is a string prefix of the identity, as it always was)."""
    return identity(path).startswith(identity(prefix))


__all__ = ["ALIASES", "canonical", "identity", "scheme_of", "under"]
