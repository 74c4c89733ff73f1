"""What a scene's selections deliver, read once per scene: per line the chosen take, its status,
the words it says and their timing (`SceneSelection`). The mix, a book chapter, the plots and
any view of a project consume this record whole instead of asking the store line by line."""

from __future__ import annotations

from dataclasses import dataclass

from drama_cli.script.spoken import Word
from drama_cli.takes.selection import (
    MovedTakes,
    is_stale,
    stale_note,
    take_text,
    take_timing,
)
from drama_cli.takes.store import Take, TakeStore
from engine.conversation import AudioClip

CURRENT = "current"  # a usable take made for the line as the script has it now
STALE = "stale"  # a usable take made for older text, directions or pronunciations
UNUSABLE = "unusable"  # a take whose checks failed, selected automatically: never mixed
NONE = "none"  # nothing selected, or the selected take's files are missing or corrupt


@dataclass(frozen=True)
class LineChoice:
    """One line of a scene and the take its selection gives it.

    line: the script `Line`. take: the selected take (None when nothing valid is selected).
    status: CURRENT, STALE, UNUSABLE or NONE (module constants). problem: why a selected
    take's files cannot be used (`take N (file): why`), else "". stale: `stale_note` of a
    STALE take. moved: the `MovedTakes` notice of a line with no current take, else "".
    text: the words the take says (`take_text`); segments / words: their timing
    (`take_timing`: chunks as (text, start s, end s) and the recognised `Word`s, each () when
    unknown). engine: the take's engine name; scratch: whether it is a scratch draft;
    drama3_model: whether the Drama 3 model voiced it (`TakeRecord.by_drama3_model`).
    """

    line: object
    take: Take | None
    status: str
    problem: str = ""
    stale: str = ""
    moved: str = ""
    text: str = ""
    segments: tuple[tuple[str, float, float], ...] = ()
    words: tuple[Word, ...] = ()
    engine: str = ""
    scratch: bool = False
    drama3_model: bool = False

    @property
    def mixable(self) -> bool:
        """Whether the take goes into mixes (CURRENT or STALE)."""
        return self.status in (CURRENT, STALE)

    @property
    def failed_checks(self) -> bool:
        """Whether the take goes into mixes although its checks found it unusable (a runaway,
        silence): it was selected by hand (`drama takes --select`)."""
        return self.mixable and self.take.status == "unusable"


@dataclass(frozen=True)
class SceneSelection:
    """The `LineChoice` of every line of a scene, in script order."""

    scene_id: str
    lines: tuple[LineChoice, ...]

    def with_status(self, *statuses: str) -> list[LineChoice]:
        """The lines whose status is one of `statuses`, in script order."""
        return [choice for choice in self.lines if choice.status in statuses]


def mixable(
    store: TakeStore, scene_id: str, line_id: str, take: Take, chosen: dict | None = None
) -> bool:
    """A selected take goes into mixes and context unless it is unusable and was not chosen
    by hand. chosen: the scene's `selections`, when read already."""
    if take.status != "unusable":
        return True
    chosen = store.selections(scene_id) if chosen is None else chosen
    return chosen.get(line_id, {}).get("by") == "user"


def scene_selection(script, store: TakeStore, scene) -> SceneSelection:
    """Read the selections of `scene` once and judge each line's take (module docstring).
    Raises UsageError when `selected.json` is corrupt (`TakeStore.selections`)."""
    chosen = store.selections(scene.id)
    moved = MovedTakes(script, store, scene)
    return SceneSelection(
        scene.id,
        tuple(line_choice(script, store, scene.id, line, chosen, moved) for line in scene.lines),
    )


def line_choice(
    script, store: TakeStore, scene_id: str, line, chosen: dict, moved: MovedTakes
) -> LineChoice:
    """The `LineChoice` of one line (`scene_selection`); chosen: the scene's selections."""
    take, problem = store.selected_with_problem(scene_id, line.id, chosen)
    if take is None or problem:
        return LineChoice(line, None, NONE, problem=problem or "", moved=moved.note(line) or "")
    text = take_text(take, line)
    segments, words = take_timing(take, text)
    facts = dict(
        text=text,
        segments=segments,
        words=words,
        engine="unknown" if take.record.engine is None else str(take.record.engine),
        scratch=bool(take.record.scratch),
        drama3_model=take.record.by_drama3_model,
    )
    if not mixable(store, scene_id, line.id, take, chosen):
        return LineChoice(line, take, UNUSABLE, moved=moved.note(line) or "", **facts)
    if is_stale(script, store, scene_id, line, take):
        return LineChoice(
            line, take, STALE, stale=stale_note(take, line), moved=moved.note(line) or "", **facts
        )
    return LineChoice(line, take, CURRENT, **facts)


def select_first_passing(store: TakeStore, script, scene) -> None:
    """Select each line's first passing take (status `ok`) made for the current text and
    speaker of `scene` (`is_stale`), as a render would, when the scene has no `selected.json`
    yet. Lines with no such take stay unselected (the mix leaves them out). Writes
    `selected.json` only when something was selected."""
    if store.selection_path(scene.id).exists() or not scene.lines:
        return
    picked = {}
    for line in scene.lines:
        for take in store.takes(scene.id, line.id):
            if take.status == "ok" and not is_stale(script, store, scene.id, line, take):
                picked[line.id] = {"take": take.number, "cache_key": take.cache_key, "by": "auto"}
                break
    if picked:
        store.write_selections(scene.id, picked)


def context_clip(store: TakeStore, scene_id: str, line_id: str) -> AudioClip | None:
    """The selected take of a line as an AudioClip (codes when stored, the WAV path always),
    for history context; None when the line has no valid, usable selection."""
    take = store.selected_take(scene_id, line_id)
    if take is None or not mixable(store, scene_id, line_id, take):
        return None
    return AudioClip(codes=take.codes(), path=str(take.wav_path), duration_s=take.duration_s)
