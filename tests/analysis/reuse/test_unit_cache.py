"""Incremental analysis: unchanged functions come from the cache, and only when nothing they see changed."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis import UnitCache, analyze
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.analysis.reuse.unit_cache import context_fingerprint
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, Resolver
from tests.kernels import PRODUCER

TWO_KERNELS = '''\
import pypto.language as pl
from consts import TILES

N = 8


@pl.function
def first(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    for i in pl.pipeline(0, N, 1, stage=2):
{body}

@pl.function
def second(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    for i in pl.pipeline(0, TILES, 1, stage=2):
{body}
'''


def source(n: int = 8) -> str:
    body = "".join("        " + line + "\n" for line in PRODUCER.splitlines())
    return TWO_KERNELS.format(body=body).replace("N = 8", f"N = {n}")


def resolver_giving(tiles: int):
    def resolve(module: str, level: int, importer: str | None) -> str | None:
        return f"TILES = {tiles}\n" if module == "consts" else None

    return resolve


def test_a_second_analysis_of_the_same_text_is_served_from_the_cache() -> None:
    cache = UnitCache()
    first = analyze(source(), "k.py", resolver=resolver_giving(4), cache=cache)
    assert cache.misses == 2 and cache.hits == 0
    second = analyze(source(), "k.py", resolver=resolver_giving(4), cache=cache)
    assert cache.hits == 2
    assert first == second


def test_editing_one_function_reanalyses_only_that_function() -> None:
    cache = UnitCache()
    analyze(source(), "k.py", resolver=resolver_giving(4), cache=cache)
    edited = source().replace("pl.pipeline(0, TILES, 1, stage=2)", "pl.pipeline(0, TILES, 1, stage=4)")
    reports = analyze(edited, "k.py", resolver=resolver_giving(4), cache=cache)
    assert (cache.hits, cache.misses) == (1, 3)
    assert reports == analyze(edited, "k.py", resolver=resolver_giving(4))


def test_an_edit_inside_a_function_keeps_the_module_context_s_digest() -> None:
    # Digesting the module context (its constants, and every inline helper's text) was
    # 0.2 ms of each typing edit of pypto-lib's largest kernel: an index patched in place
    # keeps the context it was built with, and so its digest (the very string).
    cache = UnitCache()
    _, before = cache.index_and_context("k.py", source())
    typed = source().replace("stage=2):\n", "stage=2):  # tuned\n", 1)
    _, after = cache.index_and_context("k.py", typed)
    assert after is before
    assert after == context_fingerprint(build_index(typed))
    _, rebuilt = cache.index_and_context("k.py", source(16))  # N = 16: a module constant
    assert rebuilt == context_fingerprint(build_index(source(16))) != before


def test_a_changed_module_constant_or_imported_module_misses_the_cache() -> None:
    cache = UnitCache()
    analyze(source(), "k.py", resolver=resolver_giving(4), cache=cache)
    changed = analyze(source(16), "k.py", resolver=resolver_giving(4), cache=cache)
    assert changed[0].trip == 16
    imported = analyze(source(16), "k.py", resolver=resolver_giving(6), cache=cache)
    assert imported[1].trip == 6
    assert cache.hits == 0


def test_a_syntax_error_in_one_function_keeps_the_other_functions_loops() -> None:
    broken = source().replace(
        "    for i in pl.pipeline(0, TILES, 1, stage=2):", "    for i in pl.pipeline(0, TILES, 1, stage=2)"
    )
    reports = analyze(broken, "k.py", resolver=resolver_giving(4))
    assert [r.code for r in reports] == ["SKW001", "SKW900"]
    assert reports[1].span.line == broken.splitlines().index("    for i in pl.pipeline(0, TILES, 1, stage=2)") + 1


def test_an_edit_in_one_method_of_a_kernel_class_keeps_the_other_methods_cached() -> None:
    body = "".join("            " + line + "\n" for line in PRODUCER.splitlines())
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass K:\n"
        "    @pl.function\n    def a(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):\n"
        f"        for i in pl.pipeline(0, 8, 1, stage=2):\n{body}\n"
        "    @pl.function\n    def b(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):\n"
        f"        for i in pl.pipeline(0, 4, 1, stage=2):\n{body}"
    )
    cache = UnitCache()
    analyze(source, "k.py", cache=cache)
    analyze(source.replace("stage=2):\n" + body + "\n", "stage=3):\n" + body + "\n", 1), "k.py", cache=cache)
    assert (cache.hits, cache.misses) == (1, 3)


CHAIN = {  # k -> m1 -> m2 -> m3 -> m4: the constant lives four imports away
    "m1": "from m2 import TILES\n",
    "m2": "from m3 import TILES\n",
    "m3": "from m4 import TILES\n",
}


def chain_resolver(tiles: int):
    def resolve(module: str, level: int, importer: str | None) -> str | None:
        if module == "m4":
            return f"TILES = {tiles}\n"
        return CHAIN.get(module)

    return resolve


def test_a_constant_four_imports_away_is_read_and_its_change_misses_the_cache() -> None:
    kernel = source().replace("from consts import TILES", "from m1 import TILES")
    assert "from m1 import TILES" in kernel
    cache = UnitCache()
    first = analyze(kernel, "k.py", resolver=chain_resolver(4), cache=cache)
    assert first[1].trip == 4
    again = analyze(kernel, "k.py", resolver=chain_resolver(4), cache=cache)
    assert again == first and cache.hits == 2
    changed = analyze(kernel, "k.py", resolver=chain_resolver(6), cache=cache)
    assert changed[1].trip == 6
    assert changed == analyze(kernel, "k.py", resolver=chain_resolver(6))


def test_a_syntax_error_outside_any_loop_function_is_reported_too() -> None:
    broken = source() + "\n\ndef helper():\n    return 1 +\n"
    reports = analyze(broken, "k.py", resolver=resolver_giving(4))
    assert [r.code for r in reports] == ["SKW001", "SKW001", "SKW900"]
    assert reports[-1].span.line == broken.splitlines().index("    return 1 +") + 1


HELPER_MODULE = '''\
import pypto.language as pl


@pl.jit.inline
def stream_rows(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], n: int):
    for i in pl.pipeline(0, n, 1, stage={stage}):
{body}
    return out
'''

CALLER = '''\
import pypto.language as pl
from rows import stream_rows


@pl.jit
def kernel(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    out = stream_rows(q, out, 8)  # the helper's loop, spliced here
    return out


@pl.jit
def other(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    for i in pl.pipeline(0, 4, 1, stage=2):
{body}
    return out
'''


def helper_resolver(stage: int):
    body = "".join("        " + line + "\n" for line in PRODUCER.splitlines())

    def resolve(module: str, level: int, importer: str | None) -> str | None:
        return HELPER_MODULE.format(stage=stage, body=body) if module == "rows" else None

    return resolve


def caller_source() -> str:
    return CALLER.format(body="".join("        " + line + "\n" for line in PRODUCER.splitlines()))


def test_an_imported_helper_s_copy_at_its_call_is_kept_across_an_edit_elsewhere() -> None:
    cache = UnitCache()
    first = analyze(caller_source(), "k.py", resolver=helper_resolver(2), cache=cache)
    at_call = [r for r in first if r.span.line == 7]
    assert [r.trip for r in at_call] == [8]
    edited = caller_source().replace("pl.pipeline(0, 4, 1, stage=2)", "pl.pipeline(0, 4, 1, stage=4)")
    hits = cache.hits
    again = analyze(edited, "k.py", resolver=helper_resolver(2), cache=cache)
    assert cache.hits == hits + 1  # the helper's copies; `other` is decided again
    assert again == analyze(edited, "k.py", resolver=helper_resolver(2))


def test_an_edit_of_the_helper_s_module_or_of_its_caller_decides_its_copy_again() -> None:
    cache = UnitCache()
    analyze(caller_source(), "k.py", resolver=helper_resolver(2), cache=cache)
    changed = analyze(caller_source(), "k.py", resolver=helper_resolver(4), cache=cache)
    assert [r.stage for r in changed if r.span.line == 7] == [4]
    called_with_16 = caller_source().replace("stream_rows(q, out, 8)", "stream_rows(q, out, 16)")
    again = analyze(called_with_16, "k.py", resolver=helper_resolver(4), cache=cache)
    assert [r.trip for r in again if r.span.line == 7] == [16]
    assert again == analyze(called_with_16, "k.py", resolver=helper_resolver(4))


HELPER_CHAIN = '''\
import pypto.language as pl

A = 64
B = 8


@pl.jit.inline
def inner(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    m = A // B
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="inner"):
        for i in pl.pipeline(1, m, stage=2):
{body}
    return out


@pl.jit.inline
def outer(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    out = inner(x, out)
    return out


@pl.jit
def kernel(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
{call}
    return out
'''


def chain_source(call: str) -> str:
    body = "            t = pl.load(x, [i, 0], [1, 64])\n            pl.store(t, [i, 0], out)"
    return HELPER_CHAIN.format(body=body, call=call)


def test_an_edit_where_a_helper_s_caller_is_called_decides_the_helper_again() -> None:
    # `outer` spliced into a loop of `kernel` puts `inner`'s `m` in that loop: Simplify
    # no longer folds it (SKW013), though neither helper's text changed.
    cache = UnitCache()
    top = analyze(chain_source("    out = outer(x, out)"), "k.py", cache=cache)
    assert [r.code for r in top] == ["SKW012"]
    in_loop = chain_source("    for step in pl.range(2):\n        out = outer(x, out)")
    again = analyze(in_loop, "k.py", cache=cache)
    assert [r.code for r in again] == ["SKW013"]
    assert again == analyze(in_loop, "k.py")


SKEWED_CALLS = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "lowering"
    / "models"
    / "lower_llm"
    / "skewed_calls.py"
)


def _helper_counts(reports: list[LoopReport]) -> dict[str, tuple[int, int]]:
    """(nested, copies) of `project`'s loop (line 28) at each of its callers."""
    return {
        r.instance.caller: (r.lowering.nested, r.lowering.copies)
        for r in reports
        if r.span.line == 28 and r.instance is not None and r.lowering is not None
    }


