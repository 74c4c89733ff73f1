"""Revision by note: the revise conversation, note chains, one call per take (case C4, revise part)."""

from __future__ import annotations

import numpy as np
import pytest
from fakes import (
    FakeWithCodes,
    boathouse_script,
    fake_render,
    mix_rows,
    mix_segments,
    mix_settings_script,
    write_script,
)

from drama_cli.backends.base import (
    BackendDefaults,
    Capabilities,
    Generation,
    GenerationRequest,
)
from drama_cli.cli import main
from drama_cli.edit.revise import (
    MAX_CONTEXT_TAKES,
    child_seed,
    revise_conversation,
    revise_line,
    revision_chain,
    start_take,
    with_note,
)
from drama_cli.errors import UsageError
from drama_cli.takes.store import TakeStore
from engine.constants import SAMPLE_RATE
from engine.conversation import Conversation

SCENE = "s1"
LINES = {
    "l1": "<|speaker:0|> We leave at six.",
    "l2": "<|speaker:1|> Not without the oars.",
    "l3": "<|speaker:0|> Fine.",
}


class FakeBackend(BackendDefaults):
    """Deterministic fake: a tone whose pitch depends on the seed, codes from the seed."""

    name = "fake"
    scratch = False
    capabilities = Capabilities(infill=True)

    def __init__(self):
        self.requests: list[GenerationRequest] = []

    def identity(self) -> dict:
        return {"engine": "fake"}

    def generate(self, request: GenerationRequest, on_frames=None) -> Generation:
        self.requests.append(request)
        seconds = 0.5 + 0.1 * (request.seed % 5)
        t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
        audio = (0.2 * np.sin(2 * np.pi * (200 + 10 * request.seed) * t)).astype(np.float32)
        codes = np.full((10, int(seconds * 21.5)), request.seed, dtype=np.int64)
        return Generation(audio, codes, "eos")


def base_request(line_id: str, seed: int = 0) -> GenerationRequest:
    conv = Conversation(layout="clone", text=LINES[line_id])
    return GenerationRequest(
        SCENE, line_id, "ANNA", LINES[line_id], conv, "clone-v1", {"temperature": 0.8}, seed
    )


def rendered(tmp_path):
    """A store with one take per line, made by the fake backend (3 calls), all selected."""
    store, backend = TakeStore(tmp_path / "proj"), FakeBackend()
    for k, line_id in enumerate(LINES):
        request = base_request(line_id, seed=k)
        gen = backend.generate(request)
        take = store.add_take(
            SCENE,
            line_id,
            gen.audio,
            {"cache_key": f"key-{line_id}", "seed": k, "text": LINES[line_id]},
            gen.codes,
        )
        store.select(SCENE, line_id, take)
    return store


def test_with_note_puts_the_direction_after_the_speaker_tag():
    assert with_note("<|speaker:1|> Not without the oars.", "angrier, shorter") == (
        "<|speaker:1|> [angrier, shorter versus previous] Not without the oars."
    )
    assert with_note("Fine.", "[softer]") == "[softer versus previous] Fine."
    assert with_note("Fine.", "louder versus previous") == "[louder versus previous] Fine."
    with pytest.raises(UsageError):
        with_note("Fine.", " [ ] ")


@pytest.mark.case("C4")
def test_c4_revise_makes_one_call_keeps_v1_and_leaves_other_takes_alone(tmp_path):
    store = rendered(tmp_path)
    before = {line: store.selected_take(SCENE, line).wav_path.read_bytes() for line in LINES}
    backend = FakeBackend()
    result = revise_line(backend, store, base_request("l2"), "angrier, shorter", select=True)
    assert len(backend.requests) == 1
    (request,) = backend.requests
    conv = request.conversation
    assert conv.layout == "revise" and conv.note == "angrier, shorter versus previous"
    assert conv.text == LINES["l2"]
    (context,) = conv.context
    np.testing.assert_array_equal(
        context.clip.codes, result.parent.codes()
    )  # the parent's exact codes
    assert context.text == LINES["l2"]
    takes = store.takes(SCENE, "l2")
    assert [t.number for t in takes] == [1, 2]  # v1 kept, v2 new
    assert store.selected_take(SCENE, "l2").number == 2
    new = takes[1].record.to_json()
    assert (
        new["parent_take"] == 1
        and new["note"] == "angrier, shorter"
        and new["notes"] == ["angrier, shorter"]
    )
    assert new["cache_key"] == "key-l2" and new["layout"] == "revise"
    assert new["seed"] == child_seed(takes[0].record.seed, 2) != takes[0].record.seed
    for line in ("l1", "l3"):
        assert store.selected_take(SCENE, line).wav_path.read_bytes() == before[line]
        assert len(store.takes(SCENE, line)) == 1
    assert takes[0].wav_path.read_bytes() == before["l2"]


