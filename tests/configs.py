"""Workspace config fragments shared by tests: one project ``p1`` with one batch ``b1``."""

ONE_BATCH = """
[[projects]]
id = "p1"
goal = "g"
[[batches]]
id = "b1"
project = "p1"
goal = "g"
data_snapshot = "d"
data_processing_version = "v"
model_version = "m"
code_version = "c"
config_version = "k"
team = "t"
"""
