"""The project a studio shows: its script, read again whenever the file changes, and its take
store, exactly as the command line opens them."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from drama_cli.errors import UsageError
from drama_cli.takes.project import open_project
from drama_cli.takes.store import TakeStore


class StudioProject:
    """The script file and project folder a studio serves.

    script_path: the script file (never stdin: the studio reads it again when it changes).
    out: the project folder as `--out` gives it (None: `<script>.drama` beside the script),
    made when missing; UsageError when it cannot be (`takes.project.open_project`).
    The script is loaded through `load`, a callable `(path) -> Script` (the command passes the
    same loader `drama takes` uses); its warnings are not repeated on every reload. loaded:
    the script as the caller has just read it from the file, kept until the file changes.
    """

    def __init__(self, script_path: str, out: str | None, load, loaded=None):
        self.script_path = Path(script_path)
        # made now: its actions write there, and a folder that cannot be made stops the command
        self.store: TakeStore = open_project(str(script_path), out, create=True)
        self._load = load
        self._lock = threading.Lock()
        self._memo_lock = threading.Lock()
        self._script = loaded
        self._stamp = self._file_stamp() if loaded is not None else None
        self._scenes: dict[str, tuple[tuple, object]] = {}  # scene id -> (stamp, its view)

    def script(self):
        """The script as the file holds it now (read again when its size or time changed).
        Raises the loader's ScriptError when the file no longer reads or is gone (an editor
        saving it by replacing the file, a rename)."""
        stamp = self._file_stamp()
        with self._lock:
            if stamp is None or stamp != self._stamp:
                self._script = self._load(str(self.script_path))
                self._stamp = stamp
                self._scenes.clear()
            return self._script

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.script_path)
        except OSError:  # gone: None never matches, so the loader runs and says why
            return None
        return stat.st_mtime_ns, stat.st_size

    def scene_memo(self, script, scene, build):
        """`build(scene)` of `script` (as `script()` returned it), kept while the script and
        the scene's folder (its selections and line folders) are unchanged, so a poll after a
        take of one scene recomputes that scene only. Built from a script the file has changed
        since (another request read it again meanwhile), it is returned but not kept."""
        with self._lock:  # only to read the two together: `script()` must not wait on a build
            current, script_stamp = script is self._script, self._stamp
        if not current:
            return build(scene)
        stamp = (script_stamp, self._folder_stamp(self.store.scene_dir(scene.id)))
        with self._memo_lock:  # two requests at once judge a scene once
            kept = self._scenes.get(scene.id)
            if kept is not None and kept[0] == stamp:
                return kept[1]
            value = build(scene)
            self._scenes[scene.id] = (stamp, value)
            return value

    def find_scene_line(self, line_id: str):
        """(scene, line) of `line_id` in the current script; raises UsageError when unknown
        (`drama_cli.edit.revise.find_line`)."""
        # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
        from drama_cli.edit.revise import find_line

        scene, _, line = find_line(self.script(), line_id)
        return scene, line

    def find_scene(self, scene_id: str):
        """The scene with `scene_id` in the current script; raises UsageError when unknown."""
        try:
            return self.script().scene(scene_id)
        except KeyError:
            raise UsageError(f"no scene {scene_id!r} in the script") from None

    def changes(self) -> str:
        """A fingerprint of what the page shows: the script file and, per scene folder, its
        selections file and its line folders (a new take changes its folder's time). Cheap
        enough to poll: one `stat` per line folder."""
        parts = [str(self._stat(self.script_path))]
        root = self.store.root
        if root.is_dir():
            with os.scandir(root) as scenes:
                for scene in sorted(scenes, key=lambda entry: entry.name):
                    if scene.is_dir(follow_symlinks=False):
                        parts.append(scene.name + self._folder_stamp(Path(scene.path)))
        return f"{hash(tuple(parts)) & 0xFFFFFFFFFFFF:x}"

    def _folder_stamp(self, folder: Path) -> str:
        stamps = [self._stat(folder / "selected.json")]
        try:
            with os.scandir(folder) as lines:
                stamps += sorted(
                    entry.stat(follow_symlinks=False).st_mtime_ns
                    for entry in lines
                    if entry.is_dir(follow_symlinks=False)
                )
        except OSError:  # no takes yet
            pass
        return ":".join(map(str, stamps))

    @staticmethod
    def _stat(path: Path) -> int:
        try:
            stat = path.stat()
        except OSError:
            return 0
        return stat.st_mtime_ns ^ stat.st_size
