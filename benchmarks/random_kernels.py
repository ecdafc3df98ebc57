"""Random small kernels, to check skewlint's memory predictions against the compiler
where no kernel written so far goes.

Real kernels keep to the sizes their authors tried; the compiler's memory passes decide
on sizes. This writes ``--files`` modules of ``--kernels`` ``@pl.jit`` kernels each, drawn
from a seed: vector loops (loads of every float type, widened, combined with tiles read
before the loop, sometimes a second loop beside them), cube loops (K loops or whole
matmuls, one or two per stage, FP16, BF16 and INT8) and mixed loops (a matmul whose
result the vector core reads), with rows, columns and ``stage=`` around the capacities
of Vec, Mat, Left, Right and Acc (``--family skewed``: loops the cube and the vector
exchange tiles in both ways, which the skew pass rewrites; ``--family attention``: the
same with what attention computes between the two matmuls; ``--family pushed``: loops
whose vector core computes the cube's operand, one direction only; ``--family ahead``:
the vector sends the cube its operand and takes the product back, so the skew runs the
vector's copy ahead). Then ``compiler_check.py``
compiles and compares them::

    python benchmarks/random_kernels.py /tmp/random/models/rk --seed 2
    python benchmarks/compiler_check.py --python <pypto venv>/bin/python /tmp/random/models/rk

The same seed writes the same files. What it found is in benchmarks/README.md
("Random kernels").
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

FLOATS = ("pl.FP32", "pl.BF16", "pl.FP16")
VECTOR_OPS = ("add", "mul", "exp", "maximum", "sub")


def _kernel(
    name: str, params: Sequence[str], body: Sequence[str], returned: str, options: str = ""
) -> str:
    """One ``@pl.jit`` kernel whose body is one InCore scope (``options``: more of its
    header's keywords, e.g. ``optimizations=[...]``)."""
    more = f", {options}" if options else ""
    return (
        f"@pl.jit\ndef {name}(\n    " + ",\n    ".join(params) + ",\n):\n"
        f'    with pl.at(level=pl.Level.CORE_GROUP, name_hint="{name}"{more}):\n'
        + "\n".join(body)
        + f"\n    return {returned}\n"
    )


def vector_kernel(rng: random.Random, name: str) -> str:
    """A row loop: a load, widened to FP32 if it is not, one to three element-wise ops,
    tiles read before the loop added in, sometimes a second loop in the same scope."""
    rows, cols = rng.choice([8, 16, 16, 32]), rng.choice([128, 256, 384, 512, 768])
    dtype, stage, steps = rng.choice(FLOATS), rng.choice([2, 3, 4]), rng.choice([4, 6, 8])
    resident, ops, second = rng.choice([0, 0, 1, 2]), rng.randint(1, 3), rng.random() < 0.3
    rows_of = f"i * {rows} : i * {rows} + {rows}"
    params = [f"a: pl.Tensor[[{steps} * {rows}, {cols}], {dtype}]"]
    params += [f"r{k}: pl.Tensor[[{rows}, {cols}], pl.FP32]" for k in range(resident)]
    body = [f"        k{k} = r{k}[:, :]" for k in range(resident)]
    body += [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            t = a[{rows_of}, :]",
    ]
    value = "t"
    if dtype != "pl.FP32":
        body.append("            u = pl.cast(t, target_type=pl.FP32)")
        value = "u"
    for n in range(ops):
        op = rng.choice(VECTOR_OPS)
        made = f"pl.exp({value})" if op == "exp" else f"pl.{op}({value}, {value})"
        body.append(f"            v{n} = {made}")
        value = f"v{n}"
    for k in range(resident):
        body.append(f"            w{k} = pl.add({value}, k{k})")
        value = f"w{k}"
    body.append(f"            out[{rows_of}, :] = {value}")
    returned = "out"
    if second:
        width, other = rng.choice([128, 256, 512, 1024]), rng.choice([2, 3, 4])
        params += [
            f"b: pl.Tensor[[{steps} * {rows}, {width}], pl.FP32]",
            f"out2: pl.Out[pl.Tensor[[{steps} * {rows}, {width}], pl.FP32]]",
        ]
        body += [
            f"        for i in pl.pipeline({steps}, stage={other}):",
            f"            s = b[{rows_of}, :]",
            f"            out2[{rows_of}, :] = pl.add(s, s)",
        ]
        returned = "out, out2"
    params.append(f"out: pl.Out[pl.Tensor[[{steps} * {rows}, {cols}], pl.FP32]]")
    return _kernel(name, params, body, returned)


def cube_kernel(rng: random.Random, name: str) -> str:
    """A projection loop: one weight block per stage times a tile read before the loop,
    sometimes two weights; K up to 256 (AutoTileMatmulL0 may split it into a K loop)."""
    m, k, n = rng.choice([16, 32, 64, 128]), rng.choice([64, 128, 256]), rng.choice([64, 128, 256])
    int8 = rng.random() < 0.2
    dtype = "pl.INT8" if int8 else rng.choice(["pl.BF16", "pl.FP16"])
    acc = "pl.INT32" if int8 else "pl.FP32"
    stage, steps, two = rng.choice([2, 3, 4]), rng.choice([4, 8]), rng.random() < 0.3
    weights = ["w", "w2"] if two else ["w"]
    params = [f"x: pl.Tensor[[{m}, {k}], {dtype}]"]
    params += [f"{w}: pl.Tensor[[{steps} * {k}, {n}], {dtype}]" for w in weights]
    outs = ["out", "out2"] if two else ["out"]
    params += [f"{o}: pl.Out[pl.Tensor[[{m}, {steps} * {n}], {acc}]]" for o in outs]
    body = ["        xs = x[:, :]", f"        for j in pl.pipeline({steps}, stage={stage}):"]
    body += [f"            {w}j = {w}[j * {k} : j * {k} + {k}, :]" for w in weights]
    body += [
        f"            {o}[:, j * {n} : j * {n} + {n}] = pl.matmul(xs, {w}j, out_dtype={acc})"
        for w, o in zip(weights, outs, strict=True)
    ]
    return _kernel(name, params, body, ", ".join(outs))


def mixed_kernel(rng: random.Random, name: str) -> str:
    """A row loop whose matmul result the vector core reads (a cube -> vector ring)."""
    m, k, n = rng.choice([16, 32, 64]), rng.choice([64, 128, 256]), rng.choice([64, 128, 256])
    stage, steps, op = rng.choice([2, 3, 4]), rng.choice([4, 8]), rng.choice(["exp", "add", "mul"])
    params = [
        f"x: pl.Tensor[[{steps} * {m}, {k}], pl.BF16]",
        f"w: pl.Tensor[[{k}, {n}], pl.BF16]",
        f"out: pl.Out[pl.Tensor[[{steps} * {m}, {n}], pl.FP32]]",
    ]
    made = "pl.exp(s)" if op == "exp" else f"pl.{op}(s, s)"
    body = [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            xi = x[i * {m} : i * {m} + {m}, :]",
        "            s = pl.matmul(xi, w, out_dtype=pl.FP32)",
        f"            out[i * {m} : i * {m} + {m}, :] = {made}",
    ]
    return _kernel(name, params, body, "out")


def skewed_kernel(rng: random.Random, name: str) -> str:
    """A row loop the cube and the vector core exchange tiles in, both ways (scores from
    the cube, their activation back to it): SkewCrossCorePipeline skews the cube's copy
    and demotes the vector's."""
    m, k, n = rng.choice([16, 32, 64]), rng.choice([64, 128]), rng.choice([64, 128, 256])
    d, stage, steps = rng.choice([64, 128]), rng.choice([2, 3, 4]), rng.choice([4, 8])
    made = rng.choice(["pl.exp(s)", "pl.maximum(s, 0.0)"])
    params = [
        f"x: pl.Tensor[[{steps} * {m}, {k}], pl.BF16]",
        f"w: pl.Tensor[[{k}, {n}], pl.BF16]",
        f"v: pl.Tensor[[{n}, {d}], pl.BF16]",
        f"out: pl.Out[pl.Tensor[[{steps} * {m}, {d}], pl.FP32]]",
    ]
    body = [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            xi = x[i * {m} : i * {m} + {m}, :]",
        "            s = pl.matmul(xi, w, out_dtype=pl.FP32)",
        f'            p = pl.cast({made}, target_type=pl.BF16, mode="rint")',
        f"            out[i * {m} : i * {m} + {m}, :] = pl.matmul(p, v, out_dtype=pl.FP32)",
    ]
    return _kernel(name, params, body, "out")


# What the vector core makes of the scores in :func:`attention_kernel` (``b``: a bias
# read before the loop, ``side``: a second output the vector writes).
ACTIVATIONS = {
    "exp": ["            a = pl.exp(s)"],
    "softmax": [
        "            mx = pl.row_max(s)",
        "            e = pl.exp(pl.row_expand_sub(s, mx))",
        "            a = pl.row_expand_div(e, pl.row_sum(e))",
    ],
    "biased": ["            a = pl.exp(pl.add(s, b))"],
    "stored": [
        "            a = pl.exp(s)",
        "            side[i * {m} : i * {m} + {m}, :] = a",
    ],
}


def attention_kernel(rng: random.Random, name: str) -> str:
    """:func:`skewed_kernel`'s loop with what attention does between the two matmuls: an
    activation, a softmax (row reductions), a bias read before the loop, or the
    activation also written out; sometimes a ring depth (``pl.cross_core_slot``)."""
    m, k, n = rng.choice([16, 32, 64]), rng.choice([64, 128]), rng.choice([64, 128, 256, 512])
    d, stage, steps = rng.choice([64, 128]), rng.choice([2, 3, 4]), rng.choice([4, 8])
    activation, slots = rng.choice(sorted(ACTIVATIONS)), rng.choice([None, None, 1, 3])
    params = [
        f"x: pl.Tensor[[{steps} * {m}, {k}], pl.BF16]",
        f"w: pl.Tensor[[{k}, {n}], pl.BF16]",
        f"v: pl.Tensor[[{n}, {d}], pl.BF16]",
        f"out: pl.Out[pl.Tensor[[{steps} * {m}, {d}], pl.FP32]]",
    ]
    body, returned = [], "out"
    if activation == "biased":
        params.insert(3, f"bias: pl.Tensor[[{m}, {n}], pl.FP32]")
        body.append("        b = bias[:, :]")
    if activation == "stored":
        params.append(f"side: pl.Out[pl.Tensor[[{steps} * {m}, {n}], pl.FP32]]")
        returned = "out, side"
    body += [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            xi = x[i * {m} : i * {m} + {m}, :]",
        "            s = pl.matmul(xi, w, out_dtype=pl.FP32)",
        *(line.format(m=m) for line in ACTIVATIONS[activation]),
        '            p = pl.cast(a, target_type=pl.BF16, mode="rint")',
        f"            out[i * {m} : i * {m} + {m}, :] = pl.matmul(p, v, out_dtype=pl.FP32)",
    ]
    ring = f"optimizations=[pl.cross_core_slot(slot_num={slots})]" if slots else ""
    return _kernel(name, params, body, returned, ring)


def pushed_kernel(rng: random.Random, name: str) -> str:
    """A row loop whose vector core computes the cube's left operand from its own load
    (one direction only, vector -> cube: LowerPipelineLoops replicates both copies)."""
    m, k, n = rng.choice([16, 32, 64, 128]), rng.choice([128, 256, 512]), rng.choice([64, 128])
    dtype, stage, steps = rng.choice(FLOATS), rng.choice([2, 3, 4]), rng.choice([4, 8])
    widened = dtype != "pl.FP32" and rng.random() < 0.5
    operand = "pl.BF16" if widened or dtype == "pl.FP32" else dtype  # (the matmul's)
    params = [
        f"x: pl.Tensor[[{steps} * {m}, {k}], {dtype}]",
        f"w: pl.Tensor[[{k}, {n}], {operand}]",
        f"out: pl.Out[pl.Tensor[[{steps} * {m}, {n}], pl.FP32]]",
    ]
    body = [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            xi = x[i * {m} : i * {m} + {m}, :]",
    ]
    if widened:
        body += ["            t = pl.exp(pl.cast(xi, target_type=pl.FP32))"]
    else:
        body += [f"            t = pl.{rng.choice(['add', 'mul'])}(xi, xi)"]
    if widened or dtype == "pl.FP32":
        body += ['            a = pl.cast(t, target_type=pl.BF16, mode="rint")']
    else:
        body += ["            a = pl.exp(t)"]
    body += [f"            out[i * {m} : i * {m} + {m}, :] = pl.matmul(a, w, out_dtype=pl.FP32)"]
    return _kernel(name, params, body, "out")


def ahead_kernel(rng: random.Random, name: str) -> str:
    """A row loop whose vector core sends the cube its operand first and takes the
    product back (vector -> cube -> vector: the skew runs the vector's copy ahead and
    demotes the cube's), with a norm or an activation before, a residual or one after."""
    m, k = rng.choice([16, 32, 64]), rng.choice([128, 256, 384, 512])
    n, stage, steps = rng.choice([64, 128, 256, 512]), rng.choice([2, 3, 4]), rng.choice([4, 8])
    slots = rng.choice([0, 0, 1, 3])
    params = [
        f"x: pl.Tensor[[{steps} * {m}, {k}], pl.FP32]",
        f"w: pl.Tensor[[{k}, {n}], pl.BF16]",
        f"res: pl.Tensor[[{steps} * {m}, {n}], pl.FP32]",
        f"y: pl.Out[pl.Tensor[[{steps} * {m}, {n}], pl.FP32]]",
    ]
    rows = f"i * {m} : i * {m} + {m}"
    body = [
        f"        for i in pl.pipeline({steps}, stage={stage}):",
        f"            xi = x[{rows}, :]",
    ]
    if rng.random() < 0.5:
        body += [
            "            inv = pl.rsqrt(pl.row_sum(pl.mul(xi, xi)))",
            "            t = pl.row_expand_mul(xi, inv)",
        ]
    else:
        body += ["            t = pl.exp(xi)"]
    body += [
        '            a = pl.cast(t, target_type=pl.BF16, mode="rint")',
        "            proj = pl.matmul(a, w, out_dtype=pl.FP32)",
    ]
    if rng.random() < 0.5:
        body += [f"            y[{rows}, :] = pl.add(proj, res[{rows}, :])"]
    else:
        body += [f"            y[{rows}, :] = pl.exp(proj)"]
    ring = f"optimizations=[pl.cross_core_slot(slot_num={slots})]" if slots else ""
    return _kernel(name, params, body, "y", ring)


FAMILIES = {
    "memory": (vector_kernel, vector_kernel, cube_kernel, mixed_kernel),
    "skewed": (skewed_kernel,),
    "attention": (attention_kernel,),
    "pushed": (pushed_kernel,),
    "ahead": (ahead_kernel,),
}


def write_kernels(
    folder: Path, seed: int, files: int, kernels: int, family: str = "memory"
) -> list[Path]:
    """Write the modules (``rk<seed>_<n>.py``) into ``folder``; the paths written
    (``family``: which kernels, :data:`FAMILIES`)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    makers = FAMILIES[family]
    written = []
    number = 0
    for file in range(files):
        parts = [f'"""Random kernels (seed {seed})."""\n\nimport pypto.language as pl\n']
        for _ in range(kernels):
            parts.append(rng.choice(makers)(rng, f"k{number}"))
            number += 1
        path = folder / f"rk{seed}_{file}.py"
        path.write_text("\n\n".join(parts), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where to write the modules")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--kernels", type=int, default=6, help="kernels per module (6)")
    parser.add_argument(
        "--family", choices=sorted(FAMILIES), default="memory",
        help="memory: vector, cube and mixed loops around the capacities (default); "
        "skewed: loops the cube and the vector exchange tiles in, both ways; attention: "
        "the same with a softmax, a bias or a second output between the matmuls; pushed: "
        "loops whose vector computes the cube's operand; ahead: loops whose vector sends "
        "the cube its operand and takes the product back (the vector's copy runs ahead)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    written = write_kernels(args.folder, args.seed, args.files, args.kernels, args.family)
    print(f"{len(written)} modules, {len(written) * args.kernels} kernels in {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
