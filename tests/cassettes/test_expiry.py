"""The expiry of recorded cassettes: ``max_age`` and ``on_expiry`` in their ``recorded``
header, judged by ``raf cassette lint`` and shown by ``raf cassette show``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from raf.cassettes.expiry import (
    MAX_AGE_FORMS,
    age_text,
    parse_date,
    parse_max_age,
    problems,
    verdict,
)
from raf.cassettes.format import (
    Cassette,
    Expectation,
    Interaction,
    Recorded,
    Request,
    Response,
    ScenarioInfo,
)
from raf.cassettes.lint import lint_file, lint_paths
from raf.cassettes.persister import save
from raf.cassettes.show import recorded_lines
from raf.cli import main

NOW = datetime(2026, 12, 3, 14, 0, tzinfo=UTC)
OCT_1 = "2026-10-01T09:30:00Z"  # 63 days before NOW


def recorded(date: str = OCT_1, **fields: object) -> Recorded:
    return Recorded(date=date, provider="https://api.openai.com", model="gpt-4o", **fields)  # type: ignore[arg-type]


def write(path: Path, header: Recorded | None) -> Path:
    body = b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
    cassette = Cassette(
        interactions=[
            Interaction(
                request=Request(uri="https://api.openai.com/v1/chat/completions", body="{}"),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
            )
        ],
        info=ScenarioInfo(scenario=path.stem, expect=Expectation(text="hi"), recorded=header),
    )
    return save(cassette, path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90m", timedelta(minutes=90)),
        ("12h", timedelta(hours=12)),
        ("30d", timedelta(days=30)),
        ("2w", timedelta(weeks=2)),
    ],
)
def test_max_age_is_a_number_and_a_unit(text: str, expected: timedelta) -> None:
    assert parse_max_age(text) == expected


@pytest.mark.parametrize("text", ["30", "d", "30 d", "30D", "1.5d", "-3d", "0d", "30days", "1y"])
def test_a_bad_max_age_names_the_allowed_forms(text: str) -> None:
    with pytest.raises(ValueError, match="90m, 12h, 30d, 2w"):
        parse_max_age(text)


def test_dates_are_iso_8601_with_a_time_zone() -> None:
    assert parse_date("2026-10-01T09:30:00Z") == datetime(2026, 10, 1, 9, 30, tzinfo=UTC)
    assert parse_date("2026-10-01T11:30:00+02:00") == datetime(2026, 10, 1, 9, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="no time zone"):
        parse_date("2026-10-01T09:30:00")
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_date("last tuesday")
    for edge in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        with pytest.raises(ValueError, match="out of range"):
            parse_date(edge)


def test_the_verdict_says_how_old_against_which_limit() -> None:
    expired = verdict(recorded(max_age="30d"), NOW)
    assert expired is not None
    assert (expired.age.days, expired.limit, expired.action) == (63, timedelta(days=30), "warn")
    assert expired.severity == "warning"
    assert expired.message() == (
        "recorded 2026-10-01, 63 days ago; max_age 30d: re-record it "
        "(raf record ... --mode all, or pytest ... --raf-record-mode all)"
    )
    failing = verdict(recorded(max_age="2w", on_expiry="fail"), NOW)
    assert failing is not None
    assert failing.severity == "error"


def test_no_verdict_without_max_age_or_within_it() -> None:
    assert verdict(recorded(), NOW) is None
    assert verdict(recorded(max_age="10w"), NOW) is None
    assert verdict(recorded(max_age="63d"), NOW + timedelta(minutes=1)) is not None
    assert verdict(recorded(max_age="64d"), NOW) is None
    # what does not parse is a finding of its own, not an expiry
    assert verdict(recorded(max_age="30 days"), NOW) is None
    assert verdict(recorded(date="yesterday", max_age="1d"), NOW) is None


def test_ages_read_as_a_person_says_them() -> None:
    assert age_text(timedelta(minutes=1)) == "1 minute"
    assert age_text(timedelta(minutes=95)) == "95 minutes"
    assert age_text(timedelta(hours=30)) == "30 hours"
    assert age_text(timedelta(days=63, hours=4)) == "63 days"


def test_a_bad_or_future_date_is_its_own_finding() -> None:
    assert problems(recorded(date="2026-13-01T00:00:00Z", max_age="30d"), NOW) == [
        (
            "raf.recorded.date",
            "error",
            "date '2026-13-01T00:00:00Z' is not an ISO 8601 date and time in UTC "
            "(2026-12-03T14:00:00Z)",
        )
    ]
    ((where, severity, message),) = problems(recorded(date="2027-01-01T00:00:00Z"), NOW)
    assert (where, severity) == ("raf.recorded.date", "warning")
    assert "later than now" in message


@pytest.mark.parametrize(
    "header",
    [
        "{date: '0001-01-01T00:00:00+01:00', max_age: 1d}",
        "{date: '2026-10-01T09:30:00Z', max_age: 999999w}",
        "{date: 20261001, max_age: 30d}",
        "{date: '2026-10-01T09:30:00Z', max_age: [30d]}",
        "{date: '2026-10-01T09:30:00Z', max_age: 30d, on_expiry: explode}",
        "[2026-10-01]",
    ],
)
def test_a_malformed_recorded_header_is_reported_never_raised(
    tmp_path: Path, header: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "odd.yaml", None)
    text = path.read_text().replace("raf:\n", f"raf:\n  recorded: {header}\n", 1)
    path.write_text(text)
    findings = lint_file(path, now=NOW)
    assert all(f.severity in ("error", "warning") for f in findings)
    assert main(["cassette", "lint", str(path)]) in (0, 1)
    assert main(["cassette", "show", str(path)]) in (0, 2)
    assert "internal error" not in capsys.readouterr().err


def test_lint_warns_about_an_expired_recording_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "old.yaml", recorded(max_age="30d"))
    (finding,) = lint_file(path, now=NOW)
    assert (finding.severity, finding.where) == ("warning", "raf.recorded.date")
    assert finding.message.startswith("recorded 2026-10-01, 63 days ago; max_age 30d: re-record")
    assert path.read_text().splitlines()[finding.line - 1].strip().startswith("date:")
    assert main(["cassette", "lint", "--now", "2026-12-03T14:00:00Z", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "warning: raf.recorded.date: recorded 2026-10-01, 63 days ago" in out
    assert "0 error(s), 1 warning(s)" in err
    # the same cassette judged a week after recording: current
    assert main(["cassette", "lint", "--now", "2026-10-08T00:00:00Z", str(path)]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().err


def test_lint_fails_an_expired_recording_with_on_expiry_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "old.yaml", recorded(max_age="30d", on_expiry="fail"))
    assert [f.severity for f in lint_paths([tmp_path], now=NOW)] == ["error"]
    assert main(["cassette", "lint", "--now", "2026-12-03T14:00:00Z", str(path)]) == 1
    assert "error: raf.recorded.date: recorded 2026-10-01, 63 days ago" in capsys.readouterr().out


def test_lint_judges_expiry_at_the_current_time_by_default(tmp_path: Path) -> None:
    long_ago = write(tmp_path / "long_ago.yaml", recorded("2001-01-01T00:00:00Z", max_age="1w"))
    assert [f.severity for f in lint_file(long_ago)] == ["warning"]
    forever = write(tmp_path / "forever.yaml", recorded("2001-01-01T00:00:00Z"))
    assert lint_file(forever) == []


def test_no_expiry_without_max_age(tmp_path: Path) -> None:
    assert lint_file(write(tmp_path / "a.yaml", recorded()), now=NOW) == []
    assert lint_file(write(tmp_path / "b.yaml", None), now=NOW) == []


def test_a_bad_max_age_is_a_lint_error_naming_the_forms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "bad.yaml", recorded(max_age="1 month"))
    (finding,) = lint_file(path, now=NOW)
    assert (finding.severity, finding.where) == ("error", "raf.recorded.max_age")
    assert MAX_AGE_FORMS in finding.message
    assert path.read_text().splitlines()[finding.line - 1].strip().startswith("max_age:")
    assert main(["cassette", "lint", str(path)]) == 1
    assert "'1 month' is not a whole number and a unit" in capsys.readouterr().out


def test_a_bad_now_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.yaml", recorded(max_age="30d"))
    assert main(["cassette", "lint", "--now", "tomorrow", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("raf: --now: date 'tomorrow' is not an ISO 8601")
    assert "Traceback" not in err


def test_show_prints_the_recorded_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = recorded(
        max_age="30d", raf_version="1.4.0", fingerprint="sha256:0f1e", on_expiry="fail"
    )
    assert recorded_lines(header, NOW) == [
        "recorded     2026-10-01T09:30:00Z, 63 days ago",
        "provider     https://api.openai.com",
        "model        gpt-4o",
        "raf version  1.4.0",
        "fingerprint  sha256:0f1e",
        "max_age      30d, on expiry fail: EXPIRED (fails raf cassette lint)",
    ]
    fresh = recorded_lines(recorded(max_age="30d"), datetime(2026, 10, 2, 9, 30, tzinfo=UTC))
    assert fresh[0] == "recorded     2026-10-01T09:30:00Z, 24 hours ago"
    assert fresh[-1] == "max_age      30d, on expiry warn: current"
    assert recorded_lines(recorded(), NOW)[-1] == "max_age      none (the recording never expires)"
    ahead = recorded_lines(recorded("2027-01-01T00:00:00Z"), NOW)
    assert ahead[0] == "recorded     2027-01-01T00:00:00Z, later than now"
    path = write(tmp_path / "shown.yaml", header)
    assert main(["cassette", "show", "--no-color", str(path)]) == 0
    out = capsys.readouterr().out
    assert "recorded     2026-10-01T09:30:00Z, " in out
    assert "fingerprint  sha256:0f1e" in out
    assert "max_age      30d, on expiry fail: EXPIRED" in out
