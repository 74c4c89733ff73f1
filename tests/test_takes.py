import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    FakeBackend,
    fake_render,
    margot_scene,
    rendered_with_selection,
    voice,
    write_script,
)

from drama_cli.cli import main
from drama_cli.errors import RenderError, UsageError
from drama_cli.takes.keys import ReferenceHasher, stable_hash
from drama_cli.takes.provenance import take_provenance
from drama_cli.takes.store import (
    MAX_NEW_TAKES,
    MAX_TAKE_NUMBER,
    TakeStore,
    check_new_takes,
    safe_name,
    wav_is_complete,
)
from drama_cli.takes.take_record import TakeRecord
from engine.files import file_sha256, write_new_file


def tone(seconds=0.5, freq=220.0):
    t = np.arange(int(seconds * 44_100)) / 44_100
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@pytest.mark.parametrize(
    "name",
    [
        "../../etc/passwd",
        "NINA / THE DOUBLE",
        "..",
        ".",
        "",
        "Älskling",
        "日本語",
        "CON",
        "a" * 300,
        "scene 1: the hall",
        "GUARD #2",
    ],
)
def test_safe_name_cannot_escape_and_is_plain(tmp_path, name):
    safe = safe_name(name)
    assert safe and safe not in {".", ".."} and "/" not in safe and "\\" not in safe
    assert all(c.isascii() and (c.isalnum() or c in "-_") for c in safe)
    assert len(safe) <= 70
    assert safe.lower() != "con"
    assert safe_name(name) == safe  # stable
    folder = tmp_path / safe
    folder.mkdir()
    assert folder.resolve().parent == tmp_path.resolve()


def test_safe_name_keeps_simple_names_and_separates_lookalikes():
    assert safe_name("s01-l003") == "s01-l003"
    assert safe_name("Anna/B") != safe_name("Anna-B")
    assert safe_name("Ärger") != safe_name("Arger")


def test_add_take_round_trips_audio_codes_and_record(tmp_path):
    store = TakeStore(tmp_path)
    audio = tone()
    codes = np.arange(30, dtype=np.int64).reshape(10, 3)
    take = store.add_take("Act 1", "l/1", audio, {"seed": 5, "cache_key": "k1"}, codes=codes)
    assert take.number == 1 and take.wav_path.name == "take-001.wav"
    assert take.codes_path.name == "take-001.codes.npy"
    again = store.takes("Act 1", "l/1")[0]
    assert np.array_equal(again.audio(), audio)  # float WAV: exact
    assert np.array_equal(again.codes(), codes)
    assert again.record.seed == 5 and again.record.samples == len(audio)
    assert again.duration_s == pytest.approx(0.5)
    assert again.record.wav_sha256 == file_sha256(take.wav_path)
    assert sf.info(take.wav_path).samplerate == 44_100


def test_takes_are_numbered_and_never_overwritten(tmp_path):
    store = TakeStore(tmp_path)
    first = store.add_take("s", "l", tone(freq=200), {"cache_key": "a"})
    before = first.wav_path.read_bytes()
    second = store.add_take("s", "l", tone(freq=300), {"cache_key": "b"})
    assert (first.number, second.number) == (1, 2)
    assert first.wav_path.read_bytes() == before
    assert [t.number for t in store.takes("s", "l", cache_key="b")] == [2]
    with pytest.raises(FileExistsError):
        write_new_file(first.wav_path, b"new")
    assert first.wav_path.read_bytes() == before


