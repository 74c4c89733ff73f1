"""What every studio request must pass before it reaches the project: the studio's secret token
(in the URL the command prints, then in an HttpOnly cookie), the same origin for requests that
change something, and a bounded body. A request that fails gets 403 (411, 413) and changes
nothing."""

from __future__ import annotations

import hmac
import secrets

from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import JSONResponse

COOKIE = "drama_studio"  # and the port: `cookie_name`
MAX_BODY_BYTES = 64 * 1024  # a note or a line's new text; nothing larger is ever sent
SAFE_METHODS = ("GET", "HEAD")


def new_token() -> str:
    """A fresh random token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def refusal(status: int, message: str) -> JSONResponse:
    """A JSON error response `{"error": message}` with `status`."""
    return JSONResponse({"error": message}, status_code=status)


def cookie_name(request) -> str:
    """The token's cookie for the port that served `request`: a browser sends a host's cookies
    to every port of it, so two studios open at once must not share one name (the second link
    opened would lock the first page out)."""
    server = request.scope.get("server") or ("", None)
    return f"{COOKIE}_{server[1]}" if server[1] else COOKIE


class TokenGuard(BaseHTTPMiddleware):
    """Let through only requests that carry `token` (query `token=` or the cookie), come from
    the page's own origin when they change state, and have a body of at most MAX_BODY_BYTES
    with its length declared. A request carrying the token in its query sets the cookie."""

    def __init__(self, app, token: str):
        super().__init__(app)
        self.token = token

    def _matches(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    async def dispatch(self, request, call_next):
        cookie = cookie_name(request)
        from_query = self._matches(request.query_params.get("token"))
        if not (from_query or self._matches(request.cookies.get(cookie))):
            return refusal(403, "this page needs the link `drama studio` printed (with its token)")
        if request.method not in SAFE_METHODS:
            problem = self._write_problem(request)
            if problem:
                return refusal(*problem)
        response = await call_next(request)
        if from_query:
            response.set_cookie(cookie, self.token, httponly=True, samesite="strict", path="/")
        return response

    @staticmethod
    def _write_problem(request) -> tuple[int, str] | None:
        """Why a state-changing request is refused: another origin (403), no declared length
        (411) or too large a body (413); None when it may go on."""
        origin = request.headers.get("origin")
        if origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            return 403, "a change must come from the studio's own page"
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            return 411, "a change must declare its length"
        if int(length) > MAX_BODY_BYTES:
            return 413, f"a request body may hold at most {MAX_BODY_BYTES} bytes"
        return None
