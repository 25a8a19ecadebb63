"""Ledger schema revisions, oldest first by ``down_revision``; a package so they ship."""