def test_notes_chain_and_context_holds_the_chain(tmp_path):
    store = rendered(tmp_path)
    revise_line(FakeBackend(), store, base_request("l2"), "angrier", select=True)
    backend = FakeBackend()
    second = revise_line(backend, store, base_request("l2"), "but slower", select=True).takes[0]
    conv = backend.requests[0].conversation
    assert [c.text for c in conv.context] == [
        LINES["l2"],
        "<|speaker:1|> [angrier versus previous] Not without the oars.",
    ]
    assert (
        second.record.to_json()["notes"] == ["angrier", "but slower"]
        and second.record.parent_take == 2
    )
    chain = revision_chain(store, SCENE, "l2", second)
    assert [t.number for t in chain] == [1, 2, 3]


def test_from_take_and_several_takes_each_one_call(tmp_path):
    store = rendered(tmp_path)
    revise_line(FakeBackend(), store, base_request("l2"), "angrier", select=True)
    backend = FakeBackend()
    result = revise_line(
        backend, store, base_request("l2"), "warmer", takes=3, seed=40, from_take=1
    )
    assert len(backend.requests) == 3 and [r.seed for r in backend.requests] == [40, 41, 42]
    assert [t.record.parent_take for t in result.takes] == [1, 1, 1]
    assert all(len(r.conversation.context) == 1 for r in backend.requests)
    assert store.selected_take(SCENE, "l2").number == 2  # not selected without --select


def test_context_is_capped_to_the_most_recent_takes(tmp_path):
    store = rendered(tmp_path)
    for note in ("a", "b", "c", "d"):
        revise_line(FakeBackend(), store, base_request("l2"), note, select=True)
    parent = start_take(store, SCENE, "l2")
    chain = revision_chain(store, SCENE, "l2", parent)
    conv = revise_conversation(base_request("l2").conversation, chain, "e")
    assert len(chain) == 5 and len(conv.context) == MAX_CONTEXT_TAKES
    assert conv.meta["parent_take"] == 5


def test_missing_takes_are_usage_errors(tmp_path):
    store = rendered(tmp_path)
    with pytest.raises(UsageError, match="no take 9"):
        revise_line(FakeBackend(), store, base_request("l2"), "x", from_take=9)
    with pytest.raises(UsageError, match="render it first"):
        start_take(TakeStore(tmp_path / "empty"), SCENE, "l2")
    with pytest.raises(UsageError):
        revise_line(FakeBackend(), store, base_request("l2"), "x", takes=0)


def test_engine_prompt_segments_hold_the_parent_codes_and_the_note(tmp_path):
    from engine.prompt import segments

    store = rendered(tmp_path)
    backend = FakeBackend()
    result = revise_line(backend, store, base_request("l2"), "angrier, shorter")
    parts = segments(backend.requests[0].conversation)
    clips = [p for p in parts if not isinstance(p, str)]
    np.testing.assert_array_equal(clips[-1].codes, result.parent.codes())
    texts = [p for p in parts if isinstance(p, str)]
    assert "<|speaker:1|> [angrier, shorter versus previous] Not without the oars." in texts
    # the recorded prompt text is what the engine wrote, so a later revision replays it exactly
    assert result.takes[0].record.prompt_text in texts


# ------------------------------------------------------------------ case C4 through render and mix

SCRIPT = boathouse_script()


