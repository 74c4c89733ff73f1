"""The server backends (sglang, vllm, llama, fish) end to end against fake servers on
127.0.0.1: `drama render --engine NAME --server URL` makes takes and a mix from the requests
each fake receives in its own wire form; `--batch 3` keeps three requests in flight; revise,
scene mode and (off fish) edit are refused in one line; history mode falls back to clone once;
the API key reaches no file and no output; a server that is down is one line; the cache key and
the take record carry the server's model."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest
from fake_speech_servers import FakeSpeechServer, refusing_port, serving

from drama_cli.backends.registry import BackendChoice, build_backend, option_table
from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.takes.store import TakeStore

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts_examples"
KEY = "sk-fish-test-4242-secret"
SCENE = "scene-1"


@pytest.fixture
def play(tmp_path):
    """A copy of the examples folder; the earnest script in it."""
    folder = tmp_path / "play"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("*.drama"))
    return folder / "earnest.fountain"


@pytest.fixture
def fake(request):
    """A fake server of the style the test is parametrised with (two-second answers)."""
    style = getattr(request, "param", "sglang")
    options = {"api_key": KEY} if style == "fish" else {}
    with serving(FakeSpeechServer(style, seconds=2.0, **options)) as server:
        yield server


def render(play, fake, *extra, engine=None):
    engine = engine or fake.style
    return main(
        ["render", str(play), "--engine", engine, "--server", fake.url, "--scene", SCENE, *extra]
    )


def render_line(play, fake, *extra) -> None:
    """Render line scene-1-2 alone: its take is made (the render exits 1: the scene's mix
    leaves the other lines out)."""
    assert render(play, fake, "--line", "scene-1-2", *extra) == 1
    assert len(all_takes(project(play))) == 1


def project(play) -> TakeStore:
    return TakeStore(play.with_suffix(".drama"))


def all_takes(store: TakeStore, scene: str = SCENE) -> list:
    folder = store.root / scene
    return sorted(folder.glob("*/take-*.json"))


@pytest.fixture(autouse=True)
def fish_key(monkeypatch):
    monkeypatch.setenv("FISH_API_KEY", KEY)


STYLES = ["sglang", "vllm", "llama", "fish"]


@pytest.mark.parametrize("fake", STYLES, indirect=True)
def test_a_render_on_each_server_makes_takes_and_a_mix(play, fake, capsys):
    fake.hold(3)  # every request waits until three are in flight at once
    assert render(play, fake, "--batch", "3") == 0
    out = capsys.readouterr()
    store = project(play)
    takes = all_takes(store)
    assert len(takes) == 27 and len(fake.requests) == 27
    assert (store.root / SCENE / "mix.wav").is_file()
    record = json.loads(takes[0].read_text())
    assert record["engine"] == fake.style and record["drama3_model"] is True
    identity = record["engine_identity"]
    assert identity["server"] == fake.url
    if fake.style == "fish":
        assert identity["model"] == "drama-3-preview"
    else:
        assert (identity["model"], identity["revision"]) == ("drama-3", "fake-1.0")
        assert record["backend_info"]["model_version"] == "fake-1.0"
    assert fake.most_in_flight == 3
    assert KEY not in out.out + out.err
    (first, *_) = json.loads((store.root / SCENE / "provenance.json").read_text())["lines"]
    assert (first["engine"], first["server"], first["model"]) == (
        fake.style,
        fake.url,
        identity["model"],
    )
    assert first["model_revision"] == identity["revision"] and first["drama3_model"] is True


def reference_of(received):
    """(how the fake received a reference: the form's name, its transcript)."""
    body = received.body
    if received.path == "/v1/audio/speech" and "references" in body:
        ref = body["references"][0]
        assert ref["audio"].startswith("data:audio/wav;base64,")
        return "references", ref["text"]
    if received.path == "/v1/audio/speech":
        assert body["ref_audio"].startswith("data:audio/wav;base64,")
        return "ref_audio", body["ref_text"]
    if received.path == "/tts":
        assert body["speaker_ref"][:4] == b"RIFF"
        return "speaker_ref", body["ref_text"]
    assert received.path == "/v1/tts" and received.headers["model"] == "drama-3-preview"
    ref = body["references"][0]
    assert ref["audio"][:4] == b"RIFF"
    return "fish", ref["text"]


@pytest.mark.parametrize(
    ("fake", "form"),
    [("sglang", "references"), ("vllm", "ref_audio"), ("llama", "speaker_ref"), ("fish", "fish")],
    indirect=["fake"],
)
def test_each_server_receives_the_references_in_its_own_form(play, fake, form):
    render_line(play, fake)
    (received,) = fake.requests
    name, transcript = reference_of(received)
    assert name == form
    assert transcript.startswith("<|speaker:0|> ")  # the line's speaker sent as speaker 0
    if fake.style == "fish":
        assert received.headers["authorization"] == f"Bearer {KEY}"


def test_the_fish_key_appears_in_no_file_and_its_variable_name_is_kept(play, tmp_path):
    with serving(FakeSpeechServer("fish", seconds=2.0, api_key=KEY)) as fake:
        render_line(play, fake, "--api-key-env", "FISH_API_KEY")
    store = project(play)
    saved = json.loads(store.project_path.read_text())["engine_options"]
    assert saved == {"server": fake.url, "api_key_env": "FISH_API_KEY"}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_fish_without_a_key_is_one_line(play, monkeypatch, capsys):
    monkeypatch.delenv("FISH_API_KEY")
    with serving(FakeSpeechServer("fish", api_key=KEY)) as fake:
        assert render(play, fake) == 2
    err = capsys.readouterr().err
    assert "needs an API key: set FISH_API_KEY" in err and "Traceback" not in err
    assert fake.requests == []


def test_a_refused_key_is_one_line_and_never_shows_the_key(play, monkeypatch, capsys):
    monkeypatch.setenv("FISH_API_KEY", "sk-wrong-key-0000")
    with serving(FakeSpeechServer("fish", api_key=KEY)) as fake:
        assert render(play, fake) == 2
    err = capsys.readouterr().err
    assert "refused the API key from $FISH_API_KEY" in err
    assert "sk-wrong-key-0000" not in err and "Traceback" not in err


def test_a_server_that_is_down_is_one_line_and_exit_2(play, capsys):
    with refusing_port() as url:
        code = main(["render", str(play), "--engine", "sglang", "--server", url])
    err = capsys.readouterr().err
    assert code == 2
    assert f"cannot reach {url} (connection refused)" in err and "Traceback" not in err


def test_sglang_without_a_server_is_one_line(play, capsys):
    assert main(["render", str(play), "--engine", "sglang"]) == 2
    assert "--engine sglang needs --server URL" in capsys.readouterr().err


def test_history_mode_falls_back_to_clone_with_one_notice(play, fake, capsys):
    assert render(play, fake, "--mode", "history") == 0
    err = capsys.readouterr().err
    notice = "the sglang engine does not voice a line in the context of the ones before"
    assert err.count(notice) == 1
    assert json.loads(project(play).project_path.read_text())["mode"] == "clone"


def test_scene_mode_is_refused_in_one_line_before_any_request(play, fake, capsys):
    assert render(play, fake, "--mode", "scene", "--line", "scene-1-2") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "drama: the sglang engine cannot voice a whole scene at once (a request voices one "
        "line); use --mode history or --mode clone"
    )
    assert fake.requests == [] and all_takes(project(play)) == []


