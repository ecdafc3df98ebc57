"""Source text to trees, positions and lines: nothing here knows pypto.

The analysis reads libcst-shaped trees. Where it can, it reads trees made from the
stdlib parser's (:mod:`.cst_from_ast`, several times cheaper than libcst's parse);
a rewrite, and any unit a made tree cannot serve exactly, gets libcst's own
(:class:`.state.AnalysisState` decides which, and holds one analysis's parses and
made trees: :mod:`.unit_parses`, :mod:`.tree_text`).
"""