def test_truncated_wav_is_invalid_and_skipped(tmp_path):
    store = TakeStore(tmp_path)
    take = store.add_take("s", "l", tone(), {"cache_key": "a"})
    data = take.wav_path.read_bytes()
    take.wav_path.write_bytes(data[: len(data) // 2])
    assert not wav_is_complete(take.wav_path)
    scan = store.scan("s", "l")
    assert scan.valid == [] and "truncated" in scan.invalid[1]
    assert scan.next_number == 2
    new = store.add_take("s", "l", tone(), {"cache_key": "a"})
    assert new.number == 2 and [t.number for t in store.takes("s", "l")] == [2]


def test_altered_audio_and_missing_record_are_invalid(tmp_path):
    store = TakeStore(tmp_path)
    take = store.add_take("s", "l", tone(), {})
    data = bytearray(take.wav_path.read_bytes())
    data[-1] ^= 0xFF  # same length, different content
    take.wav_path.write_bytes(bytes(data))
    assert "does not match" in store.scan("s", "l").invalid[1]
    other = store.add_take("s", "m", tone(), {})
    other.json_path.unlink()  # crash between the WAV and the record
    assert "no record" in store.scan("s", "m").invalid[1]
    garbage = store.line_dir("s", "n") / "take-001.wav"
    garbage.parent.mkdir(parents=True)
    garbage.write_bytes(b"not a wav at all")
    (garbage.parent / "take-001.json").write_text("{}")
    assert "truncated" in store.scan("s", "n").invalid[1]


def test_selection_and_project_files(tmp_path):
    store = TakeStore(tmp_path)
    take = store.add_take("s", "l", tone(), {"cache_key": "k"})
    assert store.selected_take("s", "l") is None
    store.select("s", "l", take, by="user")
    data = json.loads(store.selection_path("s").read_text())
    assert data["lines"]["l"] == {"take": 1, "cache_key": "k", "by": "user"}
    assert store.selected_take("s", "l").number == 1
    take.wav_path.unlink()
    assert store.selected_take("s", "l") is None
    store.write_project({"script": "x.yaml", "engine": {"engine": "scratch"}})
    assert store.project()["engine"] == {"engine": "scratch"}
    assert not list(tmp_path.rglob("*.tmp"))


def test_stable_hash_orders_keys_and_hashes_arrays():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": np.zeros(3)}) != stable_hash({"a": np.ones(3)})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})


def test_lock_excludes_a_second_process_and_frees_on_exit(tmp_path):
    store = TakeStore(tmp_path)
    code = (
        "import sys; from drama_cli.takes.store import TakeStore\n"
        "try:\n    TakeStore(sys.argv[1]).lock().__enter__()\nexcept Exception as e:\n"
        "    print(type(e).__name__, e); sys.exit(3)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    with store.lock():
        busy = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env
        )
        assert busy.returncode == 3 and "RenderError" in busy.stdout and "in use" in busy.stdout
    free = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert free.returncode == 0, free.stdout


def test_take_lookup_of_invalid_number_raises(tmp_path):
    with pytest.raises(RenderError):
        TakeStore(tmp_path).take("s", "l", 4)


def test_stale_temporaries_are_removed(tmp_path):
    store = TakeStore(tmp_path)
    take = store.add_take("s", "l", tone(), {})
    stale = take.folder / ".take-002.wav.999.tmp"
    stale.write_bytes(b"half")
    assert store.remove_stale_temporaries() == 1
    assert not stale.exists() and take.wav_path.exists()


def test_damaged_codes_are_detected(tmp_path):
    store = TakeStore(tmp_path)
    codes = np.arange(40, dtype=np.int64).reshape(10, 4)
    take = store.add_take("s", "l", tone(), {}, codes=codes)
    assert store.scan("s", "l").invalid == {}
    data = take.codes_path.read_bytes()
    take.codes_path.write_bytes(data[:-8] + b"\x00" * 7 + b"\x01")
    assert "codes file does not match" in TakeStore(tmp_path).scan("s", "l").invalid[1]
    take.codes_path.unlink()
    assert "codes file missing" in store.scan("s", "l").invalid[1]


def test_validation_is_remembered_until_a_file_changes(tmp_path, monkeypatch):
    import drama_cli.takes.store as takes_module

    store = TakeStore(tmp_path)
    take = store.add_take("s", "l", tone(), {})
    hashed = []
    real = takes_module.file_sha256
    monkeypatch.setattr(takes_module, "file_sha256", lambda p: hashed.append(p) or real(p))
    for _ in range(3):
        assert [t.number for t in store.takes("s", "l")] == [1]
    assert len(hashed) == 1
    data = take.wav_path.read_bytes()
    take.wav_path.write_bytes(data[: len(data) // 2])
    assert store.takes("s", "l") == []


def test_selecting_a_corrupt_take_says_it_is_unusable_and_why(tmp_path, monkeypatch, capsys):
    from fakes import fake_render

    from drama_cli.takes.store import TakeStore

    fake_render(monkeypatch)
    path = margot_scene(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    wav = TakeStore(tmp_path / "scene.drama").line_dir("boathouse", "boathouse-1") / "take-001.wav"
    wav.write_bytes(wav.read_bytes()[:200])
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "boathouse-1", "--select", "1"]) == 2
    err = capsys.readouterr().err
    assert (
        "take 1 of line 'boathouse-1' is unusable: audio file truncated or not a WAV "
        "(usable takes: none)"
    ) in err
    assert "has no take 1" not in err


def test_a_corrupt_selection_file_is_an_error_naming_it(tmp_path, monkeypatch, capsys):
    path, selected = rendered_with_selection(tmp_path, monkeypatch, "{not json")
    capsys.readouterr()
    assert main(["mix", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(selected) in err and "corrupt" in err and "Traceback" not in err
    selected.write_text('{"lines": {"boathouse-1": {"take": "one"}}}')
    assert main(["mix", str(path)]) == 2


@pytest.mark.parametrize("verb", ["render", "revise", "edit"])
def test_takes_beyond_the_bound_is_bad_input_before_any_work(tmp_path, monkeypatch, capsys, verb):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    args = {
        "render": ["render", str(path)],
        "revise": ["revise", str(path), "boathouse-1", "--note", "softer"],
        "edit": ["edit", str(path), "boathouse-1", "--text", "We go at six.", "--span", "0.1:0.5"],
    }[verb]
    assert main(args + ["--takes", "1000000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"drama: --takes must be between 1 and {MAX_NEW_TAKES}, got 1000000"
    assert fake.requests == []


def test_check_new_takes_bounds():
    check_new_takes(1)
    check_new_takes(MAX_NEW_TAKES)
    for bad in (0, -1, MAX_NEW_TAKES + 1):
        with pytest.raises(UsageError, match="--takes must be between 1"):
            check_new_takes(bad)


def test_take_names_sort_in_number_order_and_stop_at_the_last_number(tmp_path):
    store = TakeStore(tmp_path / "p")
    record = {"cache_key": "k"}
    first = store.add_take("s", "l", voice(0.2), record)
    assert first.wav_path.name == "take-001.wav"
    folder = first.wav_path.parent
    (folder / f"take-{MAX_TAKE_NUMBER - 1:03d}.json").write_text("{}")  # an invalid take holds 998
    last = store.add_take("s", "l", voice(0.2), record)
    assert last.number == MAX_TAKE_NUMBER and last.wav_path.name == "take-999.wav"
    names = sorted(p.name for p in folder.glob("take-*.wav"))
    assert names == ["take-001.wav", "take-999.wav"]
    with pytest.raises(RenderError, match="line 'l' has take 999, the last take number"):
        store.add_take("s", "l", voice(0.2), record)
    assert sorted(p.name for p in folder.glob("take-*.wav")) == names


def test_old_take_names_with_more_digits_still_load(tmp_path):
    store = TakeStore(tmp_path / "p")
    take = store.add_take("s", "l", voice(0.2), {"cache_key": "k"})
    folder = take.wav_path.parent
    for suffix in (".wav", ".json"):
        (folder / f"take-1000{suffix}").write_bytes((folder / f"take-001{suffix}").read_bytes())
    record = json.loads((folder / "take-1000.json").read_text())
    record["take"] = 1000
    (folder / "take-1000.json").write_text(json.dumps(record))
    assert [t.number for t in store.takes("s", "l")] == [1, 1000]
    assert np.array_equal(store.take("s", "l", 1000).audio(), take.audio())


def test_selecting_a_take_names_a_mix_command_that_runs_as_written(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    folder = tmp_path / "my play"
    folder.mkdir()
    path = write_script(folder, ["We leave at six."])
    out = str(tmp_path / "other project")
    assert main(["render", str(path), "--out", out]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--out", out, "--line", "boathouse-1", "--select", "1"]) == 0
    assert capsys.readouterr().err.strip() == (
        f"drama: selected take 1 of line boathouse-1; run drama mix '{path}' --out '{out}' to put it in "
        "the scene's mix"
    )


def test_provenance_names_the_server_its_model_and_whether_drama3_voiced_the_take():
    script = types.SimpleNamespace(cast={}, base_dir=".")
    server = TakeRecord.from_json(
        {
            "engine": "vllm",
            "model_revision": "0.32.1",
            "drama3_model": True,
            "engine_identity": {
                "engine": "vllm",
                "server": "http://gpu-box:8000",
                "model": "fishaudio/drama-3",
                "revision": "0.32.1",
            },
        }
    )
    found = take_provenance(script, "ANNA", server, ReferenceHasher())
    assert (found["engine"], found["server"], found["model"], found["model_revision"]) == (
        "vllm",
        "http://gpu-box:8000",
        "fishaudio/drama-3",
        "0.32.1",
    )
    assert found["drama3_model"] is True
    old = take_provenance(
        script, "ANNA", TakeRecord.from_json({"engine": "drama3"}), ReferenceHasher()
    )
    assert (old["server"], old["model"], old["drama3_model"]) == (None, None, True)
    scratch = TakeRecord.from_json({"engine": "scratch", "engine_identity": "not a mapping"})
    assert take_provenance(script, "ANNA", scratch, ReferenceHasher())["drama3_model"] is False