def test_an_edit_of_the_stage_of_the_loop_around_a_helper_s_call_recounts_its_copies() -> None:
    # `project`'s loop (2 copies) is spliced into deep_heads' head loop through
    # `project_head`, and into rows_then_project's row loop. Editing either loop's
    # stage= changes how often the copy there is written, though neither helper nor
    # the call changed: the copy kept at the call must not be served.
    source = SKEWED_CALLS.read_text()
    resolver = RecordingResolver((SKEWED_CALLS.parent,))
    cache = UnitCache()
    first = analyze(source, str(SKEWED_CALLS), resolver=resolver, cache=cache)
    # Depth 3 at trip 6: 6 clones of 2; the row loop's 2 copies of 2; depth 2: 4 clones of 2.
    assert _helper_counts(first) == {
        "project_head": (6, 12),
        "heads_then_project": (4, 8),
        "rows_then_project": (2, 4),
    }
    edited = source.replace(
        "for h in pl.pipeline(6, stage=4):", "for h in pl.pipeline(6, stage=2):"
    ).replace(
        "for r in pl.pipeline(4, stage=2):  # no tpush/tpop",
        "for r in pl.pipeline(4, stage=4):  # no tpush/tpop",
    )
    assert edited.count("stage=") == source.count("stage=")
    hits = cache.site_hits
    again = analyze(edited, str(SKEWED_CALLS), resolver=resolver, cache=cache)
    # stage 2 asks for depth 2 (6 % 2 == 0, 6 >= 4): 4 clones of 2; trip 4 at stage 4
    # is 4 copies of the row loop, each holding 2: 8. heads_then_project's copy did not
    # change and is served from the cache.
    assert _helper_counts(again) == {
        "project_head": (4, 8),
        "heads_then_project": (4, 8),
        "rows_then_project": (4, 8),
    }
    assert cache.site_hits > hits
    assert again == analyze(edited, str(SKEWED_CALLS), resolver=resolver)