def rendered_project(tmp_path, settings=None, text=SCRIPT, mix=None):
    """The boathouse scene written to `scene.yaml` and rendered with the fake (the render
    runs the signal checks on its takes as on real ones): (script path, script, store,
    backend)."""
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.takes.jobs import RenderSettings

    path = tmp_path / "scene.yaml"
    path.write_text(text)
    script = load_script(path)
    store = TakeStore(tmp_path / "scene.drama")
    backend = FakeBackend()
    report = render_script(
        script, store, backend, settings or RenderSettings(), **({"mix": mix} if mix else {})
    )
    assert report.calls == 3
    return path, script, store, backend


@pytest.mark.case("C4")
def test_c4_revise_select_remixes_and_a_later_render_makes_no_calls(tmp_path):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.takes.jobs import RenderSettings

    path, script, store, backend = rendered_project(tmp_path)
    files_before = {
        line: store.selected_take("s1", line).wav_path.read_bytes() for line in ("l1", "l2", "l3")
    }
    mix_before = mix_segments(store)

    backend.requests.clear()
    summary = revise_in_project(script, store, backend, "l2", "angrier, shorter", select=True)
    assert len(backend.requests) == 1  # exactly one generation, no other line rendered
    assert backend.requests[0].conversation.layout == "revise"
    assert (
        summary["parent_take"] == 1
        and summary["takes"][0]["take"] == 2
        and summary["selected"] == 2
    )
    assert [t.number for t in store.takes("s1", "l2")] == [1, 2]  # v1 kept

    mix_after = mix_segments(store)
    for line in ("l1", "l3"):
        assert store.selected_take("s1", line).wav_path.read_bytes() == files_before[line]
        np.testing.assert_array_equal(mix_after[line][1], mix_before[line][1])  # sample-identical
    assert mix_after["l1"][0] == mix_before["l1"][0]
    shift = (len(mix_after["l2"][1]) - len(mix_before["l2"][1])) / SAMPLE_RATE
    assert shift != 0 and mix_after["l3"][0] == pytest.approx(mix_before["l3"][0] + shift, abs=1e-5)
    assert not np.array_equal(mix_after["l2"][1][:1000], mix_before["l2"][1][:1000])

    backend.requests.clear()
    again = render_script(load_script(path), store, backend, RenderSettings())
    assert again.calls == 0 and len(backend.requests) == 0
    assert store.selected_take("s1", "l2").number == 2  # the revision plays
    np.testing.assert_array_equal(mix_segments(store)["l2"][1], mix_after["l2"][1])


def test_revise_select_keeps_the_render_mix_settings(tmp_path):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.mix.project_mix import remix
    from drama_cli.script.mix_settings import MixSettings
    from drama_cli.takes.jobs import RenderSettings

    flags = MixSettings(gap_s=1.25, preset="none", formats=("wav", "flac"))
    _, script, store, backend = rendered_project(tmp_path, RenderSettings(), mix=flags)
    assert store.project()["mix"] == {
        "formats": ["wav", "flac"],
        "options": {"gap_s": 1.25, "preset": "none"},
    }
    before = mix_segments(store)
    gap = before["l2"][0] - (before["l1"][0] + len(before["l1"][1]) / SAMPLE_RATE)
    assert gap == pytest.approx(1.25, abs=1e-3)

    revise_in_project(script, store, backend, "l2", "angrier, shorter", select=True)
    after = mix_segments(store)
    assert after["l2"][0] == before["l2"][0]  # the render's 1.25 s gap, not the mixer's 0.5 s
    end_l2 = after["l2"][0] + len(after["l2"][1]) / SAMPLE_RATE
    assert after["l3"][0] - end_l2 == pytest.approx(1.25, abs=1e-3)
    for line in ("l1", "l3"):
        np.testing.assert_array_equal(after[line][1], before[line][1])  # sample-identical
    assert (store.scene_dir("s1") / "mix.flac").exists()

    # `drama mix` keeps them too unless told otherwise, and then remembers the new gap
    (store.scene_dir("s1") / "mix.flac").unlink()
    remix(script, store, script.scenes)
    assert (
        mix_segments(store)["l2"][0] == before["l2"][0]
        and (store.scene_dir("s1") / "mix.flac").exists()
    )
    remix(script, store, script.scenes, MixSettings(gap_s=0.25))
    assert store.project()["mix"]["options"] == {"gap_s": 0.25, "preset": "none"}
    revise_in_project(script, store, backend, "l1", "softer", select=True)
    latest = mix_segments(store)
    end_l1 = latest["l1"][0] + len(latest["l1"][1]) / SAMPLE_RATE
    assert latest["l2"][0] - end_l1 == pytest.approx(0.25, abs=1e-3)


