"""The passes before SkewCrossCorePipeline that change what it sees.

One module (or package) per upstream pass modelled, named after it; each docstring
names the ``src/ir/transforms/*_pass.cpp`` file it follows. In the compiler's order
(``docs/en/dev/passes/``):

- 01 InlineFunctions: :mod:`.inline_functions`;
- 02 UnrollLoops, 05 Simplify and the body the skew pass walks: :mod:`.loop_body`,
  :mod:`.simplify`, :mod:`.header` (the ``pl.pipeline`` header as folded);
- 06 FlattenCallExpr: :mod:`.flatten_call_expr`;
- 15 AutoTileMatmulL0: :mod:`.auto_tile_matmul_l0`;
- 21 ExpandMixedKernel: :mod:`.expand_mixed_kernel`.
"""
