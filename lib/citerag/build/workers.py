"""Set-up for build worker processes; this module must not import pymupdf (see below)."""

from __future__ import annotations


def one_thread_per_worker() -> None:
    """Pool initializer: onnxruntime sessions (pymupdf's layout model) run on one thread.

    With its default of one thread per core, one extraction keeps two cores busy, but much of
    that is spin-waiting (measured: 34 CPU-s for 18 s wall on two reference-corpus documents; 22.7 CPU-s on
    one thread). One document per core on one thread each does the same work in less wall time
    and gives the same pages (all 309 reference-corpus pages identical). `import pymupdf` creates the
    layout sessions, so this runs first, in a fresh (spawned) process, before that import."""
    import onnxruntime as ort

    make = ort.InferenceSession.__init__

    def one_thread(self, path_or_bytes, sess_options=None, *args, **kwargs) -> None:
        opts = sess_options or ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        make(self, path_or_bytes, opts, *args, **kwargs)

    ort.InferenceSession.__init__ = one_thread
