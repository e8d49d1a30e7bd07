"""The loader: safe, positioned, bounded, and faithful to what the user wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpujob.config.load import MAX_ALIAS_VALUES, MAX_BYTES, MAX_DEPTH, load_file, loads


def only(result):
    assert result.document is None
    assert len(result.findings) == 1, result.findings
    return result.findings[0]


def test_values_keep_their_positions():
    doc = loads(b"trainingInput:\n  scaleTier: CUSTOM\n  args: [--a, '--b']\n", "c.yaml").document
    assert doc.data == {"trainingInput": {"scaleTier": "CUSTOM", "args": ["--a", "--b"]}}
    assert str(doc.values[("trainingInput", "scaleTier")]) == "c.yaml:2:14"
    assert str(doc.keys[("trainingInput", "scaleTier")]) == "c.yaml:2:3"
    assert str(doc.values[("trainingInput", "args", 1)]) == "c.yaml:3:15"


def test_columns_count_characters_not_bytes():
    doc = loads("labels: {é: x, k: v}\n".encode(), "c.yaml").document
    assert doc.values[("labels", "k")].column == 19


@pytest.mark.parametrize("text, expected", [
    ("no", "no"), ("yes", "yes"), ("on", "on"), ("1:30", "1:30"), ("2024-01-01", "2024-01-01"),
    ("0755", 755), ("0x1f", 31), ("0o17", 15), ("1e3", 1000.0), ("true", True), ("False", False),
    ("~", None), ("", None), ("'4'", "4"), ('"true"', "true"), ("!!str 4", "4"),
    ("!!int '7'", 7), ("!!float 1", 1.0), ("2.10", 2.1), ("1_000", "1_000"),
])
def test_plain_scalars_follow_yaml_1_2(text, expected):
    """YAML 1.1's surprises (no -> False, 1:30 -> 5400, dates) do not happen: as in JSON."""
    doc = loads(f"v: {text}\n".encode(), "c.yaml").document
    assert doc.data["v"] == expected
    assert type(doc.data["v"]) is type(expected)


def test_the_text_of_non_string_scalars_is_kept():
    doc = loads(b"v: 2.10\nw: 'x'\n", "c.yaml").document
    assert doc.texts == {("v",): "2.10"}


def test_json_files_load_with_positions():
    raw = b'{\n\t"trainingInput": {\n\t\t"scaleTier": "BASIC", "args": ["a\\/b", "\\u00e9"]\n\t}\n}'
    doc = loads(raw, "c.json").document
    assert doc.data == {"trainingInput": {"scaleTier": "BASIC", "args": ["a/b", "é"]}}
    assert doc.values[("trainingInput", "scaleTier")].line == 3


def test_duplicate_keys_name_the_key_and_both_lines():
    result = loads(b"trainingInput:\n  masterType: a\n  workerCount: 1\n  masterType: b\n", "c")
    (finding,) = result.findings
    assert finding.rule == "load.duplicate-key"
    assert finding.message == (
        "duplicate key 'masterType' (first written at line 2, again at line 4)")
    assert (finding.location.line, finding.location.column) == (4, 3)
    assert result.document.data["trainingInput"]["masterType"] == "a"


def test_every_duplicate_is_reported():
    result = loads(b"a: 1\na: 2\nb: 1\nb: 2\n", "c")
    assert [f.location.line for f in result.findings] == [2, 4]


def test_python_tags_are_refused_and_never_run(tmp_path: Path):
    marker = tmp_path / "pwned"
    raw = f"a: !!python/object/apply:os.system ['touch {marker}']\n".encode()
    finding = only(loads(raw, "c.yaml"))
    assert finding.rule == "load.tag"
    assert "!!python/object/apply:os.system is not allowed" in finding.message
    assert not marker.exists()


@pytest.mark.parametrize("text", ["a: !foo bar", "a: !!binary aGk=", "a: !!set {x}",
                                  "a: !!timestamp 2024-01-01", "a: !!python/name:os.system ''"])
def test_other_tags_are_refused(text):
    assert only(loads(text.encode(), "c")).rule == "load.tag"


def test_alias_bomb_is_refused_before_expanding():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    finding = only(loads("\n".join(lines).encode(), "bomb.yaml"))
    assert finding.rule == "load.alias-limit"
    assert f"more than {MAX_ALIAS_VALUES}" in finding.message


