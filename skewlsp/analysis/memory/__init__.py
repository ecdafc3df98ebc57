"""The memory passes after the lowering (pass docs 31, 33 and 34), per core function.

Each pass module is a pure function from a function's tiles to that pass's result;
:mod:`.function_passes` runs them over a :class:`.core_function.CoreFunction` for the
driver's function stage (each loop's loads alone; a scope's Vec tiles together where
every one is known; a cube function's Left and Right tiles whole, and its Mat tiles), and
``report/memory.py`` puts what that decides on the loop's report; ``scope_alone`` runs
them over an InCore scope with no pipeline loop for ``driver.scope_stage``, and
``report/scope_memory.py`` reports the scope.

- :mod:`.chip`: the on-chip memories of each backend (capacity, alignment);
- 31 InitMemRef: :mod:`.init_memref` (a tile's bytes, its buffer);
- 33 MemoryReuse: :mod:`.memory_reuse` (the pipeline-stage guard: the depth a
  ``stage=`` really buys, the PH-MR-001 hint, the legacy fallback);
- 34 AllocateMemoryAddr: :mod:`.allocate_memory_addr` (where the buffers sit, and the
  overflow that fails the compile);
- :mod:`.canonicalize_io_order`: a function's stage-group tiles from the analysis' records of
  its loops (their loads and lowering), the input of the two above; and, where every Vec
  tile of an InCore scope is known (``analysis/passes/op_conversion``), the whole scope's
  Vec tiles laid out together;
- :mod:`.l0_tiles`: the Left and Right tiles of a cube function's matmuls (AutoTileMatmulL0's
  K loops included), packed whole per outlined scope;
- :mod:`.mat_tiles`: the Mat (L1) tiles of a cube function, what they decide of a loop's
  depth there (all apart within L1, or packed with their lifetimes).
"""
