"""The source-row page shows a GB18030 file's row as the file has it (review 5 J4: a Huawei 资源详单
exported by the console in GB18030 showed every Chinese header and value as replacement characters)."""

from __future__ import annotations

import hashlib

import pytest

from trainledger.web.views import raw_row

TEXT = "账期,产品类型,企业项目,单价,应付金额\n2026-11,对象存储服务,llm-platform,0.01234568,12.34567891\n"


@pytest.mark.parametrize("encoding", ["gb18030", "utf-8", "utf-8-sig", "utf-16"])
def test_the_raw_row_is_decoded_as_the_import_read_it(tmp_path, encoding):
    path = tmp_path / "资源详单.csv"
    path.write_bytes(TEXT.encode(encoding))
    got, note = raw_row(path, hashlib.sha256(path.read_bytes()).hexdigest(), 1)
    assert note == ""
    assert got == {"账期": "2026-11", "产品类型": "对象存储服务", "企业项目": "llm-platform",
                   "单价": "0.01234568", "应付金额": "12.34567891"}


def test_bytes_no_encoding_reads_still_give_the_row_with_replacement(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_bytes(b"a,b\n\x81\x30,2\n")  # neither UTF-8 nor a whole GB18030 sequence
    got, _ = raw_row(path, hashlib.sha256(path.read_bytes()).hexdigest(), 1)
    assert got is not None and got["b"] == "2"