def test_recursive_alias_is_refused():
    assert only(loads(b"a: &x [1, *x]\n", "c")).rule == "load.alias"


def test_reasonable_aliases_and_merge_keys_work():
    raw = (b"trainingInput:\n"
           b"  masterConfig: &gpu {acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}}\n"
           b"  workerConfig: *gpu\n"
           b"base: &b {x: 1, y: 2}\n"
           b"merged:\n  <<: *b\n  y: 3\n")
    doc = loads(raw, "c.yaml").document
    ti = doc.data["trainingInput"]
    assert ti["workerConfig"] == ti["masterConfig"]
    assert ti["workerConfig"] is not ti["masterConfig"]  # editing one never edits the other
    assert doc.data["merged"] == {"x": 1, "y": 3}  # written keys win over merged ones
    # a value reached through an alias points at the text that defines it
    where = doc.values[("trainingInput", "workerConfig", "acceleratorConfig", "count")]
    line = raw.decode().splitlines()[1]
    assert (where.line, where.column) == (2, line.index("4") + 1)


def test_deep_nesting_is_refused_quickly():
    finding = only(loads(b"[" * 500_000, "deep.yaml"))
    assert finding.rule == "load.depth-limit"
    assert f"deeper than {MAX_DEPTH}" in finding.message


def test_flow_nesting_past_libyamls_own_limit_is_gpujobs_refusal_at_its_limit():
    """libyaml (in PyYAML 6.0.4's wheels) refuses 1,000 flow levels, and its scanner reads that far
    ahead on one line: the refusal must still be gpujob's, where level 33 opens, whatever PyYAML
    release is installed."""
    for levels in (MAX_DEPTH + 8, 1_100):
        finding = only(loads(b"trainingInput: " + b"[" * levels + b"]" * levels, "deep.yaml"))
        assert finding.rule == "load.depth-limit"
        assert finding.message == f"nesting is deeper than {MAX_DEPTH} levels"
        # the root mapping is level 1: level 33 is the 32nd "[", after 15 characters
        assert (finding.location.line, finding.location.column) == (1, 15 + MAX_DEPTH)


def test_block_nesting_is_bounded_too():
    text = "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 5)) + "  " * 40 + "v\n"
    assert only(loads(text.encode(), "c")).rule == "load.depth-limit"


def test_files_over_the_size_limit_are_not_read(tmp_path: Path):
    path = tmp_path / "huge.yaml"
    with path.open("wb") as fh:
        fh.truncate(MAX_BYTES + 1)
    finding = only(load_file(str(path)))
    assert finding.rule == "load.too-large"
    assert "1,048,576-byte limit" in finding.message


def test_a_big_file_under_the_limit_loads():
    raw = ("labels:\n" + "".join(f"  k{i}: v\n" for i in range(60))).encode()
    raw += b"# " + b"x" * (MAX_BYTES - len(raw) - 10) + b"\n"
    assert loads(raw, "c").document is not None


@pytest.mark.parametrize("raw, rule, text", [
    ("a: 1".encode("utf-16"), "load.encoding", "UTF-16"),
    ("a: caf\xe9\n".encode("latin-1"), "load.encoding", "not UTF-8 (byte 0xe9"),
    (b"\x7fELF\x02\x01\x01\x00\x00", "load.binary", "binary file"),
    (b"", "load.empty", "empty"),
    (b"# just a comment\n", "load.empty", "empty"),
    (b"---\n", "load.empty", "empty"),
    (b"- a\n- b\n", "load.not-mapping", "the top level is a list"),
    (b"just words\n", "load.not-mapping", "a single value ('just words')"),
    (b"a: 1\n---\nb: 2\n", "load.multiple-documents", "more than one YAML document"),
    (b"a: [1, 2\n", "load.syntax", "started at line 1, column 4"),
    (b"a: b: c\n", "load.syntax", "mapping values are not allowed in this context"),
    (b"a:\n\t- 1\n", "load.syntax", "a tab character where YAML allows only spaces"),
    (b"? [a]\n: 1\n", "load.key", "must be a string"),
])
def test_unreadable_input_gets_one_clear_message(raw, rule, text):
    finding = only(loads(raw, "c.yaml"))
    assert finding.rule == rule
    assert text in finding.message
    assert finding.hint


