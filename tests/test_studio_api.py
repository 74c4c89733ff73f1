"""The studio's JSON API over a scratch-rendered project: listing, selection (the command line
sees it), actions that make takes, the token, path refusals and a busy project."""

import errno
import json
import os
import shutil
import threading
import time

import pytest
from fakes import SHORT_SCRIPT
from starlette.testclient import TestClient

from drama_cli.backends.registry import make_backend
from drama_cli.cli import main
from drama_cli.mix.export import find_mp3_encoder
from drama_cli.script.load import load_script
from drama_cli.script.spoken import Word
from drama_cli.studio import views
from drama_cli.studio.app import Studio, make_app
from drama_cli.studio.project import StudioProject
from drama_cli.studio.views import peaks
from drama_cli.takes.store import ProjectLock, TakeStore

TOKEN = "test-token-123"
TWO_SCENES = """\
title: Two
cast:
  A: {}
scenes:
  - id: s1
    lines:
      - A: First.
  - id: s2
    lines:
      - A: Second.
"""
ORIGIN = {"origin": "http://testserver"}


@pytest.fixture(scope="module")
def scratch():
    """The scratch engine, made once for the module."""
    backend = make_backend(engine="scratch", model=None, device=None, gpu_memory=None)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, scratch):
    """A two-line script rendered once with the scratch engine: its folder."""
    from drama_cli.render.scheduler import render_script
    from drama_cli.takes.jobs import RenderSettings

    folder = tmp_path_factory.mktemp("studio-rendered")
    path = folder / "short.yaml"
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    render_script(
        load_script(str(path)), TakeStore(folder / "short.drama"), scratch, RenderSettings()
    )
    return folder


@pytest.fixture
def studio(tmp_path, rendered, scratch):
    """A studio over a fresh copy of the rendered project, and a client holding its token."""
    shutil.copytree(rendered, tmp_path, dirs_exist_ok=True)
    path = tmp_path / "short.yaml"
    served = Studio(StudioProject(str(path), None, load_script), lambda: scratch)
    client = TestClient(make_app(served, TOKEN))
    assert client.get(f"/?token={TOKEN}").status_code == 200  # sets the cookie
    yield served, client, path
    served.worker.stop()


