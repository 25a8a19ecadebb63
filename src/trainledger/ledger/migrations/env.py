"""Alembic environment for the ledger.

Online runs normally receive an open connection from ``trainledger.ledger.migrate`` (in
``config.attributes["connection"]``, already inside the caller's transaction); given only a URL
it opens its own engine with the same backend hooks. Offline (``--sql``) renders SQL for a URL.
"""

from __future__ import annotations

from alembic import context

from trainledger.ledger.backends import make_engine
from trainledger.ledger.schema import metadata

OPTIONS = {
    "target_metadata": metadata,
    "compare_type": True,
    "render_as_batch": True,  # SQLite ALTERs go through table copies
    "transactional_ddl": True,  # both backends: a failed upgrade leaves nothing half-done
}


def run_offline(config) -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), literal_binds=True, **OPTIONS)
    with context.begin_transaction():
        context.run_migrations()


def run_online(config) -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, **OPTIONS)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine, _ = make_engine(config.get_main_option("sqlalchemy.url"))
    try:
        with engine.connect() as conn:
            context.configure(connection=conn, **OPTIONS)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


# Alembic loads this file as module "env_py"; imported as a package module (by a tool walking
# the package) there is no migration context, and nothing must run.
if not __name__.startswith("trainledger."):
    if context.is_offline_mode():
        run_offline(context.config)
    else:
        run_online(context.config)
