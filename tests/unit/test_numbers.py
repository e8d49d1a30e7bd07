"""One rule for numbers wherever they are written: ``gpujob.numbers``, and the options that use it
(``gpujob.cli.params``). Config files and ``--set`` are tested with the loader and the schema."""

from __future__ import annotations

import pytest

from gpujob import numbers
from gpujob.numbers import INT64_MAX, NumberError

BASE = ("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n  runtimeVersion: '2.11'\n"
        "  pythonModule: trainer.task\n  packageUris: [gs://my-bucket/t.tar.gz]\n")


@pytest.mark.parametrize("text, value", [
    ("0", 0), ("4", 4), ("0004", 4), ("9223372036854775807", INT64_MAX),
    ("00009223372036854775807", INT64_MAX), ("-0", 0),
])
def test_a_count_is_ascii_digits_within_int64(text, value):
    assert numbers.parse_count(text) == value


@pytest.mark.parametrize("text, message", [
    ("²", "'²' is not a whole number"),  # str.isdigit() is true, int() fails
    ("٣", "'٣' is not a whole number"),  # int() reads it as 3
    ("1_000", "'1_000' is not a whole number"),
    (" 3 ", "' 3 ' is not a whole number"),
    ("3\n", "'3\\n' is not a whole number"),
    ("100.0", "'100.0' is not a whole number"),
    ("1e2", "'1e2' is not a whole number"),
    ("", "'' is not a whole number"),
    ("-1", "must not be negative"),
    ("-99999999999999999999999", "must not be negative"),
    ("9223372036854775808", "9223372036854775808 is more than the maximum, 9223372036854775807"),
    ("9" * 5000, "99999999999999999999…9999 (5,000 characters) is more than the maximum, "
                 "9223372036854775807"),
])
def test_anything_else_is_not_a_count(text, message):
    with pytest.raises(NumberError) as caught:
        numbers.parse_count(text)
    assert str(caught.value) == message


def test_a_count_may_have_a_minimum():
    assert numbers.parse_count("1", minimum=1) == 1
    with pytest.raises(NumberError, match="must be at least 1"):
        numbers.parse_count("0", minimum=1)


@pytest.mark.parametrize("value, count", [
    (7, 7), ("42", 42), (0, 0), (INT64_MAX, INT64_MAX),
    (100.0, None), (True, None), (-1, None), (INT64_MAX + 1, None), ("²", None), ("٣", None),
    ("3\n", None), ("9" * 5000, None), ("9223372036854775808", None), (None, None),
])
def test_config_values_read_as_counts(value, count):
    """What the rules and local runs read: never a float, a bool or a digit of another script."""
    assert numbers.as_count(value) == count


def test_long_integer_text_is_refused_before_int_reads_it():
    with pytest.raises(NumberError, match=r"^number too large \(5,000 digits\)$"):
        numbers.whole("9" * 5000)
    with pytest.raises(NumberError, match="number too large"):
        numbers.whole("f" * 4000, 16)  # int() has no digit limit for base 16: measured after
    assert numbers.whole("-" + "9" * numbers.MAX_DIGITS) == -(10**numbers.MAX_DIGITS - 1)
    assert numbers.whole("ff", 16) == 255


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "+Infinity", "1e999"])
def test_a_float_option_value_is_finite(text):
    with pytest.raises(NumberError, match="is not a finite number"):
        numbers.parse_float(text)


@pytest.mark.parametrize("text, value", [("1.5", 1.5), ("2", 2.0), ("1e3", 1000.0),
                                         (".5", 0.5), ("-0", 0.0)])
def test_float_option_values_in_decimal_notation(text, value):
    assert numbers.parse_float(text) == value


@pytest.mark.parametrize("text", ["٣", "1_0", " 3", "0x10", "", "ten"])
def test_float_option_values_in_other_notations_are_refused(text):
    with pytest.raises(NumberError, match=r"is not a number$"):
        numbers.parse_float(text)


# -- the options ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["wait", "j1", "--timeout", "nan"], "Invalid value for '--timeout': 'nan' is not a finite "
                                         "number"),
    (["wait", "j1", "--timeout", "inf"], "'inf' is not a finite number"),
    (["wait", "j1", "--poll-interval", "nan"], "'nan' is not a finite number"),
    (["wait", "j1", "--request-timeout", "nan"], "'nan' is not a finite number"),
    (["wait", "j1", "--request-timeout", "inf"], "'inf' is not a finite number"),
    # finite, but a socket timeout this long overflows time_t
    (["wait", "j1", "--request-timeout", "1e10"],
     "10000000000.0 is not in the range 0<x<=315360000"),
    (["wait", "j1", "--retry-deadline", "nan"], "'nan' is not a finite number"),
    (["logs", "j1", "--poll-interval", "-inf"], "'-inf' is not a finite number"),
    (["wait", "j1", "--timeout", "٣"], "'٣' is not a number"),
    (["list", "--limit", "1_000"], "'1_000' is not a whole number"),
    (["list", "--max-attempts", "٣"], "'٣' is not a whole number"),
    (["list", "--max-attempts", "99999999999999999999"],
     "99999999999999999999 is more than the maximum, 9223372036854775807"),
    (["gpus", "--count", "²"], "'²' is not a whole number"),
    (["gpus", "--count", "0"], "Invalid value for '--count': must be at least 1"),
])
def test_numeric_options_follow_the_number_rule(cli, args, message):
    """Refused while the command line is read (exit 2), before any credentials are looked for."""
    result = cli(*args)
    assert result.code == 2, result.err
    assert result.out == ""
    assert message in result.err


@pytest.mark.parametrize("flag, value", [("--grace-period", "nan"), ("--grace-period", "inf"),
                                         ("--max-local-replicas", "٣")])
def test_local_run_options_follow_the_number_rule(cli, write, flag, value):
    """``--grace-period nan`` used to make gpujob wait forever for a replica ignoring SIGTERM."""
    for command in (["local"], ["submit", "--local"]):
        result = cli(command[0], write(BASE), *command[1:], flag, value)
        assert result.code == 2, result.err
        assert f"Invalid value for '{flag}'" in result.err
        assert f"'{value}' is not a" in result.err


def test_option_values_from_the_environment_follow_the_rule_too(cli):
    result = cli("wait", "j1", env={"GPUJOB_REQUEST_TIMEOUT": "nan"})
    assert result.code == 2
    assert "(env var: 'GPUJOB_REQUEST_TIMEOUT'): 'nan' is not a finite number" in result.err


def test_option_defaults_still_apply(cli):
    help_text = cli("wait", "--help").out
    assert "--poll-interval SECONDS" in help_text and "default: 10.0" in help_text


@pytest.mark.parametrize(("text", "seconds"), [
    ("7200s", 7200.0), ("0.5s", 0.5), ("0s", 0.0), ("1.000000001s", 1.000000001),
    ("1.0000000001s", None),  # ten decimals: past a Duration's nanoseconds
    ("1e3s", None), ("infs", None), ("-5s", None), ("٣s", None), ("7200", None), (7200, None),
    (None, None)])
def test_a_duration_is_read_as_the_apis_write_it(text, seconds):
    assert numbers.duration_seconds(text) == seconds


@pytest.mark.parametrize(("seconds", "words"), [
    (864000, "10 days"), (86400, "1 day"), (7200, "2 hours"), (5400, "90 minutes"),
    (60, "1 minute"), (90.5, "90.5 seconds"), (1, "1 second"), (315576000000, "3652500 days")])
def test_seconds_are_said_in_the_largest_whole_unit(seconds, words):
    assert numbers.seconds_in_words(seconds) == words
