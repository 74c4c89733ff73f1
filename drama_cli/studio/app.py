"""The studio's web app: the page and its files, and a JSON API over the project folder and
the take store (`drama_cli.studio.views` to read, `select_take` and the actions to write).

Routes (every one behind `TokenGuard`):
    GET  /                        the page
    GET  /static/NAME             its script and style sheet
    GET  /api/script              the script view (`views.script_view`)
    GET  /api/line?id=ID          one line and its takes (`views.line_view`)
    GET  /api/audio?line=ID&take=N   a take's WAV, found by line and number only
    GET  /api/peaks?line=ID&take=N   a take's waveform peaks
    GET  /api/scene?id=ID         a scene's mix timeline (`views.scene_view`)
    GET  /api/mix?scene=ID        a scene's mix (WAV, else FLAC, else MP3)
    GET  /api/changes             a fingerprint of the project and the jobs (the page polls it)
    POST /api/select              {line, take}: what `drama takes --line ID --select N` does
                                  (queued after the studio's own job while it holds the project)
    POST /api/jobs                {kind, line, takes, note, text, from_take}: queue an action
                                  (kind render, revise, edit; or mix with `line` a scene id)
    POST /api/jobs/ID/cancel      stop a job at its next step
    GET  /api/cast                the Cast view (`casting.cast_view`)
    GET  /api/cast/audio?character=NAME[&take=K]   a member's clip, or an audition take
    POST /api/cast/audition       {character, candidates}: `drama cast audition`
    POST /api/cast/lock           {character, take}: `drama cast lock`
    POST /api/cast/apply          {character}: the proposed library voice written into the cast
    GET  /api/attribution         the Attribution view (`casting.attribution_view`)
    POST /api/attribution         {line, speaker}: the speaker written into the script
Errors come back as `{"error": message}`: 400 for a bad request, 404 for an unknown take, 409
when another process holds the project or its folder cannot be written (read-only, full disk:
the line the commands print).
"""

from __future__ import annotations

import json
import re
import threading
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from drama_cli.errors import DramaError, RenderError, UsageError, system_error_message
from drama_cli.studio import casting, views
from drama_cli.studio.actions import (
    NEEDS_ENGINE,
    check_params,
    check_target,
    run_action,
)
from drama_cli.studio.jobs import Worker
from drama_cli.studio.security import TokenGuard, refusal
from drama_cli.takes.selection import select_take

STATIC = {"studio.js": "text/javascript", "studio.css": "text/css"}
# at the end, how long a running job may take to stop before the selections queued behind it
SELECTION_WAIT_S = 60.0
TAKE_NUMBER = re.compile(r"[0-9]{1,9}")  # ASCII digits only: str.isdigit also passes "²"
NO_STORE = {"Cache-Control": "no-store"}
AUDIO_TYPES = {".wav": "audio/wav", ".flac": "audio/flac", ".mp3": "audio/mpeg"}
# The page runs only its own script, is never framed by another site, and loads nothing else.
PAGE_HEADERS = {
    **NO_STORE,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'",
}


class Studio:
    """The state one studio serves: the project, the backend made on first use by
    `make_backend()` (kept for every later action) and the worker that runs actions."""

    def __init__(self, project, make_backend):
        self.project = project
        self._make_backend = make_backend
        self._backend = None
        self.worker = Worker(self._run)
        self._selecting = threading.Lock()  # the page's selections, one at a time

    def select(self, line_id: str, number: int) -> dict:
        """Select take `number` of `line_id` as `drama takes --line ID --select N` does;
        returns the line's view. Selections from the page wait for each other (the project
        lock refuses a second holder, even in this process). While this studio's own job
        holds the project, the selection is queued after it: returns `{"queued": job,
        "after": "KIND of ID"}`. Raises UsageError for an unknown line or take, RenderError
        when another process holds the project."""
        with self._selecting:
            try:
                select_take(self.project.script(), self.project.store, line_id, number)
            except RenderError:
                ahead = self.worker.pending()
                if not ahead:
                    raise
                queued = self.worker.submit("select", line_id, {"take": number})
                last = ahead[-1]
                return {"queued": queued.to_dict(), "after": f"{last.kind} of {last.line}"}
        return views.line_view(self.project, line_id)

    def _run(self, job) -> None:
        if self._backend is None and job.kind in NEEDS_ENGINE:
            job.message = "loading the engine"
            self._backend = self._make_backend()
        run_action(self.project, self._backend, job)

    def audition(self, body: dict) -> dict:
        """`casting.run_audition` with the studio's backend; refused (RenderError) while a job
        is queued or running, which holds the backend."""
        with self._selecting:
            if self.worker.pending():
                raise RenderError("wait for the jobs to finish before an audition")
            if self._backend is None:
                self._backend = self._make_backend()
            return casting.run_audition(self.project, self._backend, body)

    def close(self) -> list[tuple[str, int]]:
        """Stop the worker: the job running stops at its next step, the ones queued are
        dropped, except the selections queued behind a job (`select`), which are made. Close the
        backend. Returns the selections not made (the job before them did not stop within
        `SELECTION_WAIT_S`), as (line id, take number)."""
        queued = any(job.kind == "select" for job in self.worker.pending())
        left = self.worker.stop(SELECTION_WAIT_S if queued else 5.0, keep=("select",))
        if self._backend is not None:
            self._backend.close()
        return [(job.line, job.params["take"]) for job in left]


