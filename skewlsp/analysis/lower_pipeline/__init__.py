"""The passes that lower the pipeline loops the skew pass leaves (pass docs 27 and 28).

- 27 LowerPipelineToSlots (``memory_planner=PTOAS`` only): :mod:`.lower_pipeline_to_slots`;
- 28 LowerPipelineLoops: :mod:`.lower_pipeline_loops`;
- :mod:`.lowering`: both, in the compiler's order, over one module's loops.
"""
