"""Render orchestration with a fake backend: caching, slots, retries, runaway takes, resuming
after a crash, selection, mix, the MP3 encoder checked first, CLI."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    SR,
    FakeBackend,
    cue_rows,
    cues,
    fake_render,
    first_take_hashes,
    kill_render_when,
    render,
    voice,
    write_script,
)

from drama_cli.backends.base import Capabilities, Generation
from drama_cli.cli import main
from drama_cli.errors import RenderError, UsageError
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore
from engine.text import expected_duration_s


def test_fresh_render_stores_selects_and_mixes(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = FakeBackend()
    report, store = render(path, backend)
    assert len(backend.requests) == 3 and report.exit_code == 0
    assert [line.status for line in report.lines] == ["rendered"] * 3
    selections = store.selections("boathouse")
    assert sorted(selections) == ["boathouse-1", "boathouse-2", "boathouse-3"]
    take = store.takes("boathouse", "boathouse-2")[0]
    assert take.record.engine == "fake" and take.record.model_revision == "r1"
    assert take.record.seed == backend.requests[1].seed
    assert take.record.layout_version and take.record.to_json()["prompt_hash"]
    assert take.record.to_json()["checks"]["passed"] is True and take.record.scratch is False
    rows = cue_rows(cues(store))
    assert [r["line"] for r in rows] == ["boathouse-1", "boathouse-2", "boathouse-3"]
    mix, rate = sf.read(store.scene_dir("boathouse") / "mix.wav")
    total_takes = sum(
        t.duration_s for line in selections for t in [store.selected_take("boathouse", line)]
    )
    assert rate == SR and len(mix) / SR > total_takes
    assert json.loads(store.project_path.read_text())["engine"]["engine"] == "fake"


def test_unchanged_lines_are_never_rendered_again(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    render(path, FakeBackend())
    again = FakeBackend()
    report, _ = render(path, again)
    assert again.requests == [] and [x.status for x in report.lines] == ["reused"] * 3
    write_script(tmp_path, ["We leave at six.", "Not without the OARS.", "Fine."])
    changed = FakeBackend()
    report, store = render(path, changed)
    assert [r.line_id for r in changed.requests] == ["boathouse-2"]
    assert [x.status for x in report.lines] == ["reused", "rendered", "reused"]
    assert store.selected_take("boathouse", "boathouse-2").number == 2


def test_new_engine_revision_or_seed_renders_again(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    render(path, FakeBackend(revision="r1"))
    newer = FakeBackend(revision="r2")
    render(path, newer)
    assert len(newer.requests) == 2
    reseeded = FakeBackend(revision="r2")
    render(path, reseeded, seed=5)
    assert len(reseeded.requests) == 2


def test_takes_slots_fill_up_and_resume(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    backend = FakeBackend()
    render(path, backend, takes=2)
    assert len(backend.requests) == 4
    seeds = [r.seed for r in backend.requests if r.line_id == "boathouse-1"]
    assert len(set(seeds)) == 2
    more = FakeBackend()
    _, store = render(path, more, takes=3)
    assert len(more.requests) == 2
    assert [t.record.slot for t in store.takes("boathouse", "boathouse-1")] == [0, 1, 2]


def test_failing_checks_retry_with_new_seeds_then_degrade(tmp_path):
    path = write_script(tmp_path, ["We leave at six now.", "Fine then."])
    clipped = lambda request, n: (np.clip(voice(1.2) * 30, -1, 1), "eos")  # noqa: E731
    backend = FakeBackend(answer=clipped)
    report, store = render(path, backend, retries=2)
    assert len(backend.requests) == 6  # 1 + 2 retries per line
    seeds = [r.seed for r in backend.requests if r.line_id == "boathouse-1"]
    assert len(set(seeds)) == 3
    assert [x.status for x in report.lines] == ["degraded", "degraded"]
    assert report.exit_code == 3
    assert "clipping" in report.lines[0].message
    takes = store.takes("boathouse", "boathouse-1")
    assert len(takes) == 3 and all(t.record.to_json()["needs_review"] for t in takes)
    assert store.selected_take("boathouse", "boathouse-1").number == 1
    again = FakeBackend(answer=clipped)
    render(path, again, retries=2)
    assert again.requests == []  # exhausted slots are not retried forever


def test_history_context_carries_the_selected_takes(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = FakeBackend()
    _, store = render(path, backend, mode="history")
    first, second, third = backend.requests
    assert first.conversation.layout == "clone" and first.conversation.context == ()
    assert second.conversation.layout == "history"
    context_paths = [Path(e.clip.path) for e in third.conversation.context]
    assert store.selected_take("boathouse", "boathouse-1").wav_path in context_paths
    assert store.selected_take("boathouse", "boathouse-2").wav_path in context_paths
    assert second.text.startswith("<|speaker:1|>") and "oars" in second.text
    assert second.speaker_names[1] == "DESMOND"
    clone = FakeBackend()
    render(path, clone, out=tmp_path / "clone.drama", mode="clone")
    assert all(r.conversation.context == () for r in clone.requests)


def test_line_filter_and_unknown_ids(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = FakeBackend()
    report, store = render(path, backend, lines=("boathouse-2",))
    assert [r.line_id for r in backend.requests] == ["boathouse-2"]
    assert [r["line"] for r in cue_rows(cues(store))] == ["boathouse-2"]
    assert report.scenes[0].missing == ["boathouse-1", "boathouse-3"]
    with pytest.raises(UsageError):
        render(path, FakeBackend(), lines=("nope",))
    with pytest.raises(UsageError):
        render(path, FakeBackend(), scenes=("nope",))
    with pytest.raises(UsageError):
        render(path, FakeBackend(), takes=0)


def test_user_selection_survives_a_render_and_is_dropped_when_the_line_changes(tmp_path):
    from drama_cli.takes.selection import select_take

    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    render(path, FakeBackend(), takes=2)
    script = load_script(str(path))
    store = TakeStore(path.with_suffix(".drama"))
    select_take(script, store, "boathouse-1", 2)
    render(path, FakeBackend(), takes=2)
    assert store.selections("boathouse")["boathouse-1"] == {
        "take": 2,
        "cache_key": store.takes("boathouse", "boathouse-1")[1].cache_key,
        "by": "user",
    }
    assert cue_rows(cues(store))[0]["take"] == 2
    with pytest.raises(UsageError):
        select_take(script, store, "boathouse-1", 9)
    write_script(tmp_path, ["We leave at seven.", "Fine."])
    render(path, FakeBackend())
    assert store.selections("boathouse")["boathouse-1"]["take"] == 3


def test_a_held_lock_refuses_a_second_render(tmp_path):
    path = write_script(tmp_path, ["Fine."])
    store = TakeStore(path.with_suffix(".drama"))
    backend = FakeBackend()
    with store.lock():
        import subprocess  # noqa: E401
        import sys

        code = (
            "import sys\nfrom drama_cli.cli import main\n"
            "sys.exit(main(['render', sys.argv[1], '--engine', 'scratch']))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True
        )
    assert result.returncode == 2 and "in use" in result.stderr
    assert "Traceback" not in result.stderr
    assert backend.requests == [] and not list(store.root.rglob("take-*.wav"))


def test_cli_json_report_and_exit_codes(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry
    from drama_cli.cli import main

    path = write_script(tmp_path, ["We leave at six now.", "Fine then."])
    clipped = lambda request, n: (np.clip(voice(1.2) * 30, -1, 1), "eos")  # noqa: E731
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend(answer=clipped))
    assert main(["render", str(path), "--json", "--retries", "0"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["degraded"] == 2 and report["exit_code"] == 3
    assert report["scenes"][0]["files"]["wav"].endswith("mix.wav")
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["render", str(path), "--out", str(tmp_path / "ok.drama")]) == 0
    assert "rendered 2" in capsys.readouterr().out
    assert main(["takes", str(path), "--out", str(tmp_path / "ok.drama"), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [len(row["takes"]) for row in listing] == [1, 1]
    assert main(["render", str(tmp_path / "missing.yaml")]) == 2
    assert main(["render", str(path), "--mode", "opera"]) == 2
    assert main(["takes", str(path), "--select", "1"]) == 2  # needs one --line
    assert main(["mix", str(path), "--out", str(tmp_path / "none.drama")]) == 2
    assert main(["mix", str(path), "--out", str(tmp_path / "ok.drama"), "--format", "flac"]) == 0
    assert (tmp_path / "ok.drama" / "boathouse" / "mix.flac").exists()


def test_stdin_script_defaults_to_stdin_project(tmp_path, monkeypatch, capsys):
    import io
    import sys

    import drama_cli.backends.registry as registry
    from drama_cli.cli import main

    text = write_script(tmp_path, ["We leave at six."]).read_text()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["render", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["out"] == "stdin.drama"
    assert (tmp_path / "stdin.drama" / "boathouse" / "mix.wav").exists()


def test_labels_and_subtitles_have_no_markup(tmp_path):
    path = write_script(tmp_path, ["[icy calm] We leave <whisper>at six</whisper>. {DESMOND} Go."])
    backend = FakeBackend()
    _, store = render(path, backend)
    assert cue_rows(cues(store))[0]["text"] == "We leave at six. Go."
    assert "<|speaker:1|>" in backend.requests[0].text  # the switch reached the model
    srt = (store.scene_dir("boathouse") / "mix.srt").read_text()
    assert "We leave at six. Go." in srt and "{" not in srt and "[" not in srt


def test_kill_9_mid_render_loses_no_finished_take_and_resumes(tmp_path):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    texts = [
        "We leave at six.",
        "Not without the oars.",
        "Then find them.",
        "They sank.",
        "Then we swim.",
        "Fine.",
    ]
    path = write_script(tmp_path, texts)
    project = tmp_path / "scene.drama"
    # The child holds its third line's generation (retries of a line do not count), so the
    # kill always lands mid-render (two lines finished, four not), however slow the machine is.
    held = tmp_path / "held"
    kill_render_when(
        "len(set(calls)) > 2",
        held,
        ["render", path, "--engine", "scratch", "--out", project],
        lambda: any(held.iterdir()),
        "third generation",
    )
    store = TakeStore(project)
    done_before = first_take_hashes(store, "boathouse", (f"boathouse-{i}" for i in range(1, 7)))
    assert set(done_before) == {"boathouse-1", "boathouse-2"}

    from drama_cli.backends.scratch import ScratchBackend

    report = render_script(load_script(str(path)), store, ScratchBackend(), RenderSettings())
    reused = {x.line_id for x in report.lines if x.status == "reused"}
    assert reused == set(done_before)
    assert report.calls == 6 - len(done_before) and report.exit_code == 0
    for line, digest in done_before.items():
        assert store.selected_take("boathouse", line).record.wav_sha256 == digest
    assert not list(project.rglob("*.tmp"))


def test_a_failing_extra_check_retries_and_is_stored(tmp_path):
    from drama_cli.qc.signal import CheckResult

    calls = []

    def picky(text, audio, speaker):
        calls.append(text)
        ok = len(calls) % 2 == 0  # every second attempt passes
        return (
            CheckResult(
                "asr",
                ok,
                0.1 if ok else 0.9,
                0.25,
                "wer",
                "degraded",
                "" if ok else "heard something else",
            ),
            {"asr": {"wer": 0.1 if ok else 0.9, "transcript": "x"}},
        )

    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    backend = FakeBackend()
    report, store = render(path, backend, checks=[picky])
    assert len(backend.requests) == 4 and report.exit_code == 0
    first, second = store.takes("boathouse", "boathouse-1")
    assert (
        first.record.to_json()["asr"]["wer"] == 0.9
        and "asr" in first.record.to_json()["checks"]["failures"]
    )
    assert (
        second.record.to_json()["checks"]["passed"]
        and store.selected_take("boathouse", "boathouse-1").number == 2
    )


def test_qc_asr_on_scratch_takes_gives_a_low_wer(tmp_path, capsys):
    from drama_cli.cli import main

    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    qc = pytest.importorskip("drama_cli.qc.asr")
    try:
        qc.require_asr()
    except Exception as err:
        pytest.skip(f"speech recognition unavailable: {err}")
    path = write_script(
        tmp_path,
        ["We leave the harbour at six tomorrow morning.", "Not without the oars, we don't."],
    )
    assert main(["render", str(path), "--engine", "scratch", "--qc", "asr", "--json"]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    wers = [row["takes"][0]["wer"] for row in rows]
    assert all(w is not None and w <= 0.25 for w in wers), wers
    assert "harbour" in rows[0]["takes"][0]["transcript"].lower().replace("harbor", "harbour")


def test_a_refused_line_fails_alone_and_the_render_goes_on(tmp_path):
    from engine.errors import EngineError

    def answer(request, n):
        if "oars" in request.text:
            raise EngineError("the prompt leaves no room in the context")
        return voice(1.0), "eos"

    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = FakeBackend(answer=answer)
    report, store = render(path, backend)
    assert [x.status for x in report.lines] == ["rendered", "failed", "rendered"]
    assert "refused" in report.lines[1].message and "no room" in report.lines[1].message
    assert report.exit_code == 1 and report.lines[1].calls == 1
    assert [r["line"] for r in cue_rows(cues(store))] == ["boathouse-1", "boathouse-3"]


def test_long_lines_are_generated_in_chunks_and_joined(tmp_path):
    from drama_cli.render.line import CHUNK_GAP_S

    long_text = " ".join(["The tide was turning and the oars were gone, so we waited."] * 8)
    path = write_script(tmp_path, [long_text])

    def with_codes(request, n):
        frames = 30 + n
        return np.tile(voice(0.1), 30)[: frames * 2048], "eos"

    backend = FakeBackend()
    _, store = render(path, backend)
    chunks = len(backend.requests)
    assert chunks >= 2 and all(r.seed == backend.requests[0].seed for r in backend.requests)
    take = store.takes("boathouse", "boathouse-1")[0]
    pieces = sum(int(expected_duration_s(r.text) * SR) for r in backend.requests)
    assert take.record.samples == pieces + (chunks - 1) * int(CHUNK_GAP_S * SR)
    assert "".join(r.text for r in backend.requests).count("oars") == 8

    from drama_cli.render.line import join_chunks

    parts = []
    for n in (1, 2):
        audio, _ = with_codes(None, n)
        codes = np.full((10, len(audio) // 2048), n, np.int64)
        parts.append(Generation(audio, codes, "eos", {}))
    joined = join_chunks(parts)
    assert joined.codes.shape[1] * 2048 == len(joined.audio)
    plain = [Generation(p.audio, None, "eos", {}) for p in parts]
    gapped = join_chunks(plain)
    assert len(gapped.audio) == len(joined.audio) + int(CHUNK_GAP_S * SR)
    budget = [Generation(parts[0].audio, None, "length", {}), plain[1]]
    assert join_chunks(budget).stop_reason == "length"


class SceneFake(FakeBackend):
    """A fake that also voices whole scene groups (`generate_scene`), or fails to split."""

    capabilities = Capabilities(scene_layout=True, infill=True)

    def __init__(self, split=True, **kwargs):
        super().__init__(**kwargs)
        self.split = split
        self.scene_requests = []

    def generate_scene(self, request, texts, on_frames=None):
        self.scene_requests.append((request, list(texts)))
        if not self.split:
            return None
        audios = [voice(expected_duration_s(t), 130 + 10 * i) for i, t in enumerate(texts)]
        return [Generation(a, None, "eos", {}) for a in audios]


def test_scene_mode_voices_a_group_in_one_call_and_caches_it(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    backend = SceneFake()
    report, store = render(path, backend, mode="scene")
    assert len(backend.scene_requests) == 1 and backend.requests == []
    request, texts = backend.scene_requests[0]
    assert request.conversation.layout == "scene" and len(request.conversation.lines) == 3
    assert texts[1].startswith("<|speaker:1|>") and "oars" in texts[1]
    assert [x.status for x in report.lines] == ["rendered"] * 3 and report.calls == 1
    assert store.takes("boathouse", "boathouse-2")[0].record.layout == "scene"
    assert [r["line"] for r in cue_rows(cues(store))] == [f"boathouse-{i}" for i in (1, 2, 3)]
    again = SceneFake()
    report, _ = render(path, again, mode="scene")
    assert again.scene_requests == [] and [x.status for x in report.lines] == ["reused"] * 3
    write_script(tmp_path, ["We leave at six.", "Not without the OARS.", "Fine."])
    changed = SceneFake()
    report, store = render(path, changed, mode="scene")
    assert len(changed.scene_requests) == 1  # the group is one generation
    assert [len(store.takes("boathouse", f"boathouse-{i}")) for i in (1, 2, 3)] == [2, 2, 2]


def test_scene_mode_reports_the_takes_its_group_conversation_stored(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    report, _ = render(path, SceneFake(), mode="scene", lines=("boathouse-2",))
    assert [x.line_id for x in report.lines] == ["boathouse-2"]
    assert report.new_takes == {f"boathouse-{i}": [1] for i in (1, 2, 3)}
    assert report.lines[0].new_takes == [1]


def test_scene_mode_falls_back_to_history_when_the_output_does_not_split(tmp_path):
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    backend = SceneFake(split=False)
    notices = []
    script = load_script(str(path))
    report = render_script(
        script,
        TakeStore(tmp_path / "p.drama"),
        backend,
        RenderSettings(mode="scene"),
        notice=notices.append,
    )
    assert len(backend.scene_requests) == 1
    assert [r.conversation.layout for r in backend.requests] == ["clone", "history"]
    assert any("history mode" in n for n in notices)
    assert [x.status for x in report.lines] == ["rendered", "rendered"] and report.calls == 3
    assert report.new_takes == {"boathouse-1": [1], "boathouse-2": [1]}
    plain = FakeBackend()
    notices.clear()
    render_script(
        script,
        TakeStore(tmp_path / "q.drama"),
        plain,
        RenderSettings(mode="scene"),
        notice=notices.append,
    )
    assert len(plain.requests) == 2 and "history mode" in notices[0]


@pytest.mark.parametrize(
    "flag",
    [
        "--gap=nan",
        "--gap=inf",
        "--gap=-0.5",
        "--gap=61",
        "--head=-1",
        "--tail=nan",
        "--asr-threshold=nan",
    ],
)
def test_render_refuses_float_options_out_of_range(tmp_path, monkeypatch, capsys, flag):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    extra = ["--qc", "asr"] if flag.startswith("--asr") else []
    assert main(["render", str(path), flag, *extra]) == 2
    assert flag.split("=")[0] in capsys.readouterr().err
    assert not (tmp_path / "scene.drama" / "project.json").exists()


# ------------------------------------------------------------------ public bug cases M1, C2, C4 and A7


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.case("M1")
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
    assert len(takes) == 4 and all(t.record.to_json()["needs_review"] for t in takes)
    assert all(t.record.status == "unusable" for t in takes)
    assert "boathouse-1" not in store.selections("boathouse")
    assert [r["line"] for r in cue_rows(cues(store))] == ["boathouse-2"]
    mix, _ = sf.read(store.scene_dir("boathouse") / "mix.wav")
    assert len(mix) / SR < 10  # the 47 s never reach the mix


@pytest.mark.case("M1")
def test_m1_duration_rule_applies_whatever_the_backend_says(tmp_path):
    path = write_script(tmp_path, ["Hi there."])
    backend = FakeBackend(answer=lambda r, n: (voice(30.0), "eos"))
    report, _ = render(path, backend, retries=1)
    assert report.lines[0].status == "failed" and len(backend.requests) == 2
    assert "runaway" in report.lines[0].message


@pytest.mark.case("M1")
def test_m1_cli_reports_the_line_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry
    from drama_cli.cli import main

    path = write_script(tmp_path, ["Hi there."])
    monkeypatch.setattr(
        registry,
        "make_backend",
        lambda *a, **k: FakeBackend(
            answer=lambda r, n: (np.zeros(47 * SR, np.float32) + voice(47.0), "length")
        ),
    )
    assert main(["render", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-1" in err and "failed" in err and "Traceback" not in err


@pytest.mark.case("C2")
def test_c2_resume_after_a_crash_renders_only_what_is_missing(tmp_path):
    texts = [
        "We leave at six.",
        "Not without the oars.",
        "Then find them.",
        "They sank.",
        "Then we swim.",
        "Fine.",
    ]
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


@pytest.mark.case("C4")
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
        assert np.array_equal(
            first_mix[old_start : old_start + length], new_mix[new_start : new_start + length]
        )
    assert new_cues[2]["start_s"] > first_cues[2]["start_s"]  # the longer v2 shifts line 3


@pytest.mark.case("A7")
def test_a7_missing_mp3_encoder_stops_before_any_backend_call(tmp_path, monkeypatch):
    import drama_cli.mix.export as export

    def no_encoder(fmt):
        if fmt == "mp3":
            raise RenderError("cannot write MP3: no ffmpeg with libmp3lame found; use --format wav")
        return None

    monkeypatch.setattr(export, "require_encoder", no_encoder)
    path = write_script(tmp_path, ["We leave at six."])
    backend = FakeBackend()
    with pytest.raises(RenderError, match="MP3"):
        render(path, backend, formats=("mp3",))
    assert backend.requests == []
    assert not list(tmp_path.rglob("take-*")) and not list(tmp_path.rglob("*.mp3"))


@pytest.mark.case("A7")
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


@pytest.mark.case("A7")
def test_a7_with_the_bundled_encoder_the_mp3_is_real(tmp_path):
    from drama_cli.mix.export import find_mp3_encoder

    if find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder on this machine (ffmpeg or imageio-ffmpeg)")
    path = write_script(tmp_path, ["We leave at six."])
    _, store = render(path, FakeBackend(), formats=("wav", "mp3"))
    data = (store.scene_dir("boathouse") / "mix.mp3").read_bytes()
    if data[:3] == b"ID3":
        size = (
            ((data[6] & 0x7F) << 21)
            | ((data[7] & 0x7F) << 14)
            | ((data[8] & 0x7F) << 7)
            | (data[9] & 0x7F)
        )
        data = data[10 + size :]
    assert len(data) > 1000 and data[0] == 0xFF and (data[1] & 0xE0) == 0xE0
