"""JupyterLab as an entry point: a real `jupyter lab` on 127.0.0.1 with a token serves the
notebooks and the `citerag` kernelspec, starts that kernel, runs `import citerag` in it (and a
tqdm progress bar, which must draw as a widget, not warn), and shuts everything down."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from conftest import ROOT, free_port, wait_until_up

pytest.importorskip("jupyterlab", reason="`make test` installs the lab extra")


def _api(base: str, token: str, path: str, method: str = "GET", body: dict | None = None):
    req = urllib.request.Request(f"{base}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        data = resp.read()
        return resp.status, (json.loads(data) if data else None)


async def _execute(ws_url: str, code: str, timeout: float = 120) -> tuple[str, str]:
    """Run `code` over the kernel's websocket; (execute_reply status, stdout)."""
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(ws_url)
    msg_id = uuid.uuid4().hex
    ws.write_message(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex, "msg_type": "execute_request",
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    out, status, idle, deadline = [], None, False, time.time() + timeout
    while status is None or not idle:  # output may arrive after the reply: wait for idle too
        raw = await asyncio.wait_for(ws.read_message(), max(1, deadline - time.time()))
        assert raw is not None, "kernel websocket closed"
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "stream":
            out.append(msg["content"]["text"])
        elif kind == "error":
            out.append("\n".join(msg["content"]["traceback"]))
        elif kind == "execute_reply":
            status = msg["content"]["status"]
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            idle = True
    ws.close()
    return status, "".join(out)


def test_jupyterlab_serves_the_notebooks_and_runs_the_citerag_kernel(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}", "--ServerApp.open_browser=False",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "lab.log", "w"))  # noqa: SIM115
    base = f"http://127.0.0.1:{port}"
    kernel_id = None
    try:
        wait_until_up(f"{base}/api/status", proc, "jupyter lab", 90, tmp_path / "lab.log",
                      {"Authorization": f"token {token}"})
        with pytest.raises(urllib.error.HTTPError):  # the token is required
            urllib.request.urlopen(f"{base}/api/contents/notebooks", timeout=10)
        status, listing = _api(base, token, "/api/contents/notebooks")
        names = {c["name"] for c in listing["content"]}
        assert {p.name for p in (ROOT / "notebooks").glob("0*.ipynb")} <= names
        assert "07_compare_runs.ipynb" in names
        _, specs = _api(base, token, "/api/kernelspecs")
        assert "citerag" in specs["kernelspecs"]
        _, lab_page = 200, urllib.request.urlopen(f"{base}/lab?token={token}", timeout=30).read()
        assert b"JupyterLab" in lab_page

        _, kernel = _api(base, token, "/api/kernels", "POST", {"name": "citerag"})
        kernel_id = kernel["id"]
        ws = f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?token={token}"
        code = ("import warnings; warnings.simplefilter('error')\n"
                "import citerag, ipywidgets\n"
                "from tqdm.auto import tqdm\n"
                "from tqdm.notebook import tqdm_notebook\n"
                "bar = tqdm(total=2); bar.update(2); bar.close()\n"
                "print('citerag from', citerag.__file__, '| widget:', isinstance(bar, tqdm_notebook))")
        status, out = asyncio.run(_execute(ws, code))
        assert status == "ok", out
        assert str(Path(ROOT / "lib" / "citerag")) in out
        assert "widget: True" in out            # a widget; the IProgress warning would have raised
        code, _ = _api(base, token, f"/api/kernels/{kernel_id}", "DELETE")
        assert code == 204
        kernel_id = None
        _, running = _api(base, token, "/api/kernels")
        assert running == []
    finally:
        if kernel_id:
            with contextlib.suppress(OSError):
                _api(base, token, f"/api/kernels/{kernel_id}", "DELETE")
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode is not None
