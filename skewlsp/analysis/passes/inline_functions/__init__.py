"""InlineFunctions (``inline_functions_pass.cpp``, pass 01): ``@pl.jit.inline`` helpers
spliced into their callers before any other pass.

:mod:`.call_sites` finds where a helper is called in its own module and what each
call hands it; :mod:`.imported_helpers` follows the helpers a kernel imports;
:mod:`.splice` replaces a call in a loop by the helper's body, as the pass does, for
ExpandMixedKernel to give the helper's ops their core.
"""
