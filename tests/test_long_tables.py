"""Long tables (docs/performance.md, "Scale"): beyond `MAX_ROWS` rows, `fairsim validate` and `fairsim run`
show a table's first and last rows and say how many there are (docs/decisions.md)."""

import subprocess
import sys

import pytest
from rich.table import Table

import fairsim
from fairsim.table_parts import END_ROWS, MAX_ROWS, add_rows, shown_rows


def scenario(hosts: int, flows: int) -> str:
    """`flows` FTPs from `hosts` hosts (taken in turn) through a gateway to one sink."""
    names = [f"h{i}" for i in range(hosts)]
    lines = [
        "nodes = [" + ", ".join(f'"{h}"' for h in [*names, "gw", "sink"]) + "]",
        "[scenario]",
        'name = "long"',
        "[run]",
        'duration = "2s"',
        'warmup = "1s"',
        'start_jitter = "100ms"',
        "[links]",
        *(f'{h} = {{ between = ["{h}", "gw"], rate = "100Mbps", delay = "1ms" }}' for h in names),
        'out = { between = ["gw", "sink"], rate = "10Mbps", delay = "5ms", buffer = 50 }',
        "[flows]",
        *(f'f{i} = {{ src = "h{i % hosts}", dst = "sink", app = "ftp", window = 4 }}' for i in range(flows)),
        "[pairs]",
        '"G/FQ" = { transport = "generic", qdisc = "fq" }',
    ]
    return "\n".join(lines) + "\n"


def fairsim_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "fairsim.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def rows_of(stdout: str, title: str) -> list[str]:
    """The lines of the table titled `title`, header and note included, up to the next blank
    line or title."""
    lines = stdout.splitlines()
    start = lines.index(title) + 1
    end = next(
        (i for i in range(start, len(lines)) if not lines[i] or lines[i].startswith("pair ")), len(lines)
    )
    return lines[start:end]


def test_a_table_shows_every_row_up_to_the_limit_and_its_ends_beyond():
    assert shown_rows(MAX_ROWS) == list(range(MAX_ROWS))
    ends = shown_rows(MAX_ROWS + 1)
    assert ends == [*range(END_ROWS), None, *range(MAX_ROWS + 1 - END_ROWS, MAX_ROWS + 1)]
    assert shown_rows(10**6, every=True)[-1] == 10**6 - 1
    built = []
    table = Table("a", "b")

    def row(i):
        built.append(i)
        return [str(i), "x"]

    shown, note = add_rows(table, 10**6, row, "flows", hint="see there")
    assert shown is table
    # only the rows shown are built; a row of … stands for the rest
    assert built == [i for i in shown_rows(10**6) if i is not None]
    assert table.row_count == 2 * END_ROWS + 1
    assert [list(c.cells)[END_ROWS] for c in table.columns] == ["…", "…"]
    assert note.plain == f"(1,000,000 flows: the first {END_ROWS} and last {END_ROWS} shown; see there)"
    short = Table("a")
    assert add_rows(short, 3, lambda i: [str(i)], "flows") == [short]


@pytest.fixture(scope="module")
def long_path(tmp_path_factory):
    # 150 hosts: 302 queues (shown by their ends); 250 flows (by their ends)
    path = tmp_path_factory.mktemp("long") / "long.toml"
    path.write_text(scenario(hosts=150, flows=250))
    return path


def test_validate_shows_the_ends_of_long_tables_and_all_of_them_with_all(long_path):
    r = fairsim_cli("validate", long_path)
    assert r.returncode == 0, r.stderr
    queues = rows_of(r.stdout, "pair G/FQ: queues")
    assert len(queues) == 1 + 2 * END_ROWS + 2  # header, rows, …, note
    assert queues[1].split()[0] == "h0->gw" and queues[-2].split()[0] == "sink->gw"
    assert queues[-1] == "(302 queues: the first 10 and last 10 shown; --all shows every one)"
    flows = rows_of(r.stdout, "pair G/FQ: flows")
    assert [line.split()[0] for line in flows[1:3]] == ["f0", "f1"]
    assert flows[-2].split()[0] == "f249" and flows[-2].endswith("h99 → gw → sink")
    assert flows[-1].startswith("(250 flows: the first 10")
    every = fairsim_cli("validate", long_path, "--all")
    assert every.returncode == 0, every.stderr
    assert len(rows_of(every.stdout, "pair G/FQ: queues")) == 1 + 302
    assert len(rows_of(every.stdout, "pair G/FQ: flows")) == 1 + 250


def test_validate_shows_a_short_table_whole_beside_a_long_one(tmp_path):
    # 2 hosts: 6 queues, every one shown; 250 flows: their ends (the engine is asked for the
    # links and flows that can be shown, which must include every link of the short table)
    path = tmp_path / "few_links.toml"
    path.write_text(scenario(hosts=2, flows=250))
    r = fairsim_cli("validate", path)
    assert r.returncode == 0, r.stderr
    assert len(rows_of(r.stdout, "pair G/FQ: queues")) == 1 + 6
    assert rows_of(r.stdout, "pair G/FQ: flows")[-1].startswith("(250 flows: the first 10")


def test_run_shows_the_ends_of_the_flows_table(long_path):
    res = fairsim.run(long_path, seed=[1, 2])
    text = res["G/FQ"].summary()
    assert "(250 flows: the first 10 and last 10 shown)" in text
    lines = text.splitlines()
    assert any(line.split()[:1] == ["f249"] for line in lines)
    assert not any(line.split()[:1] == ["f10"] for line in lines)
    assert len(res.flows[res.flows.seed == 1]) == 250, "the results keep every flow"


def test_resolved_ends_keep_the_first_and_last_links_and_flows(long_path):
    sc = fairsim.load(long_path)
    assert sc.links[:2] == ["h0", "h1"] and sc.links[-1] == "out" and len(sc.links) == 151
    whole, ends = sc.resolved(), sc.resolved(ends=3)
    assert list(ends["flows"]) == ["f0", "f1", "f2", "f247", "f248", "f249"]
    assert list(ends["links"]) == ["h0", "h1", "h2", "h148", "h149", "out"]
    assert all(ends["flows"][f] == whole["flows"][f] for f in ends["flows"])
    assert ends["run"] == whole["run"]
