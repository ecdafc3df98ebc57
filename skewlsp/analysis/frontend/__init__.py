"""What pypto's frontend sees before any pass runs.

The DSL parser (``python/pypto/language/parser``) compiles kernels wherever Python
defines them: ``@pl.program`` classes, ``@pl.jit`` entries and the builder functions
that return them. It folds module-level names to constants at decoration time and
reads every op through the op registry. Here: where programs are
(:mod:`.source_index`, :mod:`.module_flow`, :mod:`.closures`), what ``pl.jit`` does to
parameters (:mod:`.jit_params`), names, scopes and constant folding
(:mod:`.names`, :mod:`.scope`, :mod:`.constants`, :mod:`.loadtime`, :mod:`.values`),
imports (:mod:`.imports`, :mod:`.reads`), the op registry (:mod:`.op_registry`) and
the constructs the parser refuses (:mod:`.dsl_checks`).
"""