def wait_for_job(client, job_id, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        jobs = {job["id"]: job for job in client.get("/api/changes").json()["jobs"]}
        if jobs[job_id]["state"] not in ("queued", "running"):
            return jobs[job_id]
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still running")


def test_the_script_view_lists_lines_with_status_and_counts(studio):
    _, client, _ = studio
    view = client.get("/api/script").json()
    scene = view["chapters"][0]["scenes"][0]
    assert [line["id"] for line in scene["lines"]] == ["s1-1", "s1-2"]
    assert [line["status"] for line in scene["lines"]] == ["current", "current"]
    assert [line["take"] for line in scene["lines"]] == [1, 1]
    assert scene["lines"][1]["parts"] == [{"kind": "text", "text": "We never said goodbye."}]
    assert view["counts"]["lines"] == 2 and view["counts"]["attention"] == 0
    assert view["engine"] == "scratch"


def test_a_changed_script_line_shows_as_stale_and_needing_attention(studio):
    _, client, path = studio
    path.write_text(SHORT_SCRIPT.replace("We never said goodbye.", "We always said goodbye."))
    os.utime(path, ns=(time.time_ns() + 10**9,) * 2)  # a new time even on a coarse clock
    lines = client.get("/api/script").json()["chapters"][0]["scenes"][0]["lines"]
    assert [line["status"] for line in lines] == ["current", "stale"]
    assert lines[1]["attention"] is True
    assert "We never said goodbye." in lines[1]["problem"]


def test_the_line_view_lists_takes_without_paths(studio):
    _, client, _ = studio
    view = client.get("/api/line", params={"id": "s1-2"}).json()
    assert view["line"]["speaker"] == "B"
    assert [(t["take"], t["selected"], t["engine"]) for t in view["takes"]] == [
        (1, True, "scratch")
    ]
    assert "file" not in view["takes"][0]
    assert view["takes"][0]["duration_s"] > 0.5


def _scored_take(path, line_id: str, voice: dict, quality: dict) -> int:
    """Add a copy of `line_id`'s selected take whose record holds `voice` and `quality`
    scores (its checks passed), select it, and return its number."""
    import soundfile as sf

    store = TakeStore(path.parent / "short.drama")
    old = store.selected_take("s1", line_id)
    record = {
        key: value
        for key, value in old.record.to_json().items()
        if key not in ("take", "samples", "duration_s", "wav_sha256", "created")
    }
    audio, _ = sf.read(old.wav_path, dtype="float32")
    take = store.add_take("s1", line_id, audio, {**record, "voice": voice, "quality": quality})
    store.select("s1", line_id, take, by="user")
    return take.number


def test_voice_and_quality_scores_are_shown_and_a_low_one_needs_attention(studio):
    _, client, path = studio
    quality = {"ovrl": 2.1, "sig": 3.0, "bak": 2.5, "p808": 3.1, "floor": 2.5, "model": "dnsmos"}
    voice = {"similarity": 0.62, "threshold": 0.8, "voiced_s": 2.4, "model": "resemblyzer"}
    number = _scored_take(path, "s1-2", voice, quality)
    short = {**voice, "voiced_s": 1.0}  # too short to judge: scored, not failed
    _scored_take(path, "s1-1", short, {**quality, "ovrl": 3.2})
    lines = client.get("/api/script").json()["chapters"][0]["scenes"][0]["lines"]
    first, second = lines
    assert second["voice"] == {"similarity": 0.62, "threshold": 0.8}
    assert second["quality"] == {"ovrl": 2.1, "sig": 3.0, "bak": 2.5, "p808": 3.1, "floor": 2.5}
    assert second["voice_failed"] and second["quality_failed"] and second["attention"]
    assert first["voice"]["similarity"] == 0.62 and first["quality"]["ovrl"] == 3.2
    assert not first["voice_failed"] and not first["quality_failed"]
    assert not first["attention"]
    takes = client.get("/api/line", params={"id": "s1-2"}).json()["takes"]
    scored = {take["take"]: take for take in takes}
    assert scored[number]["voice"]["similarity"] == 0.62 and scored[number]["voice_failed"]
    assert scored[number]["quality"]["ovrl"] == 2.1 and scored[number]["quality_failed"]
    assert scored[1]["voice"] is None and scored[1]["quality"] is None
    assert not scored[1]["voice_failed"]


def test_audio_and_peaks_are_served_by_line_and_take_number(studio):
    _, client, _ = studio
    audio = client.get("/api/audio", params={"line": "s1-1", "take": "1"})
    assert audio.status_code == 200 and audio.content[:4] == b"RIFF"
    drawn = client.get("/api/peaks", params={"line": "s1-1", "take": "1"}).json()
    assert len(drawn["peaks"]) == 800 and drawn["duration_s"] > 0.3
    assert all(low <= high for low, high in drawn["peaks"])


def test_peaks_hold_the_lowest_and_highest_sample_of_each_column():
    import numpy as np

    audio = np.array([0.1, -0.5, 0.3, 0.9, -0.2, 0.0], dtype=np.float32)
    assert peaks(audio, 3) == [[-0.5, 0.1], [0.3, 0.9], [-0.2, 0.0]]
    assert peaks(np.zeros(0, np.float32)) == []


def test_a_selection_made_in_the_studio_is_the_one_the_command_line_lists(studio, capsys):
    _, client, path = studio
    assert client.get("/api/script").status_code == 200  # every scene judged once
    job = client.post(
        "/api/jobs", json={"kind": "render", "line": "s1-1", "takes": 1}, headers=ORIGIN
    ).json()
    assert wait_for_job(client, job["id"])["takes"] == [2]
    answer = client.post("/api/select", json={"line": "s1-1", "take": 2}, headers=ORIGIN)
    assert answer.status_code == 200
    assert [t["selected"] for t in answer.json()["takes"]] == [False, True]
    lines = client.get("/api/script").json()["chapters"][0]["scenes"][0]["lines"]
    assert [line["take"] for line in lines] == [2, 1]  # the scene was judged again
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "s1-1", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)[0]["takes"]
    assert [t["take"] for t in listed if t["selected"]] == [2]
    assert (
        json.loads((path.parent / "short.drama" / "s1" / "selected.json").read_text())["lines"][
            "s1-1"
        ]["by"]
        == "user"
    )