def test_revise_from_script_applies_new_notes_once(tmp_path):
    from drama_cli.edit.revise import revise_from_script, script_notes
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.takes.jobs import RenderSettings

    path, _, store, backend = rendered_project(tmp_path)
    path.write_text(
        SCRIPT.replace(
            "        text: Not without the oars.\n",
            "        text: Not without the oars.\n        notes: [louder]\n",
        )
    )
    script = load_script(path)
    assert script_notes(script) == [("l2", "louder")]
    backend.requests.clear()
    done = revise_from_script(script, store, backend)
    assert [d["line"] for d in done] == ["l2"] and len(backend.requests) == 1
    assert backend.requests[0].conversation.note == "louder versus previous"
    assert store.selected_take("s1", "l2").record.to_json()["notes"] == ["louder"]
    assert revise_from_script(script, store, backend) == [] and len(backend.requests) == 1
    backend.requests.clear()
    assert render_script(script, store, backend, RenderSettings()).calls == 0


def test_script_notes_are_not_rendered_and_director_note_is(tmp_path):
    from drama_cli.edit.revise import revise_from_script
    from drama_cli.script.load import load_script

    noted = SCRIPT.replace(
        "        text: Not without the oars.\n",
        "        text: Not without the oars.\n        note: tired\n        notes: [louder]\n",
    )
    path, _, store, backend = rendered_project(tmp_path, text=noted)
    first = [r.conversation.text for r in backend.requests if "oars" in r.conversation.text]
    assert len(first) == 1 and "[tired]" in first[0] and "louder" not in first[0]
    backend.requests.clear()
    done = revise_from_script(load_script(path), store, backend)
    assert [d["line"] for d in done] == ["l2"] and len(backend.requests) == 1
    assert backend.requests[0].conversation.note == "louder versus previous"
    assert (
        revise_from_script(load_script(path), store, backend) == [] and len(backend.requests) == 1
    )


def test_a_script_note_equal_to_the_director_note_is_still_applied(tmp_path):
    from drama_cli.edit.revise import revise_from_script
    from drama_cli.script.load import load_script

    noted = SCRIPT.replace(
        "        text: Fine.\n",
        "        text: Fine.\n        note: louder\n        notes: [louder]\n",
    )
    path, _, store, backend = rendered_project(tmp_path, text=noted)
    backend.requests.clear()
    assert [d["line"] for d in revise_from_script(load_script(path), store, backend)] == ["l3"]
    assert (
        revise_from_script(load_script(path), store, backend) == [] and len(backend.requests) == 1
    )


def test_fountain_notes_attached_to_a_line_are_script_notes(tmp_path):
    from drama_cli.edit.revise import script_notes
    from drama_cli.script.load import load_script

    (tmp_path / "f.fountain").write_text(
        "INT. BOATHOUSE - NIGHT\n\nMARGOT\nWe leave at six. [[quieter, tired]]\n\nDESMOND\nNot without the oars.\n"
    )
    (tmp_path / "f.cast.yaml").write_text(
        "cast:\n  MARGOT:\n    description: x\n  DESMOND:\n    description: y\n"
    )
    script = load_script(tmp_path / "f.fountain")
    assert script_notes(script) == [(script.lines()[0].id, "quieter, tired")]


