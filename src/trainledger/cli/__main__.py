"""``python -m trainledger.cli``: the same entry point as the ``trainledger`` script."""

from trainledger.cli import main

main()