def with_a_voice_switch(play) -> None:
    """Line scene-1-2 of the play (Lane's first) hands its last words to Algernon."""
    text = play.read_text()
    said = "I didn't think it polite to listen, sir."
    play.write_text(text.replace(said, said + " {ALGERNON} Quite right.", 1))


@pytest.mark.parametrize("fake", ["sglang", "vllm", "llama"], indirect=True)
def test_a_voice_switch_is_refused_in_one_line_on_a_one_speaker_server(play, fake, capsys):
    with_a_voice_switch(play)
    assert render(play, fake) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "drama: line scene-1-2 switches to ALGERNON's voice: the "
        f"{fake.style} engine voices one speaker per request; render it with an engine that "
        "voices several (drama3, fish), or split the line"
    )
    assert fake.requests == [] and all_takes(project(play)) == []


@pytest.mark.parametrize("fake", ["fish"], indirect=True)
def test_fish_voices_a_line_with_a_voice_switch_in_one_request(play, fake, capsys):
    with_a_voice_switch(play)
    render_line(play, fake)
    body = fake.requests[-1].body
    assert len(body["references"]) == 2
    assert "<|speaker:1|>" in body["text"]


def record_of(store: TakeStore, line: str) -> dict:
    """The record of the one take of `line`."""
    (path,) = sorted((store.root / SCENE / line).glob("take-*.json"))
    return json.loads(path.read_text())


