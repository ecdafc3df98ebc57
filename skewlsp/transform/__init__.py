"""The pure transform layer: (source, analysed loop) -> the rewritten loop as source text.

``preview_model`` shows what SkewCrossCorePipeline makes of one loop (the
skewed prologue / steady loop / epilogue, or the demoted sequential loop),
``rewrite_model`` puts that rewrite into the whole file, ``loop_source``
returns the original loop. Nothing here executes or writes anything.

Unrolled bodies are shown inlined, as the compiler sees them: a statement
copied from ``for j in pl.unroll(2)`` appears once per copy with ``j``
replaced by its value (and folded); a one-trip ``pl.range`` the compiler
collapses is inlined the same way. Names: each clone binds fresh names
(``qa_p0`` .. ``qa_p{2D-1}`` for produce clones, ``e_c0`` .. for consume
clones; a name bound twice in one body is rebound within its clone). Names the
surrounding code depends on (loop-carried without ``init_values``, or read
after the loop) keep their spelling: program order makes them correct.
Nested cross-core calls stay inline in their statement. Under ``pl.unroll`` every
copy is rewritten with its own constants; a parent skewed after its inner pipeline is
rewritten after that inner loop, as the compiler does. Not shown (refused with
``PreviewUnavailable``): nested ``pl.unroll`` loops inside the body, depth > 64.
"""

from skewlsp.contract import PreviewUnavailable
from skewlsp.transform.api import loop_source, preview_model, rewrite_model

__all__ = ["PreviewUnavailable", "loop_source", "preview_model", "rewrite_model"]