def test_a_revise_job_makes_new_takes_with_the_note(studio):
    _, client, _ = studio
    job = client.post(
        "/api/jobs",
        json={"kind": "revise", "line": "s1-2", "takes": 2, "note": "softer"},
        headers=ORIGIN,
    ).json()
    finished = wait_for_job(client, job["id"])
    assert (finished["state"], finished["takes"], finished["done"]) == ("done", [2, 3], 2)
    takes = client.get("/api/line", params={"id": "s1-2"}).json()["takes"]
    assert [(t["take"], t["note"], t["parent_take"]) for t in takes][1:] == [
        (2, "softer", 1),
        (3, "softer", 1),
    ]


def test_an_edit_job_voices_the_new_text(studio, monkeypatch):
    _, client, _ = studio
    heard = [Word("Indeed", 0.0, 0.3), Word("I", 0.3, 0.45), Word("do.", 0.45, 0.8)]
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: heard)
    job = client.post(
        "/api/jobs",
        json={"kind": "edit", "line": "s1-1", "text": "Indeed I never do."},
        headers=ORIGIN,
    ).json()
    finished = wait_for_job(client, job["id"])
    assert (finished["state"], finished["takes"], finished["error"]) == ("done", [2], "")
    take = client.get("/api/line", params={"id": "s1-1"}).json()["takes"][1]
    assert take["edit"]["new_text"] == "Indeed I never do."


def test_a_cancelled_job_stops_before_its_next_take(studio):
    served, client, _ = studio
    served.worker.submit("revise", "s1-1", {"note": "first"}, 1)  # keeps the worker busy
    job = client.post(
        "/api/jobs", json={"kind": "revise", "line": "s1-2", "note": "x"}, headers=ORIGIN
    ).json()
    assert client.post(f"/api/jobs/{job['id']}/cancel", headers=ORIGIN).status_code == 200
    finished = wait_for_job(client, job["id"])
    assert (finished["state"], finished["takes"]) == ("cancelled", [])


def test_a_bad_action_is_refused_before_it_is_queued(studio):
    _, client, _ = studio
    for body, message in (
        ({"kind": "revise", "line": "s1-1"}, "revise needs a note"),
        ({"kind": "render", "line": "s1-1", "takes": 0}, "--takes must be"),
        ({"kind": "render", "line": "nope"}, "no line 'nope'"),
        ({"kind": "delete", "line": "s1-1"}, "unknown action"),
    ):
        answer = client.post("/api/jobs", json=body, headers=ORIGIN)
        assert answer.status_code == 400 and message in answer.json()["error"]
    assert client.get("/api/changes").json()["jobs"] == []


def test_a_request_without_the_token_is_refused_and_changes_nothing(studio):
    served, _, path = studio
    stranger = TestClient(make_app(served, TOKEN))
    selected = path.parent / "short.drama" / "s1" / "selected.json"
    before = selected.read_bytes()
    assert stranger.get("/api/script").status_code == 403
    assert stranger.get("/?token=wrong").status_code == 403
    answer = stranger.post("/api/select", json={"line": "s1-1", "take": 1}, headers=ORIGIN)
    assert answer.status_code == 403 and selected.read_bytes() == before


