"""Built-in mappings (``--preset NAME``): one TOML file per source layout; see ``mapping.py``."""