def test_a_truncated_answer_is_tried_again_and_the_take_records_why(play, fake, capsys):
    fake.fail("truncate")
    assert render(play, fake, "--line", "scene-1-2", "--line", "scene-1-3", "--batch", "1") == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no take" not in err
    store = project(play)
    assert len(all_takes(store)) == 2 and len(fake.requests) == 3
    (why,) = record_of(store, "scene-1-2")["backend_info"]["failed_tries"]
    assert why.startswith("truncated: ") and "cut short" in why
    assert "failed_tries" not in record_of(store, "scene-1-3")["backend_info"]


def test_a_line_whose_tries_all_fail_has_no_take_and_the_render_goes_on(play, fake, capsys):
    fake.fail("truncate", times=3)  # the first try and both retries (--retries 2)
    assert render(play, fake, "--line", "scene-1-2", "--line", "scene-1-3", "--batch", "1") == 1
    err = capsys.readouterr().err
    assert "scene-1-2 (failed: no take: 3 tries failed, the last: truncated: " in err
    store = project(play)
    assert [path.parent.name for path in all_takes(store)] == ["scene-1-3"]
    assert len(fake.requests) == 4


def test_a_failed_try_is_not_retried_without_retries(play, fake, capsys):
    fake.fail("truncate")
    assert render(play, fake, "--line", "scene-1-2", "--retries", "0") == 1
    assert "no take: 1 try failed, the last: truncated: " in capsys.readouterr().err
    assert all_takes(project(play)) == [] and len(fake.requests) == 1


def test_a_server_still_busy_after_its_retries_is_tried_again(play, fake, capsys):
    fake.fail("status", times=4, status=429, retry_after="0")  # the client's four tries
    render_line(play, fake)
    assert len(fake.requests) == 5
    (why,) = record_of(project(play), "scene-1-2")["backend_info"]["failed_tries"]
    assert why.startswith("busy: ")


@pytest.mark.parametrize("fake", ["vllm"], indirect=True)
def test_a_stalled_stream_times_out_and_is_tried_again(play, fake, capsys):
    fake.fail("stall")
    render_line(play, fake, "--timeout", "0.5")
    assert fake.stalled.is_set() and len(fake.requests) == 2
    (why,) = record_of(project(play), "scene-1-2")["backend_info"]["failed_tries"]
    assert why.startswith("timeout: ")


@pytest.mark.parametrize("fake", ["vllm"], indirect=True)
def test_vllm_answers_stream_as_events_read_through_a_render(play, fake, capsys):
    render_line(play, fake)
    body = fake.requests[0].body
    assert (body["stream"], body["stream_format"], body["response_format"]) == (
        True,
        "sse",
        "pcm",
    )
    record = record_of(project(play), "scene-1-2")
    assert record["duration_s"] == pytest.approx(2.0, abs=1e-3)  # every delta, none lost
    assert record["backend_info"]["model_version"] == "fake-1.0"


@pytest.mark.parametrize("fake", ["vllm"], indirect=True)
def test_a_vllm_event_stream_cut_short_is_tried_again(play, fake, capsys):
    fake.fail("truncate")  # the events end without speech.audio.done
    render_line(play, fake)
    (why,) = record_of(project(play), "scene-1-2")["backend_info"]["failed_tries"]
    assert why.startswith("truncated: ") and "done event" in why


@pytest.mark.parametrize("fake", ["fish"], indirect=True)
def test_fish_tries_again_when_another_model_voiced_the_take(play, fake, capsys):
    fake.fail("model")
    render_line(play, fake)
    assert len(fake.requests) == 2
    record = record_of(project(play), "scene-1-2")
    (why,) = record["backend_info"]["failed_tries"]
    assert "voiced the take with model s2.1-pro" in why
    assert record["engine_identity"]["model"] == "drama-3-preview"


@pytest.mark.parametrize("fake", ["fish"], indirect=True)
def test_fish_never_keeps_a_take_another_model_voiced(play, fake, capsys):
    fake.fail("model", times=3)
    assert render(play, fake, "--line", "scene-1-2") == 1
    assert "voiced the take with model s2.1-pro" in capsys.readouterr().err
    assert all_takes(project(play)) == [] and len(fake.requests) == 3


