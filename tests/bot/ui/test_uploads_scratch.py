"""No uploads (the middleware, over a real HTTP stack) and the server's own temporary folder (made,
pointed at by GRADIO_TEMP_DIR, removed; SIGTERM turned into the Ctrl+C that runs the cleanup)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from bot.ui.scratch import GRADIO_TEMP, scratch_folder, stopping_on_signals
from bot.ui.uploads import REFUSAL, NoUploads, refused


def _app(seen: list[str]) -> Starlette:
    async def anything(request):  # type: ignore[no-untyped-def]
        seen.append(request.url.path)
        await request.body()
        return PlainTextResponse("reached")

    routes = [Route("/{path:path}", anything, methods=["GET", "POST"])]
    return Starlette(routes=routes, middleware=[Middleware(NoUploads)])


def test_file_routes_and_multipart_bodies_are_refused_before_the_app_sees_them() -> None:
    seen: list[str] = []
    client = TestClient(_app(seen))
    big = b"x" * 2_000_000
    for path in ("/gradio_api/upload", "/gradio_api/upload/", "/gradio_api/process_recording"):
        response = client.post(path, files={"files": ("a.bin", big)})
        assert response.status_code == 403, path
        assert response.json() == {"detail": REFUSAL}
    # A multipart body anywhere else is refused too; JSON and plain requests go through.
    assert client.post("/gradio_api/component_server", files={"f": ("a", b"x")}).status_code == 403
    assert client.post("/gradio_api/call/ask", json={"data": ["hi"]}).text == "reached"
    assert client.get("/gradio_api/upload_progress").text == "reached"
    assert seen == ["/gradio_api/call/ask", "/gradio_api/upload_progress"]


def test_refused_scopes() -> None:
    assert refused({"type": "http", "path": "/prefix/gradio_api/upload", "headers": []})
    assert refused({"type": "http", "path": "/", "headers": [(b"content-type", b"Multipart/Form-Data; b=x")]})
    assert not refused({"type": "http", "path": "/gradio_api/queue/join", "headers": []})
    assert not refused({"type": "websocket", "path": "/gradio_api/upload", "headers": []})


def test_the_scratch_folder_holds_gradios_cache_and_goes_away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GRADIO_TEMP, "/somewhere/else")
    with scratch_folder(tmp_path) as folder:
        assert folder.parent == tmp_path and folder.name.startswith(f"paperbot-serve-{os.getpid()}-")
        assert os.environ[GRADIO_TEMP] == str(folder / "gradio")
        (folder / "gradio" / "abc").mkdir(parents=True)
        (folder / "gradio" / "abc" / "upload.bin").write_bytes(b"x" * 1000)
    assert not folder.exists()
    assert os.environ[GRADIO_TEMP] == "/somewhere/else"


def test_the_scratch_folder_goes_away_on_an_error_too(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), scratch_folder(tmp_path) as folder:
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == [] and not folder.exists()


def test_sigterm_becomes_the_interrupt_that_runs_cleanup() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), stopping_on_signals():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # Python runs the handler between two bytecodes of the main thread
            pass
    assert signal.getsignal(signal.SIGTERM) is before
