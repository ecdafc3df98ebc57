"""LowerAutoVectorSplit: a ``pl.split_aiv`` region puts its function in manual split mode.

The pass lowers each ``for lane in pl.split_aiv(...)`` region in place and erases the
region (the body walk, :mod:`.loop_body`, leaves its statements in the vector
function), and marks the function ``split_aiv``: SplitVectorKernel then runs the vector
function as it is, once, instead of dispatching it on both lanes
(:mod:`.split_vector_kernel`). What is modelled is only whether a region is there.

Models: ``src/ir/transforms/lower_auto_vector_split_pass.cpp`` (pass doc 20).
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.scope import is_split_aiv_region
from skewlsp.analysis.source.walk import walk


def opens_lane_regions(scope: cst.CSTNode) -> bool:
    """Whether the outlined scope opens a ``pl.split_aiv`` region (manual mode)."""
    return any(is_split_aiv_region(node) for node in walk(scope))
