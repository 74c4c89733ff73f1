"""Files that appear whole or not at all (engine.files), and finding ffmpeg (engine.ffmpeg)."""

from __future__ import annotations

import hashlib
import os
import stat
import sys

import pytest

from engine import ffmpeg, files


def names(folder):
    return sorted(p.name for p in folder.iterdir())


def mode_of(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_write_new_file_never_overwrites(tmp_path):
    target = tmp_path / "deep" / "take-001.wav"
    files.write_new_file(target, b"first")
    with pytest.raises(FileExistsError):
        files.write_new_file(target, b"second")
    assert target.read_bytes() == b"first"
    assert names(target.parent) == ["take-001.wav"]
    assert mode_of(target) == files.FILE_MODE


def test_write_bytes_atomic_replaces_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "selected.json"
    files.write_bytes_atomic(target, b"old")
    files.write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert names(tmp_path) == ["selected.json"]
    assert mode_of(target) == files.FILE_MODE


def test_a_failed_stage_leaves_nothing_behind(tmp_path, monkeypatch):
    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        files.write_bytes_atomic(tmp_path / "project.json", b"data")
    assert names(tmp_path) == []


def test_atomic_path_gives_the_mode_asked_for(tmp_path):
    target = tmp_path / "script.yaml"
    files.write_text_atomic(target, "text", mode=0o600)
    assert mode_of(target) == 0o600
    with files.atomic_path(target, mode=0o640) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".script.yaml.")
        tmp.write_text("more")
    assert (target.read_text(), mode_of(target)) == ("more", 0o640)
    assert names(tmp_path) == ["script.yaml"]


def test_publish_renames_only_after_every_file_is_written(tmp_path, monkeypatch):
    staged = [(files.stage_text(tmp_path / name, name), tmp_path / name) for name in ("a", "b")]
    order = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(files.os, "fsync", lambda fd: order.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(
        files.os, "replace", lambda a, b: order.append("replace") or real_replace(a, b)
    )
    files.publish(staged)
    assert order[:4] == ["fsync", "fsync", "replace", "replace"]
    assert [(tmp_path / n).read_text() for n in ("a", "b")] == ["a", "b"]


def test_file_sha256_is_the_digest_of_the_bytes(tmp_path):
    path = tmp_path / "clip.wav"
    data = os.urandom(3 << 20)
    path.write_bytes(data)
    assert files.file_sha256(path) == hashlib.sha256(data).hexdigest()
    with pytest.raises(OSError):
        files.file_sha256(tmp_path / "missing.wav")


def test_ffmpeg_is_found_on_path_before_the_bundled_one(tmp_path, monkeypatch):
    fake = tmp_path / "ffmpeg"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    assert ffmpeg.ffmpeg_candidates() == [str(fake)]
    assert ffmpeg.ffmpeg_path() == str(fake)


def test_no_ffmpeg_anywhere_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    assert ffmpeg.ffmpeg_candidates() == []
    assert ffmpeg.ffmpeg_path() is None


def test_publish_undoes_the_whole_step_when_one_rename_fails(tmp_path, monkeypatch):
    for name in ("a", "b", "old"):
        (tmp_path / name).write_text(f"{name} before")
    staged = [
        (files.stage_text(tmp_path / name, f"{name} after"), tmp_path / name)
        for name in ("a", "b", "c")
    ]
    real_replace = os.replace

    def failing(src, dst):
        if os.path.basename(dst) == "c" and ".c." in os.path.basename(src):
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(OSError, match="Input/output"):
        files.publish(staged, remove=[tmp_path / "old"])
    assert [(tmp_path / n).read_text() for n in ("a", "b", "old")] == [
        "a before",
        "b before",
        "old before",
    ]
    assert [tmp.read_text() for tmp, _ in staged] == ["a after", "b after", "c after"]
    assert names(tmp_path) == sorted(["a", "b", "old", *(tmp.name for tmp, _ in staged)])
    monkeypatch.setattr(files.os, "replace", real_replace)
    files.publish(staged, remove=[tmp_path / "old"])
    assert names(tmp_path) == ["a", "b", "c"]
    assert (tmp_path / "c").read_text() == "c after"
