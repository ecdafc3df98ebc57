"""The Vec bytes the cube -> vector ring reserves on the vector core, against what pypto
e2d0f78ae's MemoryReuse said of tests/fixtures/memory/models/mem_llm/fused_scores.py
("122880 B free after 65536 B reserved": 2 slots of the [128, 64] INT32 scores, with
slot_num=2 and with none written)."""

from __future__ import annotations

from skewlsp.analysis.memory.reserve_buffer import reserved
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles


def test_the_ring_is_slot_num_slots_of_the_largest_popped_tile():
    assert reserved(ScopeTiles(popped=(32768, 512), slot_num=2)) == {"Vec": 65536}
    assert reserved(ScopeTiles(popped=(32768,), slot_num=3)) == {"Vec": 98304}


def test_a_slot_is_as_large_as_the_largest_tile_crossing_either_way():
    # skewed_scores.py's `sent_rows`: 8 KB popped, 64 KB pushed to the cube; the compiler
    # reserves 131072 B ("slot_size=65536, slot_num=2")
    assert reserved(ScopeTiles(popped=(8192,), pushed=(65536,))) == {"Vec": 131072}
    # (a ring only the vector -> cube direction uses reserves nothing in Vec: the
    # cube keeps that buffer)
    assert reserved(ScopeTiles(pushed=(65536,))) == {}


def test_a_scope_that_writes_no_slot_num_gets_two_slots():
    assert reserved(ScopeTiles(popped=(32768,))) == {"Vec": 65536}


def test_nothing_is_reserved_where_nothing_crosses_from_the_cube():
    assert reserved(ScopeTiles(slot_num=2)) == {}
    assert reserved(None) == {}


def test_the_region_ends_aligned():
    # ResolveReserveBufferBases aligns the end (AlignAddress: 32 B)
    assert reserved(ScopeTiles(popped=(100,), slot_num=1)) == {"Vec": 128}
