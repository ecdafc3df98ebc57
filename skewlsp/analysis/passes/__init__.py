"""The passes before SkewCrossCorePipeline that change what it sees.

One module (or package) per upstream pass modelled, named after it; each docstring
names the ``src/ir/transforms/*_pass.cpp`` file it follows. In the compiler's order
(``docs/en/dev/passes/``): 01 :mod:`.inline_functions`, 02 :mod:`.unroll_loops`,
04 :mod:`.convert_to_ssa`, 05 :mod:`.simplify`, 06 :mod:`.flatten_call_expr`,
08 :mod:`.outline_incore_scopes`, 10 :mod:`.convert_tensor_to_tile_ops`,
15 :mod:`.auto_tile_matmul_l0`, 17 :mod:`.infer_tile_memory_space`,
19 :mod:`.resolve_backend_op_layouts`, 20 :mod:`.lower_auto_vector_split`,
21 :mod:`.expand_mixed_kernel`, 23 :mod:`.split_vector_kernel`.

Not passes: :mod:`.body` (the statement list the passes hand each other),
:mod:`.loop_body` (the walk that makes it from a loop's source) and :mod:`.header` (the
``pl.pipeline`` header as the DSL parser folds it).
"""
