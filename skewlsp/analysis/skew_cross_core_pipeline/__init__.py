"""SkewCrossCorePipeline (``skew_cross_core_pipeline_pass.cpp``, pass 26).

:mod:`.decide` is its decision procedure in the compiler's order, :mod:`.depth` the
depth it picks, :mod:`.fifo_order` what a skew does to the order of each FIFO (which
the compiler does not check), and :mod:`.per_core` runs the decision on each core's
copy of a loop that ExpandMixedKernel split.
"""
