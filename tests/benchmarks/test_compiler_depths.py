"""Every depth skewlint states as known, against the compiler's stage groups of its loop.

The records are written by hand in the shapes the two sides print: skewlint's JSON items
(``kind``, ``filename``, ``loop``, ``cores[].memory``, ``copies``) and the groups
``compiler_check.memory_report`` writes (``compiler_memory.GroupRecord.to_json`` with the
entry's file). The numbers are the kind MemoryReuse gives: a stage group asks one buffer
per stage, keeps every stage apart unless a PH-MR-001 hint says fewer.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.compiler_depths import Stated, compare_depths, finding_loop, stated_depths

LOOP = "/k/attn.py:20"


def space(name: str, requested: int, achieved: int | None, stage_bytes: int, known=True) -> dict:
    return {
        "space": name,
        "stage_bytes": stage_bytes,
        "requested": requested,
        "achieved": achieved,
        "cause": None if achieved == requested else "space-pressure",
        "known": known,
        "reason": None if known else "fits alone; other tiles of the function not modelled",
    }


def finding(*cores: tuple[str, list[dict]], line: int = 20, copies=None) -> dict:
    return {
        "kind": "loop",
        "filename": "/k/attn.py",
        "loop": {"line": line, "column": 5, "end_line": line + 4, "end_column": 9},
        "memory": [],
        "cores": [{"core": core, "memory": memory} for core, memory in cores],
        "copies": copies or [],
    }


def group(
    space_: str,
    stages: int,
    slot: int,
    *,
    hint: tuple[int, int] | None = None,
    seen: int | None = None,
    core: str = "aiv",
    number: int = 0,
    made: bool = False,
    function: str = "kernel_aiv",
    loop: str | None = LOOP,
    entry: str = "attn",
) -> dict:
    return {
        "file": "/k/attn.py",
        "entry": entry,
        "function": function,
        "group": number,
        "space": space_,
        "stages": stages,
        "slot": slot,
        "buffers": stages,
        "depth_seen": stages if seen is None else seen,
        "hint": None
        if hint is None
        else {
            "requested": hint[0],
            "achieved": hint[1],
            "slot": slot,
            "free": 65536,
            "reserved": 0,
            "cause": "space-pressure",
        },
        "loop": loop,
        "made": made,
        "skew": False,
        "core": core,
    }


def test_a_full_depth_where_memoryreuse_gives_no_hint_agrees():
    found = compare_depths(
        [finding(("aiv", [space("Vec", 2, 2, 16384)]))], [group("Vec", 2, 16384)]
    )
    assert [c.status for c in found.checks] == ["agree"]
    assert found.line() == (
        "depths: 1 stated known (1 against the groups of the entries their copies are "
        "compiled in), 1 agree with MemoryReuse (hint or full), 0 differ, 0 match "
        "no compiler group of their loop, 0 at loops not compiled, 0 of copies a "
        "module-level for builds before the one compiled, 0 with no depth (the "
        "loads overflow the space: compared as overflows); the IR's buffers equal in 1, "
        "more in 0, fewer in 0, not measured in 0"
    )
    assert found.listed() == []


def test_a_copy_spliced_by_an_inline_helper_is_compared_where_its_file_compiles_it(
    tmp_path: Path,
):
    # moe.py's inline `moe` splices gate's loop (gate.py:20); the compile of moe.py has
    # it in `moe_test` (2 of 2 at 32768 B), gate.py's own test kernel in `gate_test` at
    # other sizes (1 of 2 at 65536 B): the copy is compared with moe_test's groups only
    (tmp_path / "gate.py").write_text("")
    moe, loop = str(tmp_path / "moe.py"), f"{tmp_path / 'gate.py'}:20"
    copy = finding(("aic", [space("Mat", 2, 2, 32768)]))
    copy["filename"] = moe
    copy["instance"] = {"caller": "moe", "helper_loop": {"module": "gate", "line": 20}}
    moe_test = group("Mat", 2, 32768, core="aic", entry="moe_test", loop=loop)
    gate_test = group("Mat", 2, 65536, core="aic", hint=(2, 1), entry="gate_test", loop=loop)
    found = compare_depths([copy], [dict(moe_test, file=moe), gate_test])
    assert [(c.status, c.own_entries) for c in found.checks] == [("agree", True)]
    assert [k.where for k in found.checks[0].compiler] == ["moe_test/kernel_aiv group 0"]


def test_a_full_depth_where_the_compiler_hints_a_reduced_one_differs_and_is_listed():
    found = compare_depths(
        [finding(("aic", [space("Right", 2, 2, 32768)]))],
        [group("Right", 2, 32768, hint=(2, 1), seen=1, core="aic", function="kernel_aic")],
    )
    assert [c.status for c in found.checks] == ["differ"]
    assert found.listed() == [
        "differ (IR fewer): /k/attn.py:20 aic Right: skewlint 2 of 2, 32768 B per stage; "
        "compiler 1 of 2, 32768 B per stage [attn/kernel_aic group 0]; the IR's depth 1"
    ]


def test_a_reduced_depth_agrees_only_with_the_hints_achieved_depth():
    compiled = [group("Right", 2, 32768, hint=(2, 1), seen=1, core="aic")]
    right = compare_depths([finding(("aic", [space("Right", 2, 1, 32768)]))], compiled)
    wrong = compare_depths([finding(("aic", [space("Right", 4, 3, 32768)]))], compiled)
    assert [c.status for c in right.checks] == ["agree"]
    assert [c.status for c in wrong.checks] == ["differ"]


def test_a_stage_of_other_bytes_than_the_compilers_slot_differs():
    found = compare_depths([finding(("aiv", [space("Vec", 2, 2, 8192)]))], [group("Vec", 2, 16384)])
    assert [c.status for c in found.checks] == ["differ"]


def test_the_main_group_is_compared_not_the_remainders_nor_a_loop_the_compiler_made():
    compiled = [
        group("Vec", 4, 16384, number=0),
        group("Vec", 3, 16384, number=1),  # the remainder's copies: their own group
        group("Vec", 2, 4096, number=2, made=True),  # a K loop AutoTileMatmulL0 made
    ]
    found = compare_depths([finding(("aiv", [space("Vec", 4, 4, 16384)]))], compiled)
    assert [c.status for c in found.checks] == ["agree"]
    assert [k.where for k in found.checks[0].compiler] == ["attn/kernel_aiv group 0"]


def test_a_remainder_s_record_is_left_to_the_memory_line_not_compared_as_a_depth():
    # (its PH-MR-001 is compared with the compiler's hints; the main groups are not its)
    main, after = space("Right", 3, 1, 32768), {**space("Right", 2, 1, 32768), "remainder": True}
    compiled = [group("Right", 3, 32768, hint=(3, 1), seen=1, core="aic", number=0)]
    found = compare_depths([finding(("aic", [main, after]))], compiled)
    assert [(c.stated.requested, c.status) for c in found.checks] == [(3, "agree")]


def test_a_copy_that_asks_for_no_stages_is_left_to_the_memory_line():
    # The vector copy a skew demotes runs as a sequential loop: its record says only that
    # its function overflows Vec (SKW081 and SKW082, compared as the compiler's stop and
    # warning), and no group of the compiler's is its.
    demoted = {**space("Vec", 0, None, 0), "cause": "overflow"}
    compiled = [group("Right", 2, 32768, hint=(2, 1), seen=1, core="aic", number=0)]
    cores = [("aic", [space("Right", 2, 1, 32768)]), ("aiv", [demoted])]
    found = compare_depths([finding(*cores)], compiled)
    assert [(c.stated.space, c.status) for c in found.checks] == [("Right", "agree")]


def test_every_function_holding_the_loop_must_keep_the_stated_depth():
    compiled = [
        group("Vec", 2, 16384, function="lane_a"),
        group("Vec", 2, 16384, hint=(2, 1), seen=1, function="lane_b"),
    ]
    found = compare_depths([finding(("aiv", [space("Vec", 2, 2, 16384)]))], compiled)
    assert [c.status for c in found.checks] == ["differ"]


def test_copies_stating_different_depths_each_need_a_group_that_keeps_theirs():
    # An inline helper spliced into two callers with different tiles: one group each.
    copies = [
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 2, 16384)]}]},
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 2, 8192)]}]},
    ]
    compiled = [
        group("Vec", 2, 16384, function="caller_a"),
        group("Vec", 2, 8192, function="caller_b"),
    ]
    found = compare_depths([finding(copies=copies)], compiled)
    assert [c.status for c in found.checks] == ["agree", "agree"]


def test_a_copy_a_module_level_for_builds_before_the_last_is_not_the_one_compiled():
    # `for name, stage in (("shallow", 2), ("deep", 4)): @pl.program class Staged`: the
    # module binds the class again at each iteration, so compiling the module's entries
    # compiles the last copy only; an earlier copy's depth is counted apart, not wrong.
    def built(value: str, depth: int) -> dict:
        records = [space("Mat", depth, depth, 8192)]
        return {
            "instance": {"bindings": {"stage": value}, "caller": None},
            "memory": [],
            "cores": [{"core": "aic", "memory": records}],
        }

    compiled = [group("Mat", 3, 8192, core="aic", function="staged_aic")]
    found = compare_depths([finding(copies=[built("2", 2), built("4", 3)])], compiled)
    assert [c.status for c in found.checks] == ["earlier build", "agree"]
    assert "1 of copies a module-level for builds before the one compiled" in found.line()
    # the last copy is the one compiled: a depth it states the compiler does not keep
    # differs
    found = compare_depths([finding(copies=[built("4", 3), built("2", 2)])], compiled)
    assert [c.status for c in found.checks] == ["agree", "differ"]
    # a builder's calls bound each to a name of its own are each compiled: an earlier
    # copy's depth the compiler does not keep differs
    compiled = [
        group("Mat", 3, 8192, core="aic", function="staged_aic", entry="shallow"),
        group("Mat", 3, 8192, core="aic", function="staged_aic", entry="deep"),
    ]
    found = compare_depths([finding(copies=[built("2", 2), built("4", 3)])], compiled)
    assert [c.status for c in found.checks] == ["differ", "agree"]


def test_each_copy_s_irs_depth_is_read_off_the_groups_that_keep_its_depth():
    # a builder's two kernels (vector_ahead.py): 16 KB rows keep both stages (the IR
    # too), 24 KB rows one (the IR one): neither copy's IR is the other's
    copies = [
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 2, 16384)]}]},
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 1, 24576)]}]},
    ]
    compiled = [
        group("Vec", 2, 16384, entry="narrow_rows"),
        group("Vec", 2, 24576, hint=(2, 1), seen=1, entry="wide_rows"),
    ]
    found = compare_depths([finding(copies=copies)], compiled)
    assert [(c.status, c.ir) for c in found.checks] == [("agree", "equal"), ("agree", "equal")]


def test_a_vector_copy_on_both_lanes_is_compared_with_the_first_lanes_group():
    # pypto's dual-dispatch AIV function holds the loop once per lane (groups 0 and 1):
    # skewlint's record is the first lane's, the second lane shedding apart from it.
    item = finding(("aiv", [space("Vec", 4, 1, 32768)]))
    item["cores"][0]["copies"] = 2
    compiled = [
        group("Vec", 4, 32768, hint=(4, 1), seen=1, number=0),
        group("Vec", 4, 32768, hint=(4, 2), seen=2, number=1),
    ]
    one_lane = finding(("aiv", [space("Vec", 4, 1, 32768)]))
    assert [c.status for c in compare_depths([item], compiled).checks] == ["agree"]
    assert [c.status for c in compare_depths([one_lane], compiled).checks] == ["differ"]
    # the second lane's record (``lane`` 2) is compared with the second lane's group
    both = finding(("aiv", [space("Vec", 4, 1, 32768), {**space("Vec", 4, 2, 32768), "lane": 2}]))
    both["cores"][0]["copies"] = 2
    swapped = finding(
        ("aiv", [space("Vec", 4, 2, 32768), {**space("Vec", 4, 1, 32768), "lane": 2}])
    )
    swapped["cores"][0]["copies"] = 2
    assert [c.status for c in compare_depths([both], compiled).checks] == ["agree", "agree"]
    assert [c.status for c in compare_depths([swapped], compiled).checks] == ["differ", "differ"]


def test_a_statement_on_one_core_is_not_compared_with_the_other_cores_group():
    found = compare_depths(
        [finding(("aiv", [space("Vec", 2, 2, 16384)]))],
        [group("Vec", 2, 16384, core="aic", function="kernel_aic")],
    )
    assert [c.status for c in found.checks] == ["unmatched"]


def test_a_loop_no_compiled_entry_holds_is_counted_apart():
    found = compare_depths(
        [finding(("aiv", [space("Vec", 2, 2, 16384)]))], [group("Vec", 2, 16384, loop=None)]
    )
    assert [c.status for c in found.checks] == ["not compiled"]
    assert "1 at loops not compiled" in found.line()


def test_the_irs_buffers_beyond_memoryreuses_depth_are_said_beside_it():
    # MemoryReuse keeps 1 of 2 (the hint) while the IR still gives the two stages two
    # buffers (live together in program order): both are said.
    found = compare_depths(
        [finding(("aic", [space("Right", 2, 1, 32768)]))],
        [group("Right", 2, 32768, hint=(2, 1), seen=2, core="aic")],
    )
    assert [(c.status, c.ir) for c in found.checks] == [("agree", "more")]
    assert found.line().endswith("equal in 0, more in 1, fewer in 0, not measured in 0")
    assert found.listed()[0].startswith("agree (IR more): /k/attn.py:20 aic Right")


def test_the_irs_depth_skewlint_states_beside_memoryreuses_is_compared_with_the_irs():
    # blocks.py:24: PH-MR-001 Vec 1 of 2, and the IR's 48 KB tiles 2 stages apart; skewlint
    # says both (``ir_depth``): the IR's depth agrees with the one stated for it.
    said = dict(space("Vec", 2, 1, 49152), ir_depth=2)
    found = compare_depths(
        [finding(("aiv", [said]))], [group("Vec", 2, 49152, hint=(2, 1), seen=2)]
    )
    assert [(c.status, c.ir) for c in found.checks] == [("agree", "equal")]
    assert found.checks[0].stated == Stated(LOOP, "aiv", "Vec", 2, 1, 49152, 2)
    assert found.line().endswith("equal in 1, more in 0, fewer in 0, not measured in 0")
    assert found.listed() == []


def test_an_irs_depth_stated_beyond_the_irs_buffers_is_fewer():
    said = dict(space("Vec", 2, 1, 49152), ir_depth=2)
    found = compare_depths(
        [finding(("aiv", [said]))], [group("Vec", 2, 49152, hint=(2, 1), seen=1)]
    )
    assert [(c.status, c.ir) for c in found.checks] == [("agree", "fewer")]
    assert found.listed() == [
        "agree (IR fewer): /k/attn.py:20 aiv Vec: skewlint 1 of 2 (the IR's depth 2), "
        "49152 B per stage; compiler 1 of 2, 49152 B per stage [attn/kernel_aiv group 0]; "
        "the IR's depth 1"
    ]


def test_a_group_with_no_tile_in_two_stages_is_not_measured():
    found = compare_depths(
        [finding(("aic", [space("Left", 2, 2, 8192)]))],
        [group("Left", 2, 8192, seen=0, core="aic")],
    )
    assert [(c.status, c.ir) for c in found.checks] == [("agree", "unmeasured")]


def test_only_known_records_of_loop_findings_are_stated_once_each():
    copies = [
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 2, 16384)]}]},
        {"memory": [], "cores": [{"core": "aiv", "memory": [space("Vec", 2, 2, 16384)]}]},
    ]
    loop = finding(copies=copies)
    unknown = finding(("aiv", [space("Vec", 2, None, 512, known=False)]), line=40)
    hint = dict(finding(("aic", [space("Right", 2, 1, 32768)])), kind="hint")
    plain = dict(finding(line=60), memory=[space("Vec", 3, 3, 1024)])
    assert stated_depths([loop, unknown, hint, plain]) == [
        Stated(LOOP, "aiv", "Vec", 2, 2, 16384),
        Stated("/k/attn.py:60", "", "Vec", 3, 3, 1024),
    ]


def test_a_statement_naming_no_core_is_compared_with_the_loops_groups_on_any_core():
    plain = dict(finding(), memory=[space("Vec", 2, 2, 16384)])
    found = compare_depths([plain], [group("Vec", 2, 16384, core="aic")])
    assert [c.status for c in found.checks] == ["agree"]


def test_an_overflow_at_any_depth_states_no_depth_and_is_counted_apart():
    # The loads alone overflow Vec (SKW081): MemoryReuse kept every stage, no hint, and
    # AllocateMemoryAddr stopped the compile; the overflow count compares that claim.
    found = compare_depths(
        [finding(("aiv", [space("Vec", 4, None, 65536)]))], [group("Vec", 4, 65536)]
    )
    assert [c.status for c in found.checks] == ["no depth"]
    assert "0 differ" in found.line() and "1 with no depth" in found.line()
    assert found.line().endswith("equal in 0, more in 0, fewer in 0, not measured in 0")
    assert found.listed() == [
        "no depth: /k/attn.py:20 aiv Vec: skewlint no depth of 4, 65536 B per stage; "
        "compiler 4 of 4, 65536 B per stage [attn/kernel_aiv group 0]; the IR's depth 4"
    ]


def test_a_copy_listed_at_its_call_is_about_the_helper_s_loop_where_python_finds_its_module(
    tmp_path: Path,
):
    (tmp_path / "layers").mkdir()
    (tmp_path / "scale.py").write_text("# a module next to the package\n")
    caller = tmp_path / "layers" / "prefill.py"
    item = {
        "filename": str(caller),
        "loop": {"line": 19},
        "instance": {"helper_loop": {"name": "scale_rows", "module": "scale", "line": 15}},
    }
    assert finding_loop(item) == f"{tmp_path / 'scale.py'}:15"
    # a module next to the caller comes first
    (tmp_path / "layers" / "scale.py").write_text("# the sibling\n")
    assert finding_loop(item) == f"{tmp_path / 'layers' / 'scale.py'}:15"
    assert finding_loop({**item, "instance": None}) == f"{caller}:19"


def test_each_copy_of_a_helper_s_loop_is_compared_with_the_groups_of_its_own_entry():
    # scale_rows's loop, spliced into `decode` (16 rows: 2 of 2) and `prefill` (48 rows:
    # 1 of 2, the IR's depth 1), each a jit entry of its own name.
    def copy(caller: str, achieved: int, stage_bytes: int) -> dict:
        memory = [space("Vec", 2, achieved, stage_bytes)]
        return {"instance": {"caller": caller}, "cores": [{"core": "aiv", "memory": memory}]}

    item = finding(copies=[copy("decode", 2, 16384), copy("prefill", 1, 49152)])
    decode = {**group("Vec", 2, 16384), "entry": "decode"}
    prefill = {**group("Vec", 2, 49152, hint=(2, 1), seen=1), "entry": "prefill"}
    found = compare_depths([item], [decode, prefill])
    assert [(c.stated.achieved, c.status, c.ir) for c in found.checks] == [
        (2, "agree", "equal"),
        (1, "agree", "equal"),
    ]
    assert [[k.where for k in c.compiler] for c in found.checks] == [
        ["decode/kernel_aiv group 0"],
        ["prefill/kernel_aiv group 0"],
    ]
    assert found.line().startswith(
        "depths: 2 stated known (2 against the groups of the entries their copies are "
    )