def make_app(studio: Studio, token: str) -> Starlette:
    """The ASGI app serving `studio`, guarded by `token` (`security.TokenGuard`)."""

    async def page(request):
        return Response(static_text("index.html"), media_type="text/html", headers=PAGE_HEADERS)

    async def static(request):
        name = request.path_params["name"]
        if name not in STATIC:
            return refusal(404, "no such file")
        return Response(static_text(name), media_type=STATIC[name], headers=NO_STORE)

    async def script(request):
        return await answer(views.script_view, studio.project)

    async def line(request):
        return await answer(views.line_view, studio.project, request.query_params.get("id", ""))

    async def audio(request):
        return await wav_response(take_wav, studio.project, request.query_params)

    async def scene(request):
        return await answer(views.scene_view, studio.project, request.query_params.get("id", ""))

    async def mix(request):
        return await wav_response(find_mix, studio.project, request.query_params)

    async def peaks(request):
        def read():
            take = find_take(studio.project, request.query_params)
            return {"duration_s": take.duration_s, "peaks": take_peaks(take.wav_path)}

        return await answer(read)

    async def changes(request):
        def read():
            return {
                "changes": studio.project.changes(),
                "jobs": [job.to_dict() for job in studio.worker.jobs()],
            }

        return await answer(read)

    async def select(request):
        def write(body):
            number = body.get("take")
            if not isinstance(number, int) or isinstance(number, bool):
                raise UsageError("take must be a take number")
            return studio.select(str(body.get("line", "")), number)

        return await answer_body(request, write)

    async def jobs(request):
        def queue(body):
            kind, line_id = str(body.get("kind", "")), str(body.get("line", ""))
            total = check_params(kind, body)
            check_target(studio.project, kind, line_id)
            params = {key: body[key] for key in ("note", "text", "from_take") if key in body}
            return studio.worker.submit(kind, line_id, params, total).to_dict()

        return await answer_body(request, queue)

    async def cancel(request):
        job = studio.worker.cancel(request.path_params["job"])
        if job is None:
            return refusal(404, "no such job")
        return JSONResponse(job.to_dict())

    async def cast_view(request):
        return await answer(casting.cast_view, studio.project)

    async def cast_audio(request):
        return await wav_response(cast_clip, studio.project, request.query_params)

    async def cast_audition(request):
        return await answer_body(request, studio.audition)

    async def cast_lock(request):
        return await answer_body(request, lambda body: casting.lock_take(studio.project, body))

    async def cast_apply(request):
        return await answer_body(request, lambda body: casting.apply_proposal(studio.project, body))

    async def attribution(request):
        if request.method == "POST":
            return await answer_body(
                request, lambda body: casting.choose_speaker(studio.project, body)
            )
        return await answer(casting.attribution_view, studio.project)

    async def no_icon(request):
        return Response(status_code=204)

    routes = [
        Route("/", page),
        Route("/static/{name}", static),
        Route("/favicon.ico", no_icon),
        Route("/api/script", script),
        Route("/api/line", line),
        Route("/api/audio", audio),
        Route("/api/peaks", peaks),
        Route("/api/scene", scene),
        Route("/api/mix", mix),
        Route("/api/changes", changes),
        Route("/api/select", select, methods=["POST"]),
        Route("/api/jobs", jobs, methods=["POST"]),
        Route("/api/jobs/{job:int}/cancel", cancel, methods=["POST"]),
        Route("/api/cast", cast_view),
        Route("/api/cast/audio", cast_audio),
        Route("/api/cast/audition", cast_audition, methods=["POST"]),
        Route("/api/cast/lock", cast_lock, methods=["POST"]),
        Route("/api/cast/apply", cast_apply, methods=["POST"]),
        Route("/api/attribution", attribution, methods=["GET", "POST"]),
    ]
    return Starlette(routes=routes, middleware=[Middleware(TokenGuard, token=token)])


