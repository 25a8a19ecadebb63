import pytest

from trainledger.errors import BadInput, ConfigError, NotFound, TrainledgerError, WrongFileType


def test_bad_input_names_file_row_and_remedy():
    exc = BadInput("BilledCost 'abc' is not a number", path="bill.csv", row=7, remedy="fix the cell")
    assert str(exc) == "bill.csv, row 7: BilledCost 'abc' is not a number\n  remedy: fix the cell"
    assert (exc.path, exc.row, exc.http_status) == ("bill.csv", 7, 400)


@pytest.mark.parametrize(("cls", "builtin", "status"), [
    (BadInput, ValueError, 400), (WrongFileType, ValueError, 400), (ConfigError, ValueError, 400),
    (NotFound, LookupError, 404)])
def test_tree_and_builtin_mixins(cls, builtin, status):
    exc = cls("x", remedy="y")
    assert isinstance(exc, TrainledgerError) and isinstance(exc, builtin)
    assert exc.http_status == status and exc.remedy == "y"
