"""The shape of the project files: a take record (`take-NNN.json`), which fields it must have
and of which JSON type each known field is, and `project.json`. A take record of another shape
is an invalid take: listed with its problem by `drama takes` and made again by the next render,
never read field by field. A `project.json` of another shape stops every command that reads it
(`TakeStore.project`)."""

from __future__ import annotations

import math

_NUMBER = (int, float)
_NONE = type(None)

REQUIRED_FIELDS = ("take", "samples", "duration_s", "wav_sha256")  # the store writes these

FIELD_TYPES: dict[str, tuple] = {
    "take": (int,),
    "samples": (int,),
    "seed": (int, _NONE),
    "slot": (int, _NONE),
    "attempt": (int,),
    "parent_take": (int, _NONE),
    "duration_s": _NUMBER,
    "cache_key": (str, _NONE),
    "wav_sha256": (str,),
    "codes_sha256": (str, _NONE),
    "has_codes": (bool,),
    "scratch": (bool,),
    "drama3_model": (bool, _NONE),
    "normalize": (bool,),
    "text": (str,),
    "display_text": (str, _NONE),
    "speaker": (str, _NONE),
    "note": (str, _NONE),
    "prompt_text": (str, _NONE),
    "notes": (list, _NONE),
    "checks": (dict,),
    "edit": (dict, _NONE),
    "asr": (dict, _NONE),
    "voice": (dict, _NONE),
    "quality": (dict, _NONE),
    "chunks": (list, _NONE),
    "engine": (str,),
    "status": (str,),
}
# inside "asr": read as numbers wherever a take's WER is shown
ASR_FIELD_TYPES: dict[str, tuple] = {"wer": (*_NUMBER, _NONE), "threshold": (*_NUMBER, _NONE)}
# inside "voice" and "quality": read as numbers wherever a take's scores are shown or compared
SCORE_FIELD_TYPES: dict[str, dict[str, tuple]] = {
    "voice": {name: (*_NUMBER, _NONE) for name in ("similarity", "threshold", "voiced_s")},
    "quality": {name: (*_NUMBER, _NONE) for name in ("ovrl", "sig", "bak", "p808", "floor")},
}
SEVERITIES = ("ok", "degraded", "unusable")

_JSON_NAMES = {
    int: "a whole number",
    float: "a number",
    str: "a string",
    bool: "true or false",
    list: "a list",
    dict: "an object",
    _NONE: "null",
}


def record_problem(record) -> str | None:
    """Why `record` (a parsed take record) is not a take record, or None when it is: not a JSON
    object, a required field missing, a known field of the wrong JSON type (a count that is
    not a whole number, `true` where a number belongs, a non-finite length, a speech
    recognition WER or a voice or quality score that is not a number), or checks whose severity is not ok, degraded or
    unusable."""
    if not isinstance(record, dict):
        return f"the record is {json_name(record)}, not a take record"
    missing = [name for name in REQUIRED_FIELDS if name not in record]
    if missing:
        return f"the record has no {', '.join(missing)}"
    for name, types in FIELD_TYPES.items():
        if name in record and not _is_a(record[name], types):
            return f"the record's {_wrong_type(name, record[name], types)}"
    if not math.isfinite(record["duration_s"]) or record["duration_s"] < 0:
        return f"the record's duration_s is {record['duration_s']}"
    severity = record.get("checks", {}).get("severity", "ok")
    if severity not in SEVERITIES:
        return f"the record's checks have severity {severity!r}"
    asr = record.get("asr") or {}
    for name, types in ASR_FIELD_TYPES.items():
        if name in asr and not _is_a(asr[name], types):
            return f"the record's {_wrong_type(f'asr.{name}', asr[name], types)}"
    for field_name, fields in SCORE_FIELD_TYPES.items():
        scores = record.get(field_name) or {}
        for name, types in fields.items():
            if name in scores and not _is_a(scores[name], types):
                return f"the record's {_wrong_type(f'{field_name}.{name}', scores[name], types)}"
    return _timed_items_problem("chunks", record.get("chunks")) or _timed_items_problem(
        "asr words", asr.get("words")
    )


def _timed_items_problem(name: str, items) -> str | None:
    """Why a list of timed items (`chunks`, the speech recognition's `words`) cannot be read:
    each must be an object with numeric `start_s` and `end_s`."""
    if items is None:
        return None
    if not isinstance(items, list) or not all(
        isinstance(item, dict)
        and all(_is_a(item.get(key), _NUMBER) for key in ("start_s", "end_s"))
        for item in items
    ):
        return f"the record's {name} are not a list of timed items"
    return None


PROJECT_FIELD_TYPES: dict[str, tuple] = {
    "script": (str,),
    "script_sha256": (str, _NONE),
    "title": (str, _NONE),
    "engine": (dict,),
    "scratch": (bool,),
    "engine_options": (dict, _NONE),
    "mode": (str,),
    "sampling": (dict, _NONE),
    "seed": (int,),
    "mix": (dict, _NONE),
    "max_chars": (int,),
    "qc": (dict, _NONE),
}


def project_problem(info) -> str | None:
    """Why `info` (a parsed `project.json`) is not a project record, or None when it is: not a
    JSON object, a known field of the wrong JSON type, or saved mix settings whose formats are
    not a list of names or whose options are not an object (their values are checked where
    the mix reads them)."""
    if not isinstance(info, dict):
        return f"it holds {json_name(info)}, not a project record"
    for name, types in PROJECT_FIELD_TYPES.items():
        if name in info and not _is_a(info[name], types):
            return _wrong_type(name, info[name], types)
    mix = info.get("mix") or {}
    formats = mix.get("formats")
    if formats is not None and not (
        isinstance(formats, list) and all(isinstance(name, str) for name in formats)
    ):
        return f"mix.formats is {json_name(formats)}, not a list of format names"
    if mix.get("options") is not None and not isinstance(mix["options"], dict):
        return _wrong_type("mix.options", mix["options"], (dict,))
    return None


def _wrong_type(name: str, value, types: tuple) -> str:
    wanted = " or ".join(dict.fromkeys(_JSON_NAMES[t] for t in types))
    return f"{name} is {json_name(value)}, not {wanted}"


def _is_a(value, types: tuple) -> bool:
    if isinstance(value, bool):  # JSON true/false is no number
        return bool in types
    return isinstance(value, types)


def json_name(value) -> str:
    """What kind of JSON value `value` is, in words ("a list", "a whole number", "true or
    false")."""
    if isinstance(value, bool):
        return "true or false"
    return next(
        (name for kind, name in _JSON_NAMES.items() if isinstance(value, kind)),
        type(value).__name__,
    )