def test_a_change_from_another_origin_is_refused(studio):
    _, client, _ = studio
    for headers in ({}, {"origin": "http://evil.example"}):
        answer = client.post("/api/select", json={"line": "s1-1", "take": 1}, headers=headers)
        assert answer.status_code == 403


def test_an_oversized_request_is_refused(studio):
    _, client, _ = studio
    body = {"kind": "revise", "line": "s1-1", "note": "x" * 70_000}
    answer = client.post("/api/jobs", json=body, headers=ORIGIN)
    assert answer.status_code == 413


@pytest.mark.parametrize(
    "line, take", [("../../etc", "1"), ("s1-1", "../take-001"), ("/etc/passwd", "1"), ("s1-1", "7")]
)
def test_audio_is_never_served_by_a_path_from_the_request(studio, line, take):
    _, client, _ = studio
    answer = client.get("/api/audio", params={"line": line, "take": take})
    assert answer.status_code == 400


def test_a_take_linked_to_a_file_outside_the_project_is_refused(studio, tmp_path):
    _, client, path = studio
    folder = path.parent / "short.drama" / "s1" / "s1-1"
    outside = tmp_path / "outside"
    shutil.move(folder, outside)
    folder.symlink_to(outside)
    answer = client.get("/api/audio", params={"line": "s1-1", "take": "1"})
    assert answer.status_code == 400 and "outside the project" in answer.json()["error"]


def test_a_selection_while_another_process_holds_the_project_is_told_it_is_busy(studio):
    served, client, _ = studio
    with served.project.store.lock():
        answer = client.post("/api/select", json={"line": "s1-1", "take": 1}, headers=ORIGIN)
    assert answer.status_code == 409 and "in use" in answer.json()["error"]


def test_the_fingerprint_changes_when_a_take_is_added(studio):
    _, client, _ = studio
    before = client.get("/api/changes").json()["changes"]
    time.sleep(0.01)
    job = client.post(
        "/api/jobs", json={"kind": "revise", "line": "s1-1", "note": "again"}, headers=ORIGIN
    ).json()
    wait_for_job(client, job["id"])
    assert client.get("/api/changes").json()["changes"] != before


def test_the_scene_view_lays_out_the_mix_timeline(studio):
    _, client, path = studio
    view = client.get("/api/scene", params={"id": "s1"}).json()
    assert [(b["line"], b["speaker"]) for b in view["blocks"]] == [("s1-1", "A"), ("s1-2", "B")]
    first, second = view["blocks"]
    assert second["start_s"] >= first["end_s"] and view["total_s"] >= second["end_s"]
    assert view["mixed"] is True and view["mix_outdated"] is False
    assert view["mix_stale_files"] == []
    (path.parent / "short.drama" / "s1" / "mix.stem-gone.wav").write_bytes(b"left by a killed run")
    assert client.get("/api/scene", params={"id": "s1"}).json()["mix_stale_files"] == [
        "mix.stem-gone.wav"
    ]
    assert client.get("/api/mix", params={"scene": "s1"}).content[:4] == b"RIFF"
    assert client.get("/api/scene", params={"id": "nope"}).status_code == 400


def test_a_mix_job_mixes_the_scene_again_after_a_selection(studio):
    _, client, path = studio
    job = client.post(
        "/api/jobs", json={"kind": "revise", "line": "s1-1", "note": "slower"}, headers=ORIGIN
    ).json()
    wait_for_job(client, job["id"])
    time.sleep(0.01)
    client.post("/api/select", json={"line": "s1-1", "take": 2}, headers=ORIGIN)
    assert client.get("/api/scene", params={"id": "s1"}).json()["mix_outdated"] is True
    job = client.post("/api/jobs", json={"kind": "mix", "line": "s1"}, headers=ORIGIN).json()
    assert wait_for_job(client, job["id"])["state"] == "done"
    assert client.get("/api/scene", params={"id": "s1"}).json()["mix_outdated"] is False
    cues = json.loads((path.parent / "short.drama" / "s1" / "mix.cues.json").read_text())
    assert [cue["take"] for cue in cues["cues"]] == [2, 1]


