"""The project folder on disk: `--out` that cannot be a folder, one project per script, ordinary
permissions for mixes and takes, and a read-only folder or a full disk as one line with exit 2
that keeps the finished takes."""

from __future__ import annotations

from fakes import FakeBackend, fake_render, single_error_line, write_script

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
    for file in ("mix.wav", "mix.flac", "mix.srt", "boathouse-1/take-001.wav",
                 "boathouse-1/take-001.json"):
        assert (folder / file).stat().st_mode & 0o777 == 0o644, file


def test_read_only_project_folder_is_one_line_exit_2_even_with_nothing_to_render(tmp_path, monkeypatch, capsys):
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
    assert err == (f"drama: cannot write {lock}: read-only file system "
                   f"(make the project folder writable, or give --out FOLDER)")


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
    assert err.endswith(": no space left on device (free some space and run the command again; "
                        "finished takes are kept)")
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
    assert len(store.takes("boathouse", "boathouse-1")) == 1 and len(store.takes("boathouse", "boathouse-2")) == 1