def test_revision_records_a_prompt_hash_that_follows_the_prompt(tmp_path):
    store = rendered(tmp_path)
    first = revise_line(FakeBackend(), store, base_request("l2"), "louder").takes[0]
    second = revise_line(FakeBackend(), store, base_request("l2"), "louder", from_take=1).takes[0]
    third = revise_line(FakeBackend(), store, base_request("l2"), "softer", from_take=1).takes[0]
    assert (
        first.record.to_json()["prompt_hash"]
        and first.record.to_json()["prompt_hash"] == second.record.to_json()["prompt_hash"]
    )
    assert third.record.to_json()["prompt_hash"] != first.record.to_json()["prompt_hash"]


@pytest.mark.parametrize("note", ["<|im_end|>", "softer <|speaker:1|>", "<|speaker:99|> loud"])
def test_revise_refuses_a_note_with_model_tokens_before_the_backend(
    tmp_path, monkeypatch, capsys, note
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    import drama_cli.backends.registry as registry

    def no_backend(*args, **kwargs):
        raise AssertionError("the backend must not be made for a bad note")

    monkeypatch.setattr(registry, "make_backend", no_backend)
    capsys.readouterr()
    assert main(["revise", str(path), "boathouse-1", "--note", note]) == 2
    err = capsys.readouterr().err
    assert "--note" in err and len(err.strip().splitlines()) == 1


MIX_SCRIPT = mix_settings_script("noise", -60)


def test_revise_select_keeps_the_script_mix_settings(tmp_path, monkeypatch, capsys):

    fake_render(monkeypatch, FakeWithCodes())
    path = tmp_path / "mix.yaml"
    path.write_text(MIX_SCRIPT, encoding="utf-8")
    assert main(["render", str(path)]) == 0
    assert main(["revise", str(path), "boathouse-2", "--note", "softer", "--select"]) == 0
    _, rows = mix_rows(tmp_path / "mix.drama")
    assert rows[1]["take"] == 2
    assert rows[0]["start_s"] == 0.0
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(1.0, abs=1e-4)


def test_a_take_selected_by_revise_survives_a_render_in_another_mode_and_back(
    tmp_path, monkeypatch
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars."])
    assert main(["render", str(path)]) == 0
    assert main(["revise", str(path), "boathouse-2", "--note", "warmer", "--select"]) == 0
    assert main(["render", str(path), "--mode", "clone"]) == 0
    assert main(["render", str(path), "--mode", "history"]) == 0
    store = TakeStore(tmp_path / "scene.drama")
    assert store.selected_take("boathouse", "boathouse-2").number == 1


def test_revise_from_script_with_no_new_notes_loads_no_engine(tmp_path, monkeypatch, capsys):
    from fakes import fake_render, write_script

    import drama_cli.backends.registry as registry
    from drama_cli.cli import main

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    made = []
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: made.append(k))
    capsys.readouterr()
    assert main(["revise", str(path), "--from-script"]) == 0
    assert capsys.readouterr().out.strip() == "no new notes in the script" and made == []


@pytest.mark.parametrize(
    "command",
    [
        ["revise", "boathouse-1", "--note", "warmer"],
        ["edit", "boathouse-1", "--insert", "now", "--at", "0.2"],
    ],
)
def test_a_damaged_from_take_is_named_as_damaged_not_missing(
    tmp_path, monkeypatch, capsys, command
):
    from fakes import fake_render, write_script

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--takes", "2"]) == 0
    (tmp_path / "scene.drama" / "boathouse" / "boathouse-1" / "take-001.wav").write_bytes(b"RIFF")
    capsys.readouterr()
    assert main([command[0], str(path), *command[1:], "--from-take", "1"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "drama: take 1 of line 'boathouse-1' is unusable: audio file truncated or not a WAV (usable takes: 2)"
    )


@pytest.mark.parametrize(
    ("note", "says"),
    [("[unclosed", "unclosed bracket"), ("softer]", "closes no bracket"), ("[a [b]]", "nest")],
)
def test_revise_refuses_a_note_with_an_unpaired_bracket_in_one_line(
    tmp_path, monkeypatch, capsys, note, says
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["revise", str(path), "boathouse-1", "--note", note]) == 2
    err = capsys.readouterr().err
    assert "--note" in err and says in err and len(err.strip().splitlines()) == 1