def test_the_key_is_read_from_a_keyring_entry_and_written_nowhere(
    play, tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv("FISH_API_KEY")
    stored = {("drama", "fish"): KEY}
    asked = []

    def get_password(service, user):
        asked.append((service, user))
        return stored.get((service, user))

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=get_password))
    with serving(FakeSpeechServer("fish", seconds=2.0, api_key=KEY)) as fake:
        render_line(play, fake)
    assert asked == [("drama", "fish")]
    assert fake.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    out = capsys.readouterr()
    assert KEY not in out.out + out.err
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_revise_on_a_server_backend_is_refused_in_one_line(play, fake, capsys):
    render_line(play, fake)
    capsys.readouterr()
    code = main(["revise", str(play), "scene-1-2", "--note", "softer"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert (
        err[-1]
        == "drama: the sglang engine cannot revise a take against the earlier one and a note"
    )
    assert len(fake.requests) == 1


def test_edit_on_sglang_is_refused_in_one_line(play, fake, capsys):
    render_line(play, fake)
    capsys.readouterr()
    code = main(["edit", str(play), "scene-1-2", "--replace", "polite", "--with", "kind"])
    err = capsys.readouterr().err
    assert code == 2
    assert "the sglang engine cannot regenerate the middle of a take (infill)" in err
    assert len(fake.requests) == 1


@pytest.mark.parametrize("fake", ["fish"], indirect=True)
def test_edit_on_fish_goes_to_the_infill_endpoint(play, fake, capsys):
    render_line(play, fake)
    capsys.readouterr()
    code = main(["edit", str(play), "scene-1-2", "--replace", "polite", "--with", "kind"])
    assert code in (0, 3), capsys.readouterr().err
    infill = fake.requests[-1]
    assert infill.path == "/v1/audio/infill" and infill.headers["model"] == "drama-3"
    assert infill.body["audio"][:4] == b"RIFF"
    assert "kind" in infill.body["transcript"] and "<|speaker" not in infill.body["transcript"]
    assert 0 <= infill.body["prefix_seconds"] < 2.0
    assert len(all_takes(project(play))) == 2


def test_the_cache_key_differs_from_drama3_and_between_servers(play):
    from drama_cli.backends.drama3 import Drama3Backend

    with serving(FakeSpeechServer("sglang")) as one, serving(FakeSpeechServer("sglang")) as two:
        first = build_backend(BackendChoice("sglang", options={"server": one.url}))
        second = build_backend(BackendChoice("sglang", options={"server": two.url + "/x?k=1"}))
        assert first.identity()["server"] == one.url
        assert second.identity()["server"] == two.url  # no path, no query
        assert first.identity() != second.identity()
        assert first.identity()["engine"] != "drama3"
        assert Drama3Backend.identity.__qualname__ != type(first).identity.__qualname__


def test_the_server_options_are_one_set_shared_by_the_four_backends():
    table = option_table()
    for name in ("server", "api_key_env", "timeout"):
        flag, _, takers = table[name]
        assert takers == tuple(STYLES)
    assert table["server"][0].flag == "--server"


def test_a_key_given_as_the_variable_name_is_refused_when_it_looks_like_a_key():
    with pytest.raises(UsageError, match="name of an environment variable"):
        build_backend(
            BackendChoice("sglang", options={"server": "http://127.0.0.1:9", "api_key_env": "sk-x"})
        )


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray instance of one CPU slot for the module; its GCS address."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.mark.slow
def test_a_cluster_render_reaches_the_server_from_its_worker(play, fake, ray_address, capsys):
    code = render(play, fake, "--line", "scene-1-2", "--cluster", ray_address, "--mode", "clone")
    assert code == 1, capsys.readouterr().err  # the take is made; the mix leaves lines out
    assert len(fake.requests) == 1 and fake.requests[0].path == "/v1/audio/speech"
    record = json.loads(all_takes(project(play))[0].read_text())
    assert record["engine_identity"]["server"] == fake.url


def test_a_server_render_that_fails_before_a_take_leaves_the_saved_engine(play, capsys):
    assert main(["render", str(play), "--engine", "scratch", "--scene", SCENE]) == 0
    saved = json.loads(project(play).project_path.read_text())
    with refusing_port() as url:
        code = main(["render", str(play), "--engine", "sglang", "--server", url, "--scene", SCENE])
    assert code == 2
    after = json.loads(project(play).project_path.read_text())
    for field in ("engine", "scratch", "engine_options", "mode", "sampling", "seed"):
        assert after.get(field) == saved.get(field), field
    capsys.readouterr()
    assert main(["revise", str(play), "scene-1-2", "--note", "softer"]) == 0
    assert "cannot revise" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "url", ["http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:abc", "notaurl"]
)
def test_a_malformed_server_url_is_one_line_and_exit_2(play, url, capsys):
    assert main(["render", str(play), "--engine", "sglang", "--server", url]) == 2
    err = capsys.readouterr().err
    assert f"--server {url!r}: not an http:// or https:// URL with a host" in err
    assert "Traceback" not in err
