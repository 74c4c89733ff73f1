"""`drama studio`: serve a project's page on this machine until Ctrl-C."""

from __future__ import annotations

import ipaddress
import signal
import socket
import threading
import webbrowser

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked
from drama_cli.commands.output import notice
from drama_cli.commands.rendered import project_backend
from drama_cli.errors import DramaError, UsageError
from drama_cli.studio.project import StudioProject

LOCAL_HOST = "127.0.0.1"


@opt.PROJECT_BACKEND.into("backend")
def studio_command(
    script: str = opt.SCRIPT_FILE,
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    port: int = typer.Option(0, help="Port to serve on (default: a free one)."),
    host: str = typer.Option(
        LOCAL_HOST,
        help="Address to serve on; anything but a loopback "
        "address (127.0.0.1, ::1) lets other machines "
        "reach the page (the link's token still guards "
        "it).",
    ),
    no_open: bool = typer.Option(
        False, "--no-open", help="Print the link without opening a browser."
    ),
    backend: dict = None,  # the PROJECT_BACKEND group's options: --engine, --model, --device, --gpu-memory
) -> None:
    """Listen to, compare, select, revise and edit takes in a web page on this machine. Prints
    the page's link (with its secret token) and serves it until Ctrl-C; the engine loads with
    the first action that makes a take."""
    # lazy: starlette and the script reader (yaml), 0.17 s at start-up
    from drama_cli.script.load import load_script
    from drama_cli.studio.app import Studio, make_app
    from drama_cli.studio.security import new_token

    if script == "-":
        raise UsageError("the studio needs a script file (it reads the file again when it changes)")
    if not host.strip():  # the socket would take "" as every interface
        raise UsageError(f"--host needs an address, such as {LOCAL_HOST} (this machine only)")
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, got {port}")
    loaded = load_checked(script, cast)  # a bad script stops here, its warnings printed once
    project = StudioProject(script, out, lambda path: load_script(path, cast=cast), loaded)
    studio = Studio(project, lambda: project_backend(project.store, backend))
    token = new_token()
    listener = open_socket(host, port)
    url = page_url(host, listener.getsockname()[1], token)
    if not is_loopback(host):
        notice(
            f"warning: serving on {host}: anyone who can reach it and has the link can change "
            "this project"
        )
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # see `serve`
    try:
        print(f"drama studio: {url}", flush=True)
        notice("press Ctrl-C to stop")
        threading.Thread(target=warm_up, args=(project,), daemon=True).start()
        if not no_open:
            threading.Timer(0.5, webbrowser.open, (url,)).start()
        serve(make_app(studio, token), listener)
    finally:
        signal.signal(signal.SIGINT, before)
        for line_id, take in studio.close():
            notice(
                f"warning: take {take} of line {line_id} was not selected (the job before it "
                f"did not stop); select it with: drama takes {script} --line {line_id} "
                f"--select {take}"
            )


def warm_up(project) -> None:
    """Judge every line once, then import what the line and scene views need, while the
    browser opens, so the first page waits for neither. A problem shows on the page instead."""
    from drama_cli.studio.views import (
        script_view,  # lazy: the script reader (yaml), 50 ms at start-up
    )

    try:
        script_view(project)
    except DramaError:
        pass
    # lazy: scipy and matplotlib (loaded here in the background), 1.2 s at start-up
    import drama_cli.edit.revise  # noqa: F401  (finds a line for the line view)
    import drama_cli.plot  # noqa: F401  (the scene view's timeline)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost): no warning."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may reach the network
        return False


def page_url(host: str, port: int, token: str) -> str:
    """The link to the page served on `host`:`port` with `token`; an IPv6 address in
    brackets, as URLs write it."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def open_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (0: a free port). Raises UsageError when the
    address cannot be used (taken, not this machine's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as err:
        listener.close()
        raise UsageError(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
    listener.listen(64)
    return listener


def serve(app, listener: socket.socket) -> None:
    """Serve `app` on `listener` until Ctrl-C, which then reaches the caller as
    KeyboardInterrupt, after the server has shut down, whenever it comes.

    Before the server starts, Ctrl-C is Python's own KeyboardInterrupt: the caller installs
    `signal.default_int_handler`, since a process started with SIGINT ignored (a background
    job, some test runners) would otherwise keep ignoring it. While it serves, uvicorn takes
    SIGINT, shuts down and sends the signal again to the handler it found; that handler may be
    asyncio's (which cancels the server's task), Python's, or one that ignores it, so whether
    KeyboardInterrupt came out of `run` depended on when and how the process started. The
    server therefore notes the SIGINT it took and, when `run` returns normally after one, this
    raises KeyboardInterrupt itself."""
    import uvicorn  # lazy: uvicorn, 20 ms at start-up

    class Server(uvicorn.Server):
        interrupted = False

        def handle_exit(self, sig, frame) -> None:
            self.interrupted = self.interrupted or sig == signal.SIGINT
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = Server(config)
    server.run(sockets=[listener])
    if server.interrupted:
        raise KeyboardInterrupt


def register(app: typer.Typer) -> None:
    """Add `studio` to the app."""
    app.command("studio")(studio_command)
