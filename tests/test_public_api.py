"""The supported names are exactly these: a test fails when one leaks or goes missing."""

import trainledger
import trainledger.model


def test_top_level_exports():
    assert trainledger.__all__ == sorted(trainledger.__all__)
    assert set(trainledger.__all__) == {
        "BadInput", "ConfigError", "NotFound", "TrainledgerError", "WrongFileType", "__version__"}
    for name in trainledger.__all__:
        assert hasattr(trainledger, name)


def test_model_all_is_sorted_and_complete():
    names = trainledger.model.__all__
    assert list(names) == sorted(names, key=lambda n: (not n.isupper(), n))
    exported = {n for n in vars(trainledger.model) if not n.startswith("_")}
    submodules = {"assets", "batch", "cost", "evidence", "money", "objpath", "prices", "restricted", "vocab"}
    assert exported - submodules == set(names)