SCORES = '''\
import pypto.language as pl


@pl.jit.inline
def scores(q: pl.Tensor[[64, 128], pl.BF16], kv: pl.Tensor[[128, 128], pl.BF16], h0: pl.Scalar[pl.INDEX]):
    return {op}


@pl.jit
def heads(q: pl.Tensor[[64, 128], pl.BF16], kv: pl.Tensor[[128, 128], pl.BF16], o: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="heads"):
        for h in pl.pipeline(4, stage=2):
            h0 = h * 16
            s = scores(q, kv, h0)
            p = pl.cast(pl.exp(s), target_type=pl.BF16, mode="rint")
            o[h0 : h0 + 16, :] = pl.matmul(p, kv, out_dtype=pl.FP32)
    return o
'''


def test_an_edit_of_an_inline_helper_decides_its_caller_s_loop_again() -> None:
    """The caller's loop sees the ops the helper returns (InlineFunctions splices them):
    a helper that stops multiplying makes its caller's loop cube-only."""
    matmul = "pl.matmul(q[h0 : h0 + 16, :], kv, b_trans=True, out_dtype=pl.FP32)"
    cache = UnitCache()
    before = analyze(SCORES.format(op=matmul), "k.py", cache=cache)
    edited = SCORES.format(op="pl.exp(pl.load(q, [h0, 0], [16, 128]))")
    after = analyze(edited, "k.py", cache=cache)
    assert after == analyze(edited, "k.py")
    codes = [(c.core, c.code) for c in before[0].cores]
    assert codes == [("aic", "SKW001"), ("aiv", "SKW020")]
    # the vector makes the scores now: the tiles cross one way only, nothing is skewed
    assert after[0].cores  # (both cores still report the loop: not an empty all())
    assert all(c.code != "SKW001" for c in after[0].cores)


