"""No file uploads: the chat takes typed questions only, so every way Gradio offers to send it a file
is refused before a byte of the body is read. No gradio here; an ASGI middleware bot.ui.serve
installs in the server's app.

Gradio writes what it is sent to disk at /gradio_api/upload (any size, by anyone who can reach
the port), /gradio_api/process_recording (a video), and for multipart bodies of
/gradio_api/component_server; none of them serves a widget of this app.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Paths, after the API prefix, whose only use is receiving files.
FILE_ROUTES = ("upload", "process_recording")
REFUSAL = "paperbot's chat takes no file uploads; type your question instead"


def refused(scope: Scope) -> bool:
    """Whether an HTTP request would send the server a file.

    Example: refused({"type": "http", "path": "/gradio_api/upload", "headers": []}) -> True
    """
    if scope.get("type") != "http":
        return False
    path = str(scope.get("path", "")).rstrip("/")
    if any(path.endswith(f"/gradio_api/{route}") for route in FILE_ROUTES):
        return True
    headers = dict(scope.get("headers") or [])
    return bytes(headers.get(b"content-type", b"")).lower().startswith(b"multipart/")


class NoUploads:
    """ASGI middleware answering 403 to every request `refused` names, passing the rest to `app`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not refused(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": REFUSAL}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})
