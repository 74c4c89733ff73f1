"""The project folder on disk: `--out` that cannot be a folder, one project per script, ordinary
permissions for mixes and takes, and a read-only folder or a full disk as one line with exit 2
that keeps the finished takes."""

from __future__ import annotations

from fakes import (
    FakeBackend,
    fake_render,
    one_error_line,
    single_error_line,
    write_script,
)

from drama_cli.cli import main
from drama_cli.takes.store import TakeStore


def test_out_that_is_a_file_or_cannot_be_made_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert main(["render", str(path), "--out", str(taken)]) == 2
    assert str(taken) in capsys.readouterr().err
    blocked = taken / "below"  # a folder under a file cannot exist
    assert main(["render", str(path), "--out", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert str(blocked) in err and "Traceback" not in err


def test_two_scripts_with_one_stem_do_not_share_a_project(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    first = write_script(tmp_path, ["We leave at six."], name="earnest.yaml")
    second = write_script(tmp_path, ["Fine then."], name="earnest.yml")
    assert main(["render", str(first)]) == 0
    project = tmp_path / "earnest.drama" / "project.json"
    before = project.read_text()
    capsys.readouterr()
    assert main(["render", str(second)]) == 2
    err = capsys.readouterr().err
    assert "earnest.yaml" in err and "--out" in err
    assert project.read_text() == before
    assert main(["mix", str(second)]) == 2
    assert main(["render", str(second), "--out", str(tmp_path / "other.drama")]) == 0


def test_mix_and_takes_get_ordinary_permissions(tmp_path, monkeypatch):
    import os

    fake_render(monkeypatch)
    old = os.umask(0o022)
    try:
        path = write_script(tmp_path, ["We leave at six."])
        assert main(["render", str(path), "--format", "wav", "--format", "flac"]) == 0
    finally:
        os.umask(old)
    folder = tmp_path / "scene.drama" / "boathouse"
    for file in (
        "mix.wav",
        "mix.flac",
        "mix.srt",
        "boathouse-1/take-001.wav",
        "boathouse-1/take-001.json",
    ):
        assert (folder / file).stat().st_mode & 0o777 == 0o644, file


def test_read_only_project_folder_is_one_line_exit_2_even_with_nothing_to_render(
    tmp_path, monkeypatch, capsys
):
    import errno
    import os

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    real_open = os.open

    def read_only(file, flags, *args, **kwargs):
        if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert main(["render", str(path)]) == 2
    err = single_error_line(capsys)
    lock = tmp_path / "scene.drama" / ".drama.lock"
    assert err == (
        f"drama: cannot write {lock}: read-only file system "
        f"(make the project folder writable, or give --out FOLDER)"
    )


def test_full_disk_in_the_take_writer_keeps_finished_takes(tmp_path, monkeypatch, capsys):
    import errno

    import engine.files as files_module

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    real = files_module.stage_bytes
    written = []

    def fill_up(target, data):
        if target.suffix == ".wav":
            if written:
                raise OSError(errno.ENOSPC, "No space left on device", str(target))
            written.append(target)
        return real(target, data)

    monkeypatch.setattr(files_module, "stage_bytes", fill_up)
    assert main(["render", str(path)]) == 2
    err = single_error_line(capsys)
    assert err.startswith("drama: cannot write ") and "boathouse-2" in err and "take-001.wav" in err
    assert err.endswith(
        ": no space left on device (free some space and run the command again; "
        "finished takes are kept)"
    )
    store = TakeStore(tmp_path / "scene.drama")
    assert [t.number for t in store.takes("boathouse", "boathouse-1")] == [1]
    assert store.takes("boathouse", "boathouse-2") == []


def test_full_disk_in_the_mix_is_one_line_exit_2_and_takes_stay(tmp_path, monkeypatch, capsys):
    import soundfile as sf

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])

    real_write = sf.SoundFile.write

    def fail(self, data):
        if "mix" not in str(self.name):
            return real_write(self, data)
        raise sf.LibsndfileError(2, prefix=f"Error writing {self.name!r}: ")  # SFE_SYSTEM

    monkeypatch.setattr(sf.SoundFile, "write", fail)
    assert main(["render", str(path)]) == 2
    err = single_error_line(capsys)
    assert err.startswith("drama: audio file error: Error writing ") and "mix" in err
    assert "(is the disk full or the folder read-only? finished takes are kept)" in err
    store = TakeStore(tmp_path / "scene.drama")
    assert (
        len(store.takes("boathouse", "boathouse-1")) == 1
        and len(store.takes("boathouse", "boathouse-2")) == 1
    )


def rendered_project(tmp_path, monkeypatch):
    """A two-line scene rendered with the fake: (script path, project folder)."""
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    return path, tmp_path / "scene.drama"


def test_a_take_record_of_the_wrong_shape_is_an_invalid_take_made_again_by_render(
    tmp_path, monkeypatch, capsys
):
    import json

    path, project = rendered_project(tmp_path, monkeypatch)
    record = project / "boathouse" / "boathouse-1" / "take-001.json"
    for content, problem in (
        ("[]", "the record is a list, not a take record"),
        ("null", "the record is null, not a take record"),
        ('{"take": 1}', "the record has no samples, duration_s, wav_sha256"),
    ):
        record.write_text(content)
        capsys.readouterr()
        assert main(["takes", str(path), "--line", "boathouse-1", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)[0]["takes"]
        assert rows == [{"take": 1, "status": "invalid", "problem": problem}]
    assert main(["render", str(path)]) == 0
    assert "boathouse-1 MARGOT: rendered take 2" in capsys.readouterr().err
    store = TakeStore(project)
    assert store.selections("boathouse")["boathouse-1"]["take"] == 2


def test_a_record_field_of_the_wrong_type_makes_the_take_invalid(tmp_path, monkeypatch, capsys):
    import json

    path, project = rendered_project(tmp_path, monkeypatch)
    record = project / "boathouse" / "boathouse-2" / "take-001.json"
    good = json.loads(record.read_text())
    for field, value, problem in (
        (
            "duration_s",
            "long",
            "the record's duration_s is a string, not a whole number or a number",
        ),
        ("checks", [], "the record's checks is a list, not an object"),
        ("edit", 3, "the record's edit is a whole number, not an object or null"),
        ("samples", True, "the record's samples is true or false, not a whole number"),
        ("chunks", [[]], "the record's chunks are not a list of timed items"),
        (
            "asr",
            {"wer": "high"},
            "the record's asr.wer is a string, not a whole number or a number or null",
        ),
    ):
        record.write_text(json.dumps({**good, field: value}))
        capsys.readouterr()
        assert main(["mix", str(path)]) == 1
        assert (
            f"line boathouse-2: take 1 ({record.with_suffix('.wav')}): {problem}"
            in one_error_line(capsys)
        )
        assert TakeStore(project).scan("boathouse", "boathouse-2").invalid == {1: problem}


DAMAGED = "fix it, or delete it (the next render writes it again; saved mix settings are lost)"


def test_a_project_file_of_the_wrong_shape_stops_every_command_with_one_line_and_is_kept(
    tmp_path, monkeypatch, capsys
):
    path, project = rendered_project(tmp_path, monkeypatch)
    info = project / "project.json"
    verbs = (
        ["takes"],
        ["mix"],
        ["render"],
        ["compile"],
        ["revise", "boathouse-1", "--note", "x"],
        ["plot", "--scene", "boathouse"],
    )
    for content, problem in (
        ("[]", "it holds a list, not a project record"),
        ("null", "it holds null, not a project record"),
        ('{"script": 5}', "script is a whole number, not a string"),
        ('{"script": "scene.yaml",\n "seed": }', "2:10: Expecting value"),
    ):
        info.write_text(content)
        for verb in verbs if content == "[]" else verbs[:-1]:  # plot once: it loads matplotlib
            capsys.readouterr()
            assert main([verb[0], str(path), *verb[1:]]) == 2, (content, verb)
            line = single_error_line(capsys)
            assert line.startswith(f"drama: {info}") and problem in line and DAMAGED in line
            assert info.read_text() == content


def test_saved_mix_settings_that_cannot_be_used_name_the_project_file(
    tmp_path, monkeypatch, capsys
):
    import json

    path, project = rendered_project(tmp_path, monkeypatch)
    info = project / "project.json"
    saved = json.loads(info.read_text())
    for mix, problem in (
        ({"options": {"gap_s": "nan"}}, "--gap must be a finite number, not 'nan'"),
        ({"options": {"preset": 3}}, "the preset must be text, not 3"),
        ({"options": {"preset": "loud"}}, "unknown loudness preset 'loud'"),
        ({"options": {"room_tone": 5}}, "the room tone must be text, not 5"),
        ({"formats": ["ogg"]}, "unsupported audio format 'ogg'"),
        ({"formats": "wav"}, "mix.formats is a string, not a list of format names"),
    ):
        content = json.dumps({**saved, "mix": mix})
        info.write_text(content)
        for verb in ("mix", "render"):
            capsys.readouterr()
            assert main([verb, str(path)]) == 2
            line = single_error_line(capsys)
            assert line.startswith(f"drama: {info}: ") and problem in line, line
            assert info.read_text() == content


def test_an_empty_out_is_refused_not_taken_for_the_default(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    for verb in ("render", "takes", "mix"):
        assert main([verb, str(path), "--out", ""]) == 2
        assert single_error_line(capsys) == (
            f"drama: --out is empty: give the project folder, or omit "
            f"--out to use {tmp_path / 'scene.drama'}"
        )
    assert not (tmp_path / "scene.drama").exists()


def test_a_room_tone_that_is_a_folder_or_a_device_says_so(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    for tone, what in (
        (str(tmp_path), "is a folder"),
        ("/dev/zero", "is not a regular file"),
        (str(tmp_path / "none.wav"), "no such file"),
    ):
        assert main(["render", str(path), "--room-tone", tone]) == 2
        assert (
            single_error_line(capsys)
            == f"drama: --room-tone {tone}: {what} (give a WAV/FLAC file, 'noise' or 'none')"
        )


def test_a_selected_record_of_the_wrong_shape_under_another_id_is_no_moved_take(
    tmp_path, monkeypatch, capsys
):
    import json

    from fakes import margot_scene

    fake_render(monkeypatch)
    path = margot_scene(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    record = tmp_path / "scene.drama" / "boathouse" / "boathouse-2" / "take-001.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "text": 5}))
    margot_scene(tmp_path, ["We leave at seven.", "Fine."])
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "the record's text is a whole number, not a string" in err


def test_a_selection_file_that_is_no_object_is_one_line_saying_what_it_holds(
    tmp_path, monkeypatch, capsys
):
    path, project = rendered_project(tmp_path, monkeypatch)
    chosen = project / "boathouse" / "selected.json"
    for content, holds in (("[]", "a list"), ("5", "a whole number"), ("null", "null")):
        chosen.write_text(content)
        for verb in ("takes", "mix"):
            capsys.readouterr()
            assert main([verb, str(path)]) == 2
            assert single_error_line(capsys) == (
                f"drama: {chosen} is corrupt (it holds {holds}, not an object with 'lines'); "
                "fix it, or delete it to select the passing takes again"
            )