def test_a_revise_cancelled_while_it_runs_keeps_the_takes_it_finished(studio, scratch):
    served, _, _ = studio
    jobs = []

    class CancelsItsJob:
        """The scratch engine, cancelling the job as its first take is voiced."""

        def __getattr__(self, name):
            return getattr(scratch, name)

        def generate(self, request, on_frames=None):
            jobs[0].cancel_asked.set()
            return scratch.generate(request, on_frames)

    other = Studio(served.project, CancelsItsJob)
    jobs.append(other.worker.submit("revise", "s1-2", {"note": "slower"}, 3))
    deadline = time.monotonic() + 20
    while other.worker.busy() and time.monotonic() < deadline:
        time.sleep(0.05)
    other.worker.stop()
    assert (jobs[0].state, jobs[0].takes, jobs[0].done) == ("cancelled", [2], 1)
    assert [t.number for t in served.project.store.takes("s1", "s1-2")] == [1, 2]


def test_a_project_with_no_takes_yet_is_shown_with_every_line_needing_one(tmp_path, scratch):
    path = tmp_path / "fresh.yaml"
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    served = Studio(StudioProject(str(path), None, load_script), lambda: scratch)
    client = TestClient(make_app(served, TOKEN))
    view = client.get("/api/script", params={"token": TOKEN}).json()
    assert view["counts"] == {
        "lines": 2,
        "current": 0,
        "stale": 0,
        "unusable": 0,
        "none": 2,
        "degraded": 0,
        "failed": 0,
        "wer_over": 0,
        "attention": 2,
    }
    assert client.get("/api/line", params={"id": "s1-1"}).json()["takes"] == []
    assert client.get("/api/scene", params={"id": "s1"}).json()["blocks"] == []
    assert client.get("/api/changes").status_code == 200
    served.worker.stop()


def test_the_page_may_run_only_its_own_script_and_is_never_framed(studio):
    _, client, _ = studio
    policy = client.get("/").headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy


def test_render_progress_names_the_take_and_its_frames_and_stops_when_cancelled():
    from drama_cli.errors import JobCancelled
    from drama_cli.studio.actions import JobProgress
    from drama_cli.studio.jobs import Job

    job = Job(1, "render", "s1-1", {}, total=2)
    progress = JobProgress(job)
    progress.attempt(None, 1, 1, 7)
    progress.frames(None, 40, 900)
    assert job.message == "voicing take 2 (retry 1): 40 of at most 900 frames"
    job.cancel_asked.set()
    with pytest.raises(JobCancelled):
        progress.frames(None, 41, 900)


@pytest.mark.parametrize("take", ["²", "١", "9" * 5000])
def test_a_take_number_in_other_digits_is_refused_not_an_error(studio, take):
    _, client, _ = studio
    for route in ("/api/audio", "/api/peaks"):
        answer = client.get(route, params={"line": "s1-1", "take": take})
        assert (answer.status_code, answer.json()) == (400, {"error": "take must be a take number"})


def test_a_script_file_gone_while_the_page_is_open_is_reported_not_an_error(studio):
    _, client, path = studio
    assert client.get("/api/script").status_code == 200
    path.unlink()  # an editor saving by replacing the file, or a rename
    for route in ("/api/script", "/api/line?id=s1-1", "/api/scene?id=s1"):
        answer = client.get(route)
        assert answer.status_code == 400
        assert (
            answer.json()["error"] == f"{path}:1:1: cannot read script: No such file or directory"
        )
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    assert client.get("/api/line?id=s1-1").status_code == 200


