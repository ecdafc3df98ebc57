"""Source text to trees, positions and lines: nothing here knows pypto.

The analysis reads libcst-shaped trees. Where it can, it reads trees made from the
stdlib parser's (:mod:`.cst_from_ast`, several times cheaper than libcst's parse);
a rewrite, and any unit a made tree cannot serve exactly, gets libcst's own. One
analysis's parses (:mod:`.unit_parses`) and made trees (:mod:`.tree_text`) are held
by its state (``frontend.state.AnalysisState``), which decides which tree is read.
"""
