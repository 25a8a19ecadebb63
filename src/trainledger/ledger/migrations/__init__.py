"""Alembic migration scripts for the ledger (run by ``trainledger.ledger.migrate``).

This is a package only so that the scripts ship with trainledger; nothing imports it.
``env.py`` runs under Alembic, ``versions/`` holds one module per revision.
"""
