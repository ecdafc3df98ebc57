"""What the language server keeps from one edit to the next: the reports of units
that did not change (:mod:`.unit_cache`) and the module index, patched after a small
edit instead of rebuilt (:mod:`.incremental`)."""