def test_two_studios_open_at_once_keep_their_own_token_cookies(studio, scratch):
    served, _, path = studio
    other = Studio(StudioProject(str(path), None, load_script), lambda: scratch)
    first = TestClient(make_app(served, TOKEN), base_url="http://127.0.0.1:8001")
    second = TestClient(make_app(other, "other-token"), base_url="http://127.0.0.1:8002")
    try:
        first.get(f"/?token={TOKEN}")
        second.get("/?token=other-token")
        # a browser sends every cookie of 127.0.0.1 to both ports
        first.cookies.update(second.cookies)
        second.cookies.update(first.cookies)
        assert first.get("/api/script").status_code == 200
        assert second.get("/api/script").status_code == 200
    finally:
        other.worker.stop()


def test_a_take_is_served_without_reading_every_take_of_its_line(studio, monkeypatch):
    served, client, _ = studio

    def scan(scene_id, line_id):
        raise AssertionError("read every take of the line to serve one")

    monkeypatch.setattr(served.project.store, "scan", scan)
    for route in ("/api/audio", "/api/peaks"):
        assert client.get(route, params={"line": "s1-1", "take": "1"}).status_code == 200
        answer = client.get(route, params={"line": "s1-1", "take": "7"})
        assert (answer.status_code, answer.json()) == (400, {"error": "line 's1-1' has no take 7"})


def test_a_script_changed_while_a_scene_is_judged_shows_at_the_next_look(tmp_path, monkeypatch):
    path = tmp_path / "two.yaml"
    path.write_text(TWO_SCENES, encoding="utf-8")
    project = StudioProject(str(path), None, load_script)
    real = views.scene_selection

    def judged_while_the_file_changes(script, store, scene):
        monkeypatch.setattr(views, "scene_selection", real)
        path.write_text(TWO_SCENES.replace("Second.", "Changed."), encoding="utf-8")
        os.utime(path, ns=(time.time_ns() + 10**9,) * 2)
        project.script()  # another request reads the changed file while this one judges s1
        return real(script, store, scene)

    monkeypatch.setattr(views, "scene_selection", judged_while_the_file_changes)
    views.script_view(project)
    chapters = views.script_view(project)["chapters"]
    assert [
        scene["lines"][0]["parts"][0]["text"] for chapter in chapters for scene in chapter["scenes"]
    ] == ["First.", "Changed."]


def test_two_selections_at_once_from_the_page_both_succeed(studio, monkeypatch):
    served, client, _ = studio
    store = served.project.store
    real = store.select

    def slow_select(*args, **kwargs):
        time.sleep(0.2)  # holds the project lock while the other selection arrives
        real(*args, **kwargs)

    monkeypatch.setattr(store, "select", slow_select)
    answers = []
    threads = [
        threading.Thread(
            target=lambda line=line: answers.append(
                client.post(
                    "/api/select", json={"line": line, "take": 1}, headers=ORIGIN
                ).status_code
            )
        )
        for line in ("s1-1", "s1-2")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200, 200]


def test_a_selection_while_the_studio_makes_takes_is_made_when_that_job_is_done(studio, scratch):
    served, _, _ = studio
    started, release = threading.Event(), threading.Event()

    class WaitsToVoice:
        """The scratch engine, waiting to be released before voicing."""

        def __getattr__(self, name):
            return getattr(scratch, name)

        def generate(self, request, on_frames=None):
            started.set()
            release.wait(10)
            return scratch.generate(request, on_frames)

    busy = Studio(served.project, WaitsToVoice)
    try:
        busy.worker.submit("revise", "s1-2", {"note": "slower"})
        assert started.wait(10)
        store = served.project.store
        store.write_selections("s1", {})
        answer = busy.select("s1-1", 1)
        assert (answer["after"], answer["queued"]["kind"], answer["queued"]["state"]) == (
            "revise of s1-2",
            "select",
            "queued",
        )
        assert "s1-1" not in store.selections("s1")
        release.set()
        deadline = time.monotonic() + 20
        while busy.worker.busy() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [job.state for job in busy.worker.jobs()] == ["done", "done"]
        assert (store.selections("s1")["s1-1"]["take"], store.selections("s1")["s1-1"]["by"]) == (
            1,
            "user",
        )
    finally:
        release.set()
        busy.worker.stop()


