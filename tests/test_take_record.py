import json

import numpy as np

from drama_cli.script.spoken import Word
from drama_cli.takes.record import record_problem
from drama_cli.takes.store import TakeStore
from drama_cli.takes.take_record import AdoptedFrom, TakeChecks, TakeRecord

OLD_RECORD = {
    "take": 1,
    "samples": 4410,
    "duration_s": 0.1,
    "wav_sha256": "ab" * 32,
    "text": "<|speaker:0|> Hello there.",
    "seed": 7,
}  # before slots, checks, normalize

NEW_RECORD = {
    **OLD_RECORD,
    "slot": None,
    "attempt": 2,
    "normalize": True,
    "speaker": "ANNA",
    "notes": ["louder"],
    "parent_take": 1,
    "engine": "scratch",
    "scratch": True,
    "checks": {
        "passed": False,
        "severity": "degraded",
        "failures": ["asr"],
        "checks": [{"name": "asr", "passed": False, "message": "WER 0.5"}],
    },
    "asr": {
        "wer": 0.5,
        "threshold": 0.2,
        "transcript": "hello there",
        "words": [
            {"text": "Hello", "start_s": 0.01, "end_s": 0.04, "probability": 0.9},
            {"text": "there.", "start_s": 0.05, "end_s": 0.09, "probability": None},
        ],
    },
    "edit": {
        "old_text": "Hi there.",
        "new_text": "Hello there.",
        "span_s": [0.0, 0.04],
        "covered_words": ["Hi"],
        "middle_s": [0.0, 0.05],
        "flagged": True,
        "head_fade_samples": 441,
    },
    "chunks": [
        {"text": "Hello", "start_s": 0.0, "end_s": 0.04},
        {"text": "there.", "start_s": 0.05, "end_s": 0.1},
    ],
    "adopted_from": {"line": "s1-2", "take": 3},
    "backend_info": {"frames": 12},
    "created": "2026-01-01T00:00:00+00:00",
}


def test_a_record_written_before_slots_checks_and_number_settings_reads_as_it_always_meant():
    assert record_problem(OLD_RECORD) is None
    record = TakeRecord.from_json(OLD_RECORD)
    assert (record.slot, record.attempt, record.normalize, record.engine) == (0, 0, None, None)
    assert record.checks == TakeChecks(passed=True, severity="ok")
    assert (record.asr, record.edit, record.chunks, record.notes) == (None, None, (), None)
    assert record.to_json() == OLD_RECORD


def test_a_record_reads_every_field_it_types_and_writes_back_the_same_json():
    assert record_problem(NEW_RECORD) is None
    record = TakeRecord.from_json(NEW_RECORD)
    assert (record.slot, record.attempt, record.notes, record.parent_take) == (
        None,
        2,
        ("louder",),
        1,
    )
    assert (record.checks.severity, record.checks.failures, record.checks.passed) == (
        "degraded",
        ("asr",),
        False,
    )
    assert record.asr.words == (Word("Hello", 0.01, 0.04, 0.9), Word("there.", 0.05, 0.09))
    assert (record.edit.new_text, record.edit.middle_s, record.edit.flagged) == (
        "Hello there.",
        (0.0, 0.05),
        True,
    )
    assert record.chunks == (("Hello", 0.0, 0.04), ("there.", 0.05, 0.1))
    assert record.adopted_from == AdoptedFrom("s1-2", 3)
    assert json.dumps(record.to_json(), sort_keys=True) == json.dumps(NEW_RECORD, sort_keys=True)


def test_the_json_a_record_gives_is_its_own_copy():
    record = TakeRecord.from_json(NEW_RECORD)
    record.to_json()["notes"].append("quieter")
    assert record.to_json()["notes"] == ["louder"]


def test_a_stored_take_gives_the_record_a_later_read_of_its_file_gives(tmp_path):
    store = TakeStore(tmp_path)
    audio = np.zeros(441, np.float32)
    made = store.add_take("s1", "l1", audio, {"seed": 3, "notes": ("a", "b"), "text": "Hi."})
    again = store.takes("s1", "l1")[0]
    assert made.record == again.record and made.record.notes == ("a", "b")
    assert again.record.to_json() == json.loads(again.json_path.read_text(encoding="utf-8"))


def test_a_word_reads_back_from_its_json_form():
    word = Word("Hello", 0.0101, 0.0409, 0.75)
    assert Word.from_dict(word.to_dict()) == Word("Hello", 0.01, 0.041, 0.75)
    assert Word.from_dict({"start_s": 1, "end_s": 2}) == Word("", 1.0, 2.0)
