"""The ledger conformance suite: every test runs on SQLite and, when configured, PostgreSQL."""