def test_a_read_only_project_folder_is_told_in_one_line_not_a_server_error(
    studio, monkeypatch, capsys
):
    served, client, _ = studio
    lock_file = served.project.store.lock().path

    def read_only(self):
        raise OSError(errno.EROFS, "Read-only file system", str(self.path))

    monkeypatch.setattr(ProjectLock, "__enter__", read_only)
    expected = (
        f"cannot write {lock_file}: read-only file system "
        "(make the project folder writable, or give --out FOLDER)"
    )
    answer = client.post("/api/select", json={"line": "s1-1", "take": 1}, headers=ORIGIN)
    assert (answer.status_code, answer.json()) == (409, {"error": expected})
    job = client.post(
        "/api/jobs", json={"kind": "render", "line": "s1-1", "takes": 1}, headers=ORIGIN
    ).json()
    finished = wait_for_job(client, job["id"])
    assert (finished["state"], finished["error"]) == ("failed", expected)
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("fmt, media_type", [("flac", "audio/flac"), ("mp3", "audio/mpeg")])
def test_a_scene_mixed_to_flac_or_mp3_only_is_mixed_and_played(studio, capsys, fmt, media_type):
    if fmt == "mp3" and find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder (ffmpeg) here")
    _, client, path = studio
    assert main(["mix", str(path), "--format", fmt]) == 0
    folder = path.parent / "short.drama" / "s1"
    assert not (folder / "mix.wav").exists() and (folder / f"mix.{fmt}").is_file()
    for _again in range(2):  # as mixed by the command, then by "Mix again" (the same format)
        assert client.get("/api/scene", params={"id": "s1"}).json()["mixed"] is True
        answer = client.get("/api/mix", params={"scene": "s1"})
        assert (answer.status_code, answer.headers["content-type"]) == (200, media_type)
        assert answer.content == (folder / f"mix.{fmt}").read_bytes()
        job = client.post("/api/jobs", json={"kind": "mix", "line": "s1"}, headers=ORIGIN).json()
        assert wait_for_job(client, job["id"])["state"] == "done"


def test_a_selection_queued_behind_a_job_is_made_when_the_studio_stops(studio, scratch):
    served, _, _ = studio
    started, release = threading.Event(), threading.Event()

    class WaitsToVoice:
        """The scratch engine, waiting to be released before voicing; closed with the module."""

        def __getattr__(self, name):
            return getattr(scratch, name)

        def generate(self, request, on_frames=None):
            started.set()
            release.wait(10)
            return scratch.generate(request, on_frames)

        def close(self):
            pass

    busy = Studio(served.project, WaitsToVoice)
    store = served.project.store
    try:
        busy.worker.submit("revise", "s1-2", {"note": "slower"}, total=2)
        assert started.wait(10)
        store.write_selections("s1", {})
        assert busy.select("s1-1", 1)["queued"]["state"] == "queued"
        busy.worker.submit("render", "s1-1", {"takes": 1})  # queued last: dropped
        left = []
        stopping = threading.Thread(target=lambda: left.extend(busy.close()))
        stopping.start()  # Ctrl-C: the revise is asked to stop while it voices its first take
        assert busy.worker.jobs()[0].cancel_asked.wait(10)
        release.set()
        stopping.join(30)
        assert not stopping.is_alive() and left == []
        assert [(job.kind, job.state) for job in busy.worker.jobs()] == [
            ("revise", "cancelled"),
            ("select", "done"),
            ("render", "cancelled"),
        ]
        assert (store.selections("s1")["s1-1"]["take"], store.selections("s1")["s1-1"]["by"]) == (
            1,
            "user",
        )
    finally:
        release.set()
