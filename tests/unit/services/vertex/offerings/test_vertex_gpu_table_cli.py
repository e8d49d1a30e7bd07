"""Vertex AI's machine × GPU × count table (Google's "Configure compute resources" page, written
out in ``test_vertex_gpu_table.py`` independently of the catalog) held against what the command line
shows: for every (machine type, GPU) cell, ``gpujob gpus --service vertex`` lists exactly the
table's counts, and no cell the table lacks."""

from __future__ import annotations

import json

import pytest
from test_vertex_gpu_table import CELLS, COUNTS, GPUS, MACHINES

Cells = dict[tuple[str, str], set[int]]
VALID = {cell: counts for cell, counts in CELLS.items() if counts}


def listed(cli, *args: str, code: int = 0) -> Cells:
    """The (machine type, GPU) cells ``gpujob gpus --service vertex --format json ARGS`` shows,
    with their counts."""
    result = cli("gpus", "--service", "vertex", "--format", "json", *args)
    assert result.code == code, result.err
    offerings = json.loads(result.out)["offerings"]
    cells: Cells = {}
    for o in offerings:
        assert (o["machine_type"], o["gpu"]) not in cells, "a cell listed twice"
        cells[o["machine_type"], o["gpu"]] = set(o["counts"])
    return cells


def test_the_whole_listing_is_the_table(cli):
    assert listed(cli) == VALID


@pytest.mark.parametrize("machine", MACHINES)
def test_every_cell_of_a_machine_type(cli, machine):
    """--machine-type M shows the table's row of M; with --gpu G, each cell: exactly its
    counts (exit 0), or nothing (exit 1) where the table has none."""
    row = {cell: counts for cell, counts in VALID.items() if cell[0] == machine}
    assert listed(cli, "--machine-type", machine, code=0 if row else 1) == row
    for gpu in GPUS:
        counts = CELLS.get((machine, gpu), set())
        got = listed(cli, "--machine-type", machine, "--gpu", gpu, code=0 if counts else 1)
        assert got == ({(machine, gpu): counts} if counts else {}), gpu


@pytest.mark.parametrize("gpu", GPUS)
def test_every_cell_of_a_gpu(cli, gpu):
    column = {cell: counts for cell, counts in VALID.items() if cell[1] == gpu}
    assert listed(cli, "--gpu", gpu, code=0 if column else 1) == column


@pytest.mark.parametrize("count", COUNTS)
def test_every_cell_at_a_count(cli, count):
    """--count N keeps exactly the cells whose counts include N, each narrowed to N."""
    expected = {cell: {count} for cell, counts in CELLS.items() if count in counts}
    assert listed(cli, "--count", str(count), code=0 if expected else 1) == expected
