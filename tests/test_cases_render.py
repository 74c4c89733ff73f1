"""Public bug cases at the render level: M1 (runaway takes), C2 (resume after a crash),
C4 (render part: a revised take is kept, nothing else re-rendered), A7 (MP3 encoder checked
before any backend call). See ../docs/internals/bug-cases.md."""

import hashlib

import numpy as np
import pytest
import soundfile as sf
from fakes import SR, FakeBackend, cue_rows, cues, render, voice, write_script

from drama_cli.errors import RenderError
from drama_cli.takes.store import TakeStore


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_m1_runaway_take_is_retried_flagged_and_kept_out_of_the_mix(tmp_path):
    path = write_script(tmp_path, ["Hi there.", "We row at dawn."])
    rng = np.random.default_rng(0)
    noise = (0.1 * rng.standard_normal(47 * SR)).astype(np.float32)

    def answer(request, n):
        if "Hi there" in request.text:
            return noise, "length"  # budget hit, no end of speech
        return voice(1.0), "eos"

    backend = FakeBackend(answer=answer)
    report, store = render(path, backend, retries=3)
    hi_calls = [r for r in backend.requests if r.line_id == "boathouse-1"]
    assert len(hi_calls) == 4 and len({r.seed for r in hi_calls}) == 4
    outcome = report.lines[0]
    assert outcome.status == "failed" and report.exit_code == 1
    assert "runaway" in outcome.message and outcome.text == "Hi there."
    takes = store.takes("boathouse", "boathouse-1")
    assert len(takes) == 4 and all(t.record["needs_review"] for t in takes)
    assert all(t.record["status"] == "unusable" for t in takes)
    assert "boathouse-1" not in store.selections("boathouse")
    assert [r["line"] for r in cue_rows(cues(store))] == ["boathouse-2"]
    mix, _ = sf.read(store.scene_dir("boathouse") / "mix.wav")
    assert len(mix) / SR < 10  # the 47 s never reach the mix


def test_m1_duration_rule_applies_whatever_the_backend_says(tmp_path):
    path = write_script(tmp_path, ["Hi there."])
    backend = FakeBackend(answer=lambda r, n: (voice(30.0), "eos"))
    report, _ = render(path, backend, retries=1)
    assert report.lines[0].status == "failed" and len(backend.requests) == 2
    assert "runaway" in report.lines[0].message


