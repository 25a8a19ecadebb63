"""A declarative vendor mapping against the native FOCUS reader: the same 50,000 bill rows as a
FOCUS CSV and as an Alibaba Cloud split-item bill in GB18030, each imported into a fresh lake
(median of 3). Prints CPU microseconds per row and the mapping's cost as a ratio."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from trainledger.ingest import import_files
from trainledger.lake import Lake

ROWS, REPEATS = 50_000, 3
ALI = ("账期,账单日期,账号ID,Owner账号ID,财务单元,产品,产品Code,计费项,实例ID,实例昵称,分拆项ID,"
       "分拆项名称,实例标签,地域,用量,用量单位,官网价,优惠金额,应付金额,币种\n")
FOCUS = ("BilledCost,ListCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ResourceId,ResourceName,"
         "ServiceCategory,Tags\n")


def _write(d: Path) -> tuple[Path, Path]:
    ali, focus = [ALI], [FOCUS]
    for i in range(ROWS):
        day, cost = 1 + i % 28, f"{i % 997}.{i % 100:02d}"
        ali.append(f"2026-11,2026-11-{day:02d},1,1,ml,ECS,ecs,GPU,i-{i},n{i},i-{i},n{i},"
                   f"key:batch value:b{i % 7},cn-sh,24,h,{i % 1000}.00,0,{cost},CNY\n")
        start = f"2026-11-{day:02d}T00:00:00+08:00"
        focus.append(f'{cost},{i % 1000}.00,{start},2026-11-{day:02d}T23:59:59+08:00,CNY,i-{i},n{i},Compute,'
                     f'"{{""batch"":""b{i % 7}""}}"\n')
    a, f = d / "ali.csv", d / "focus.csv"
    a.write_bytes("".join(ali).encode("gb18030"))
    f.write_text("".join(focus), encoding="utf-8")
    return a, f


def _once(kind: str, path: Path, root: Path) -> float:
    lake = Lake(root)
    t = time.process_time()
    (r,) = import_files(kind, [path], lake, options={"import_date": "2026-12-10"})
    assert r.accepted == ROWS, r
    return (time.process_time() - t) / ROWS * 1e6


def main() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ali, focus = _write(d)
        f_us = statistics.median(_once("focus", focus, d / f"f{i}") for i in range(REPEATS))
        a_us = statistics.median(_once("aliyun", ali, d / f"a{i}") for i in range(REPEATS))
    return [
        (f"import focus ({ROWS:,} rows)", f_us, "CPU-us/row"),
        (f"import aliyun, a mapping ({ROWS:,} rows)", a_us, "CPU-us/row"),
        ("mapping / native", a_us / f_us, "x"),
    ]


if __name__ == "__main__":
    for label, value, unit in main():
        print(f"{label:<45} {value:8.2f} {unit}")