async def answer(read, *args) -> Response:
    """`read(*args)` run off the event loop, as JSON; a DramaError as its error response, a
    failure of the file system (read-only folder, full disk) as 409 with its one line."""
    try:
        return JSONResponse(await run_in_threadpool(read, *args), headers=NO_STORE)
    except DramaError as err:
        return error_response(err)
    except Exception as err:
        if (message := system_error_message(err)) is None:
            raise
        return refusal(409, message)


async def wav_response(find, project, query) -> Response:
    """The audio file (WAV, FLAC or MP3) `find(project, query)` names (run off the event loop),
    or the error response of the DramaError it raises."""
    try:
        path = await run_in_threadpool(find, project, query)
    except DramaError as err:
        return error_response(err)
    except Exception as err:
        if (message := system_error_message(err)) is None:
            raise
        return refusal(409, message)
    return FileResponse(path, media_type=AUDIO_TYPES[path.suffix], headers=NO_STORE)


def error_response(err: DramaError) -> Response:
    """409 when the project is held by another process (`RenderError`), else 400."""
    return refusal(409 if isinstance(err, RenderError) else 400, str(err))


async def answer_body(request, write) -> Response:
    """`write(body)` with the request's JSON object, answered as `answer` does; 400 when the
    body is not a JSON object."""
    try:
        body = json.loads(await request.body())
    except ValueError:
        return refusal(400, "the request body must be JSON")
    if not isinstance(body, dict):
        return refusal(400, "the request body must be an object")
    return await answer(write, body)


def find_take(project, query) -> object:
    """The valid take `take=N` of line `line=ID`, found through the store only (the request
    never names a path). Raises UsageError for an unknown line, a take number that is not a
    number or not a valid take, or a take file that lies outside the project folder."""
    scene, line = project.find_scene_line(query.get("line", ""))
    number = query.get("take", "")
    if not TAKE_NUMBER.fullmatch(number):
        raise UsageError("take must be a take number")
    try:  # this take's files only: a line may have hundreds of takes, each fetched apart
        take = project.store.take(scene.id, line.id, int(number))
    except RenderError:
        raise UsageError(f"line {line.id!r} has no take {number}") from None
    inside_project(project, take.wav_path, f"take {number} of line {line.id!r}")
    return take


def take_wav(project, query) -> Path:
    """The WAV file of the take `find_take` finds."""
    return find_take(project, query).wav_path


def find_mix(project, query) -> Path:
    """The mix of scene `scene=ID` (WAV, FLAC or MP3: `views.scene_mix_file`), found through the
    store. Raises UsageError for an unknown scene, a scene not mixed yet, or a mix file outside
    the project folder."""
    scene = project.find_scene(query.get("scene", ""))
    path = views.scene_mix_file(project.store.scene_dir(scene.id))
    if path is None:
        raise UsageError(f"scene {scene.id!r} has no mix yet")
    inside_project(project, path, f"the mix of scene {scene.id!r}")
    return path


def cast_clip(project, query) -> Path:
    """The clip `casting.voice_clip` finds: a WAV, FLAC or MP3 in the script's folder or the
    voice library."""
    path, library = casting.voice_clip(project, query)
    if path.suffix not in AUDIO_TYPES or not path.is_file():
        raise UsageError(f"{query.get('character', '')}'s clip cannot be played here")
    folders = (project.script_path.parent.resolve(), library.resolve())
    if not any(path.resolve().is_relative_to(folder) for folder in folders):
        raise UsageError("the clip lies outside the script's folder and the voice library")
    return path


def inside_project(project, path: Path, what: str) -> None:
    """Raise UsageError when `path`, links followed, lies outside the project folder."""
    if not path.resolve().is_relative_to(project.store.root.resolve()):
        raise UsageError(f"{what} lies outside the project folder")


@lru_cache(maxsize=256)
def take_peaks(path: Path) -> list:
    """`views.peaks` of a take's WAV; takes are never overwritten, so a path's peaks stay."""
    # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
    from drama_cli.mix.timeline import read_take

    return views.peaks(read_take(path))


@cache
def static_text(name: str) -> str:
    """A file of the page shipped in the package (`drama_cli/studio/static/`)."""
    return resources.files("drama_cli.studio").joinpath("static", name).read_text(encoding="utf-8")