@pytest.mark.parametrize("raw, where, message", [
    (b"trainingInput:\n  region: us-cen\x07tral1\n", (2, 17),
     "control character U+0007 is not allowed in YAML"),
    # the position counts characters, and lines as editors count them: libyaml's reader also
    # breaks lines at U+0085 and U+2028, and gives a byte offset
    ("a: [é\u0085\u2028, x\x1b]\n".encode(), (1, 11),
     "control character U+001B is not allowed in YAML"),
    ("a: ok\nb: \ufffe\n".encode(), (2, 4), "character U+FFFE is not allowed in YAML"),
])
def test_characters_yaml_does_not_allow_are_reported_at_their_place(raw, where, message):
    finding = only(loads(raw, "c.yaml"))
    assert finding.rule == "load.syntax"
    assert finding.message == message
    assert (finding.location.line, finding.location.column) == where
    assert finding.hint.startswith("delete it (most editors do not show it)")


def test_non_utf8_position_is_reported():
    finding = only(loads("a: ok\nb: caf\xe9\n".encode("latin-1"), "c.yaml"))
    assert (finding.location.line, finding.location.column) == (2, 7)


def test_utf8_bom_is_accepted():
    assert loads(b"\xef\xbb\xbfa: 1\n", "c").document.data == {"a": 1}


@pytest.mark.parametrize("text", ["a: .inf", "a: -.Inf", "a: .nan"])
def test_non_finite_numbers_are_errors_json_cannot_carry(text):
    result = loads(text.encode(), "c")
    assert [f.rule for f in result.findings] == ["load.number"]


def test_integers_too_long_to_read_are_findings_not_crashes():
    """Python's int() raises for decimal text over 4,300 digits (exit 70 before); base 16 has no
    such limit, but a 4,800-digit value could then not be printed."""
    raw = (b"trainingInput:\n  workerCount: " + b"9" * 5000
           + b"\n  args: [0x" + b"f" * 4000 + b", 12, " + b"9" * 308 + b"]\n"
           + b"  evaluatorCount: !!int " + b"9" * 400 + b"\n")
    result = loads(raw, "c.yaml")
    assert [(f.rule, f.message, str(f.location), f.path) for f in result.findings] == [
        ("load.number", "number too large (5,000 digits)", "c.yaml:2:16",
         ("trainingInput", "workerCount")),
        ("load.number", "number too large (more than 308 digits)", "c.yaml:3:10",
         ("trainingInput", "args", 0)),
        ("load.number", "number too large (400 digits)", "c.yaml:4:19",
         ("trainingInput", "evaluatorCount")),
    ]
    assert result.findings[0].hint == ("no field of a Job holds a number this long; counts are "
                                       "int64, at most 9223372036854775807")
    assert result.document.data["trainingInput"]["args"][1:] == [12, int("9" * 308)]


def test_keys_are_kept_as_written():
    doc = loads(b"labels: {1: a, true: b, null: c, on: d}\n", "c").document
    assert list(doc.data["labels"]) == ["1", "true", "null", "on"]


def test_the_loaded_data_is_plain_json():
    doc = loads(b"a: [1, 2.5, true, null, {b: c}]\n", "c").document
    assert json.loads(json.dumps(doc.data)) == doc.data


def test_missing_file_and_directory(tmp_path: Path):
    assert only(load_file(str(tmp_path / "nope.yaml"))).rule == "load.io"
    assert only(load_file(str(tmp_path))).rule == "load.io"


def test_json_surrogate_pair_escapes_load_as_the_character_they_stand_for():
    """Python's json.dump writes U+1F600 as "\\ud83d\\ude00"; libyaml refuses that escape."""
    text = json.dumps({"trainingInput": {"args": ["ok \U0001F600", "--next"]}})
    assert "\\ud83d\\ude00" in text
    doc = loads(text.encode(), "job.json").document
    assert doc is not None
    assert doc.data == json.loads(text)
    where = doc.values[("trainingInput", "args", 1)]
    assert (where.line, where.column) == (1, text.index('"--next"') + 1)


def test_half_a_surrogate_pair_is_refused_where_it_is_written():
    text = '{"trainingInput": {"args": ["ok", "\\ud83d!"]}}'
    finding = only(loads(text.encode(), "job.json"))
    assert finding.rule == "load.encoding"
    assert "\\ud83d is half of a UTF-16 surrogate pair" in finding.message
    assert finding.path == ("trainingInput", "args", 1)
    assert finding.location.column == text.index('"\\ud83d') + 1
