"""Timestamps as the Python API takes them: ISO-8601 text (zone-less read as UTC), datetimes
(naive read as UTC) or epoch milliseconds; and the text forms floe writes back."""

from __future__ import annotations

import datetime as dt
import re

from .exceptions import ValidationError

UTC = dt.timezone.utc
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)

_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?",
    re.IGNORECASE,
)


def _parse_iso(text: str) -> dt.datetime:
    m = _ISO.fullmatch(text.strip())
    if m is None:
        raise ValidationError(
            f"Cannot parse timestamp '{text}': expected ISO-8601 such as '2024-01-15T10:30:00Z' or "
            "'2024-01-15 10:30:00.123' (read as UTC)"
        )
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    tz = UTC
    if zone and zone.upper() != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        tz = dt.timezone(sign * offset)
    try:
        return dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), micros, tzinfo=tz
        )
    except ValueError as e:
        raise ValidationError(f"Cannot parse timestamp '{text}': {e}") from None


def to_micros(value) -> int:
    """Epoch microseconds of a timestamp given as text, a datetime, a date or epoch millis."""
    if isinstance(value, bool):
        raise ValidationError(f"Cannot use {value!r} as a timestamp")
    if isinstance(value, int):
        return value * 1000
    if isinstance(value, str):
        value = _parse_iso(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, dt.date):
        return to_micros(dt.datetime(value.year, value.month, value.day))
    raise ValidationError(
        f"Cannot use {value!r} as a timestamp: give ISO-8601 text, a datetime or epoch milliseconds"
    )


def sql_literal(micros: int) -> str:
    """A quoted SQL timestamp literal with an explicit zone, read the same in any session zone:
    '2024-01-15 10:30:00.123456Z'."""
    when = _EPOCH + dt.timedelta(microseconds=micros)
    return "'" + when.strftime("%Y-%m-%d %H:%M:%S.%f") + "Z'"


def iso_z(value) -> str:
    """A commit time as the Python API shows it: '2024-01-15T10:30:00.123Z' (UTC, millis).
    `value` is a datetime (naive: UTC) or epoch milliseconds."""
    if isinstance(value, int):
        value = _EPOCH + dt.timedelta(milliseconds=value)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def iso_instant(ms: int) -> str:
    """Epoch millis as Iceberg writes an instant in its messages: '2024-01-15T10:30:00+00:00',
    with '.123' when the millis are not zero."""
    when = _EPOCH + dt.timedelta(milliseconds=ms)
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if when.microsecond:
        text += f".{when.microsecond // 1000:03d}"
    return text + "+00:00"
