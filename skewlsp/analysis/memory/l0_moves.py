"""Which whole matmul operands share one move into Left or Right (L0A, L0B).

InferTileMemorySpace (``infer_tile_memory_space_pass.cpp``) puts a ``tile.move`` into
Left or Right before the first statement of a block that reads a Mat tile there, and
keeps it for the rest of that block and the blocks nested in it; leaving a block drops
the moves it made (so each branch of an ``if`` moves its own). The kept dumps of
pypto-lib show both: deepseek_v4_pro/decode_indexer_compressor.py's two matmuls of a
branch read one ``x_tile_Left``, gate.py's two branches each move ``gd_x`` into Left.
:mod:`.l0_tiles` lays a shared move out once, live until its last reader.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.analysis.passes.body import MatmulSite, SiteBlock

ONE_MOVE = "two matmuls read one operand whole, through one move: not modelled"

Shares = tuple[int | None, int | None]


def shared_moves(
    sites: Sequence[MatmulSite], whole: Sequence[bool], blocks: Sequence[SiteBlock] | None
) -> tuple[Shares, ...] | str:
    """For each matmul, the earlier one (its index) whose moved Left / Right tile each
    operand reads, None for a move of its own; only matmuls left ``whole`` move their
    operands (a K loop extracts its slices from Mat). ``blocks``: where each reads its
    operands (None: not told). Not modelled, as the dumps show none (the reason): a
    matmul reading the move of an enclosing block, and in one block an operand read
    transposed (a transpose per matmul?) or a slice written in each call (a load each,
    or one?)."""
    found: list[Shares] = []
    movers: dict[tuple[str, int], list[int]] = {}  # (operand, side): its whole readers
    for index, site in enumerate(sites):
        shares: list[int | None] = [None, None]
        for side, name in enumerate((site.lhs, site.rhs)):
            if not whole[index]:
                continue
            earlier = movers.setdefault((name, side), [])
            if blocks is None:
                if earlier:
                    return ONE_MOVE
                earlier.append(index)
                continue
            # the first reader sharing this one's move is the one that made it
            for other in earlier:
                share = _one_move(sites, blocks, (other, index), side)
                if isinstance(share, str):
                    return share
                if share is not None:
                    shares[side] = share
                    break
            earlier.append(index)
        found.append((shares[0], shares[1]))
    return tuple(found)


def _one_move(
    sites: Sequence[MatmulSite], blocks: Sequence[SiteBlock], pair: tuple[int, int], side: int
) -> int | str | None:
    """Whether matmul ``pair[1]`` reads the tile matmul ``pair[0]`` moved (its index),
    moves its own (None), or reads it through a move not modelled (the reason)."""
    first, then = (blocks[n] for n in pair)
    if first.bindings[side] != then.bindings[side]:
        return None  # (another binding of the name: another tile)
    shared = first.block == then.block
    if not shared and first.block != then.block[: len(first.block)]:
        return None  # (another branch, or the block after the branch: moved again)
    sliced = (sites[pair[1]].lhs, sites[pair[1]].rhs)[side].endswith("[...]")
    if not shared or sliced or any(sites[n].transposed[side] for n in pair):
        return ONE_MOVE
    return pair[0]
