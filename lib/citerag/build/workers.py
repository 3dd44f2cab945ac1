"""Set-up for build worker processes; this module must not import pymupdf (see below)."""

from __future__ import annotations

_state: dict = {}  # "make": onnxruntime's own session constructor; "one_thread": the limit set


def layout_sessions(one_thread: bool) -> None:
    """Options for every onnxruntime session created from now on in this process (pymupdf's
    layout model makes its sessions with `make_session`, which we cannot pass options to).

    - The memory arena is on. pymupdf-layout turns it off, so that a long-lived process reading
      pages of many sizes returns memory to the system; but then the page-image network's
      57 MB output and its intermediates are allocated and freed on every page. Measured on this
      2-core machine, one thread: 158 → 100 ms per page for that network, same outputs. A build
      extracts in short-lived processes, and the arena is bounded by the largest page.
    - `one_thread` (worker processes): one intra- and inter-op thread. With its default of a
      thread per core, one extraction keeps two cores busy, but much of that is spin-waiting
      (measured: 34 CPU-s for 18 s wall on two reference-corpus documents; 22.7 CPU-s on one
      thread). One document per core on one thread each does the same work in less wall time and
      gives the same pages (all 309 reference-corpus pages identical).

    `import pymupdf` creates the default layout sessions, so worker processes run this first, in
    a fresh (spawned) process, before that import. Later calls only add the thread limit."""
    if _state and (_state["one_thread"] or not one_thread):
        return
    import onnxruntime as ort

    make = _state.get("make") or ort.InferenceSession.__init__

    def configured(self, path_or_bytes, sess_options=None, *args, **kwargs) -> None:
        opts = sess_options or ort.SessionOptions()
        opts.enable_cpu_mem_arena = True
        if one_thread:
            opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        make(self, path_or_bytes, opts, *args, **kwargs)

    ort.InferenceSession.__init__ = configured
    _state.update(make=make, one_thread=one_thread)


def one_thread_per_worker() -> None:
    """Pool initializer of extraction workers: see `layout_sessions`."""
    layout_sessions(one_thread=True)
