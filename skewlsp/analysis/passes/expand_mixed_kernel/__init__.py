"""ExpandMixedKernel (``expand_mixed_kernel_pass.cpp``, pass 21): an InCore function
whose ops run on both cores becomes a cube (AIC) and a vector (AIV) function.

:mod:`.core_sides` gives every value and statement its side from the op registry,
:mod:`.core_split` makes both cores' copies of a loop body with the messages the
compiler adds (where InferTileMemorySpace's moves are: ``passes.infer_tile_memory_space``).
"""