def test_m1_cli_reports_the_line_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry
    from drama_cli.cli import main

    path = write_script(tmp_path, ["Hi there."])
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend(
        answer=lambda r, n: (np.zeros(47 * SR, np.float32) + voice(47.0), "length")))
    assert main(["render", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-1" in err and "failed" in err and "Traceback" not in err


def test_c2_resume_after_a_crash_renders_only_what_is_missing(tmp_path):
    texts = ["We leave at six.", "Not without the oars.", "Then find them.",
             "They sank.", "Then we swim.", "Fine."]
    path = write_script(tmp_path, texts)
    crashing = FakeBackend(fail_on=4)
    with pytest.raises(RuntimeError):
        render(path, crashing)
    store = TakeStore(path.with_suffix(".drama"))
    kept = {i: store.takes("boathouse", f"boathouse-{i}")[0].wav_path for i in (1, 2, 3)}
    before = {i: sha(p) for i, p in kept.items()}
    data = kept[3].read_bytes()
    kept[3].write_bytes(data[: len(data) // 2])  # a crash mid-write

    second = FakeBackend()
    report, store = render(path, second)
    assert [r.line_id for r in second.requests] == [f"boathouse-{i}" for i in (3, 4, 5, 6)]
    assert sha(kept[1]) == before[1] and sha(kept[2]) == before[2]
    assert [x.status for x in report.lines[:2]] == ["reused", "reused"]
    scan = store.scan("boathouse", "boathouse-3")
    assert 1 in scan.invalid and [t.number for t in scan.valid] == [2]
    assert store.selected_take("boathouse", "boathouse-3").number == 2
    assert [r["line"] for r in cue_rows(cues(store))] == [f"boathouse-{i}" for i in range(1, 7)]

    third = FakeBackend()
    render(path, third)
    assert third.requests == []


def test_c4_render_keeps_a_revised_take_and_renders_nothing_else(tmp_path):
    from drama_cli.edit.revise import revise_line

    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = FakeBackend()
    _, store = render(path, backend)
    first_mix, _ = sf.read(store.scene_dir("boathouse") / "mix.wav", dtype="float32")
    first_cues = cue_rows(cues(store))
    files = {i: store.takes("boathouse", f"boathouse-{i}")[0].wav_path for i in (1, 3)}
    before = {i: sha(p) for i, p in files.items()}

    base = backend.requests[1]
    reviser = FakeBackend(answer=lambda r, n: (voice(2.5, 200), "eos"))
    revision = revise_line(reviser, store, base, "angrier, shorter", select=True)
    assert len(reviser.requests) == 1 and revision.takes[0].number == 2

    after = FakeBackend()
    report, store = render(path, after)
    assert after.requests == []
    assert [x.take for x in report.lines] == [1, 2, 1]
    assert [t.number for t in store.takes("boathouse", "boathouse-2")] == [1, 2]  # v1 kept
    assert {i: sha(p) for i, p in files.items()} == before
    new_cues = cue_rows(cues(store))
    assert new_cues[1]["take"] == 2
    new_mix, _ = sf.read(store.scene_dir("boathouse") / "mix.wav", dtype="float32")
    for i in (0, 2):
        old_start, new_start = (round(c[i]["start_s"] * SR) for c in (first_cues, new_cues))
        length = round((first_cues[i]["end_s"] - first_cues[i]["start_s"]) * SR)
        # No loudness preset: the segments come through sample-identical, line 3 only shifted.
        assert np.array_equal(first_mix[old_start:old_start + length],
                              new_mix[new_start:new_start + length])
    assert new_cues[2]["start_s"] > first_cues[2]["start_s"]  # the longer v2 shifts line 3


def test_a7_missing_mp3_encoder_stops_before_any_backend_call(tmp_path, monkeypatch):
    import drama_cli.mix.export as export

    def no_encoder(fmt):
        if fmt == "mp3":
            raise RenderError("cannot write MP3: no ffmpeg with libmp3lame found; "
                              "use --format wav")
        return None

    monkeypatch.setattr(export, "require_encoder", no_encoder)
    path = write_script(tmp_path, ["We leave at six."])
    backend = FakeBackend()
    with pytest.raises(RenderError, match="MP3"):
        render(path, backend, formats=("mp3",))
    assert backend.requests == []
    assert not list(tmp_path.rglob("take-*")) and not list(tmp_path.rglob("*.mp3"))


def test_a7_cli_names_the_encoder_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry
    import drama_cli.mix.export as export
    from drama_cli.cli import main

    monkeypatch.setattr(export, "find_mp3_encoder", lambda: None)
    if hasattr(export.require_encoder, "cache_clear"):
        export.require_encoder.cache_clear()
    backend = FakeBackend()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: backend)
    path = write_script(tmp_path, ["We leave at six."])
    code = main(["render", str(path), "--format", "mp3"])
    err = capsys.readouterr().err
    assert code != 0 and backend.requests == []
    assert "mp3" in err.lower() and "Traceback" not in err


def test_a7_with_the_bundled_encoder_the_mp3_is_real(tmp_path):
    from drama_cli.mix.export import find_mp3_encoder

    if find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder on this machine (ffmpeg or imageio-ffmpeg)")
    path = write_script(tmp_path, ["We leave at six."])
    _, store = render(path, FakeBackend(), formats=("wav", "mp3"))
    data = (store.scene_dir("boathouse") / "mix.mp3").read_bytes()
    if data[:3] == b"ID3":
        size = ((data[6] & 0x7F) << 21) | ((data[7] & 0x7F) << 14) | ((data[8] & 0x7F) << 7) | (data[9] & 0x7F)
        data = data[10 + size:]
    assert len(data) > 1000 and data[0] == 0xFF and (data[1] & 0xE0) == 0xE0