HOSTED = '''\
import pypto.language as pl


@pl.jit
def project(x: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="project"):
        acc = pl.matmul(x[:, 0:128], w[0:128, :], out_dtype=pl.FP32)
        for kb in pl.pipeline(1, 8, stage=2):
            acc = pl.matmul_acc(acc, x[:, kb * 128 : kb * 128 + 128], w[kb * 128 : kb * 128 + 128, :])
        out = pl.assemble(out, acc, [0, 0])
    return out


@pl.jit.host
def host(x: pl.Tensor[[16, 1024], pl.{dtype}], w: pl.Tensor[[1024, 256], pl.{dtype}], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    return project(x, w, out)
'''


def test_an_edit_of_the_host_that_types_a_jit_entry_s_bare_tensors_decides_its_loop_again() -> None:
    """pl.jit gives `project`'s bare tensors the host's argument types: a host now passing
    8-bit operands halves the bytes of every L0 tile of the loop."""
    cache = UnitCache()
    before = analyze(HOSTED.format(dtype="BF16"), "k.py", cache=cache)
    edited = HOSTED.format(dtype="INT8")
    after = analyze(edited, "k.py", cache=cache)
    assert after == analyze(edited, "k.py")
    known = [(m.space, m.known) for m in before[0].cores[0].memory]
    assert ("Left", True) in known and ("Right", True) in known
    assert after[0].cores[0].memory != before[0].cores[0].memory


def test_an_edit_of_a_scope_s_matmul_outside_its_loop_is_seen_by_the_scope_s_l0_tiles() -> None:
    """The calls a scope's statements hold are kept for its loops, copies and builds:
    the edited function's are its new text's, not the old tree's."""
    outside = "the K loop AutoTileMatmulL0 makes for `matmul(x[...], w[...])` outside"
    cache = UnitCache()
    before = analyze(HOSTED.format(dtype="FP16"), "k.py", cache=cache)
    edited = HOSTED.format(dtype="FP16").replace(
        "acc = pl.matmul(x[:, 0:128], w[0:128, :], out_dtype=pl.FP32)",
        "acc = pl.full([16, 256], dtype=pl.FP32, value=0.0)",
    )
    after = analyze(edited, "k.py", cache=cache)
    assert [outside in hint.message for hint in before[0].hints] == [True]
    assert [outside in hint.message for hint in after[0].hints] == [False]
    assert after == analyze(edited, "k.py")
    # and back: the first text's calls again
    assert analyze(HOSTED.format(dtype="FP16"), "k.py", cache=cache) == before


def writing_resolver(route_writes: str) -> Resolver:
    """``consts`` defines TILES = 4; ``route`` sets ``consts.TILES`` as it loads."""

    def resolve(module: str, level: int, importer: str | None) -> str | None:
        texts = {"consts": "TILES = 4\n", "route": f"import consts\nEP = 2\n{route_writes}\n"}
        return texts.get(module)

    return resolve


def test_an_edit_of_a_module_attribute_the_kernel_sets_before_its_import_misses_the_cache() -> (
    None
):
    def kernel(tiles: int) -> str:
        return source().replace(
            "from consts import TILES", f"import consts\nconsts.TILES = {tiles}\nfrom consts import TILES"
        )

    cache = UnitCache()
    resolver = writing_resolver("")
    assert analyze(kernel(6), "k.py", resolver=resolver, cache=cache)[1].trip == 6
    assert analyze(kernel(3), "k.py", resolver=resolver, cache=cache)[1].trip == 3
    assert cache.hits == 0


def test_moving_an_import_past_a_module_that_sets_its_name_misses_the_cache() -> None:
    # route.py sets consts.TILES = 5 as it loads: a `from consts import TILES` after
    # `from route import EP` binds 5, one before it binds consts' own 4.
    after = source().replace("from consts import TILES", "from route import EP\nfrom consts import TILES")
    before = source().replace("from consts import TILES", "from consts import TILES\nfrom route import EP")
    cache = UnitCache()
    resolver = writing_resolver("consts.TILES = 5")
    assert analyze(after, "k.py", resolver=resolver, cache=cache)[1].trip == 5
    assert analyze(before, "k.py", resolver=resolver, cache=cache)[1].trip == 4
    edited = analyze(after, "k.py", resolver=writing_resolver("consts.TILES = 7"), cache=cache)
    assert edited[1].trip == 7
