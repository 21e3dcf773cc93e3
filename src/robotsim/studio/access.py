"""Who may open the studio page: a per-launch token and the page's own origins.

viser serves the page's files and its websocket from one ``websockets`` server. The
studio puts :class:`PageAccess` in front of viser's own request handler on that server
(``Server.process_request``, a documented attribute of ``websockets``), so every
request, files and websocket alike, is checked before viser sees it:

- **token**: a request must carry the launch token, as ``?token=...`` in the URL the
  studio prints or as the cookie the first good request sets (``HttpOnly``,
  ``SameSite=Strict``, named after the port), so the page's own files and websocket
  need not repeat it. No or a wrong token: ``403`` with a one-line message. Without a
  token (``robotsim studio --no-token``) this check is off;
- **origin**: a websocket whose ``Origin`` is not the studio page's own
  (``http://127.0.0.1:PORT``, ``http://localhost:PORT``, ``http://[::1]:PORT``, the
  bound address) is refused with ``403``, token or not: a page of another site (or of
  another port on this machine, which the browser sends the cookie to) cannot drive
  the studio.

viser has no hook of its own for this; the server object is found by the port it
listens on (:func:`find_websockets_server`), and connections accepted in the moment
between viser's start and :meth:`PageAccess.install` are closed.
"""

from __future__ import annotations

import asyncio
import gc
import hmac
import inspect
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from ipaddress import ip_address
from typing import Any
from urllib.parse import parse_qs, urlsplit

from robotsim.errors import RobotsimError

__all__ = ["Decision", "PageAccess", "find_websockets_server", "new_token"]

WILDCARD_HOSTS = ("0.0.0.0", "::", "")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def new_token() -> str:
    """A fresh launch token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class Decision:
    """What :meth:`PageAccess.decide` says about one request."""

    allowed: bool
    reason: str = ""  # why it is refused (shown to the client, no secrets in it)
    set_cookie: bool = False  # the URL carried the right token: remember it


def _is_ip_literal(host: str) -> bool:
    try:
        ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


class PageAccess:
    """The checks of one studio page (see the module docstring).

    Args:
        host: the address the studio binds.
        port: the port the page is served on.
        token: the launch token, or None for no token check (``--no-token``).
    """

    def __init__(self, host: str, port: int, token: str | None) -> None:
        self.host = host
        self.port = int(port)
        self.token = token
        self.cookie_name = f"robotsim-studio-{self.port}"
        self._lock = threading.Lock()
        self._refused: list[str] = []

    # ------------------------------------------------------------- the checks
    @property
    def refused(self) -> tuple[str, ...]:
        """Why each refused request was refused, oldest first (for tests and logs)."""
        with self._lock:
            return tuple(self._refused)

    def origins(self, host_header: str | None = None) -> frozenset[str]:
        """The origins a websocket may come from. A studio bound to every interface
        also accepts the page opened by IP address (``Host`` is an IP literal); a name
        other than ``localhost`` is never accepted (DNS rebinding)."""
        names = set(LOOPBACK_NAMES)
        if self.host not in WILDCARD_HOSTS:
            names.add(f"[{self.host}]" if ":" in self.host else self.host)
        out = {f"http://{n}:{self.port}" for n in names}
        if self.host in WILDCARD_HOSTS and host_header:
            hostname = urlsplit(f"http://{host_header}").hostname or ""
            if _is_ip_literal(hostname):
                out.add(f"http://{host_header}")
        return frozenset(out)

    def decide(self, target: str, headers: Mapping[str, str] | Any) -> Decision:
        """Check one request: ``target`` is the request line's path and query,
        ``headers`` its headers (a mapping with ``get``; ``get_all`` is used for
        repeated ``Cookie`` headers when it exists)."""
        upgrade = str(headers.get("Upgrade", "")).lower() == "websocket"
        if upgrade:
            origin = headers.get("Origin")
            if origin is not None and origin not in self.origins(headers.get("Host")):
                return Decision(False, "this page's origin may not open the studio")
        if self.token is None:
            return Decision(True)
        query = urlsplit(target).query
        url_tokens = parse_qs(query).get("token", [])
        if url_tokens:
            if len(url_tokens) == 1 and self._matches(url_tokens[0]):
                return Decision(True, set_cookie=self._cookie(headers) != self.token)
            return Decision(False, "wrong token: open the URL robotsim studio printed")
        if self._matches(self._cookie(headers)):
            return Decision(True)
        return Decision(
            False, "no token: open the URL robotsim studio printed (it ends ?token=...)"
        )

    def _matches(self, value: str | None) -> bool:
        assert self.token is not None
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    def _cookie(self, headers: Any) -> str | None:
        get_all: Callable[[str], list[str]] | None = getattr(headers, "get_all", None)
        values = get_all("Cookie") if get_all is not None else [headers.get("Cookie") or ""]
        for value in values:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value)
            except CookieError:
                continue
            if self.cookie_name in jar:
                return jar[self.cookie_name].value
        return None

    def cookie_header(self) -> str:
        """The ``Set-Cookie`` value that remembers the token for this page."""
        assert self.token is not None
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    # ------------------------------------------------------------ the server
    def install(self, server: Any) -> None:
        """Put the checks in front of ``server``'s request handler (a
        ``websockets.asyncio.server.Server``) and close any connection it accepted
        before."""
        inner = server.process_request

        async def process_request(connection: Any, request: Any) -> Any:
            decision = self.decide(request.path, request.headers)
            if not decision.allowed:
                with self._lock:
                    self._refused.append(decision.reason)
                return connection.respond(
                    HTTPStatus.FORBIDDEN, f"robotsim studio: {decision.reason}\n"
                )
            response = None if inner is None else inner(connection, request)
            if inspect.isawaitable(response):
                response = await response
            if response is not None and decision.set_cookie:
                response.headers["Set-Cookie"] = self.cookie_header()
            return response

        server.process_request = process_request
        for connection in list(server.connections):
            asyncio.run_coroutine_threadsafe(
                connection.close(1008, "the studio's access check starts"), server.loop
            )


def find_websockets_server(port: int) -> Any:
    """The ``websockets.asyncio.server.Server`` of this process listening on ``port``.

    Young objects are searched first (the server was just created), then the rest."""
    from websockets.asyncio.server import Server

    def listens_on_port(server: Server) -> bool:
        try:
            return any(s.getsockname()[1] == port for s in server.sockets)
        except (AttributeError, OSError):  # not serving yet, or closed
            return False

    for generation in (0, 1, 2):
        for obj in gc.get_objects(generation):
            if isinstance(obj, Server) and listens_on_port(obj):
                return obj
    raise RobotsimError(
        f"studio: cannot find the web server on port {port} to check its requests "
        "(a viser version this studio does not know?)"
    )
