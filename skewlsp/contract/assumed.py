"""The build a kernel is assumed to be imported under, and what a verdict says about it.

A kernel's configuration module may pick its model when Python imports it: a preset
chosen by an environment variable (``DEEPSEEK_V4_VARIANT=flash``) or by a command-line
argument read at import. The compiler sees only the result, so a verdict holds for one
build. The analysis never reads the real process environment: what it assumes is one
explicit input (:class:`Assumptions`, from the configuration's ``environment`` and
``argv``), as pyright's ``defineConstant`` and mypy's ``--always-true`` let a static
checker assume a build. A verdict that such a value decides names it
(:class:`Assumption`), and where the module declares its other choices (a tuple of
supported values checked at import, a dict of presets keyed by the value, a literal
comparison) the loop's verdict under each choice that gives another one is reported
with it (:class:`Variant`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# How a verdict names the command line among the environment variables it assumes (no
# environment variable is spelt with a dot in practice).
ARGV = "sys.argv"


# The build an analysis is decided under once more, with the command line not known,
# when some option a module reads has no declared value: the loops whose report then
# changes name the command line they assumed (no verdict of this build is listed: it is
# not a build anyone compiles).
ARGV_UNKNOWN = "\0unknown"


def is_option(variable: str) -> bool:
    """Whether a build variable is an option of the command line (``--tp``), which a
    module reads off ``sys.argv`` and declares the values of, rather than an environment
    variable (no environment variable's name starts with a dash)."""
    return variable.startswith("-")


@dataclass(frozen=True)
class Assumptions:
    """The environment and command line the analysis assumes a kernel is imported under.

    ``environment``: the variables set, by name (sorted; every other variable is unset);
    ``argv``: the arguments after the program's name (none by default). ``variants``:
    whether a loop whose verdict one of those values decides is also decided under the
    other values its module declares (on by default: see docs/cli.md).
    """

    environment: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] = ()
    variants: bool = True
    # False: the command line is not known (``sys.argv`` folds to nothing), the build of
    # :data:`ARGV_UNKNOWN`.
    argv_known: bool = True

    @staticmethod
    def of(
        environment: dict[str, str] | tuple[tuple[str, str], ...] = (),
        argv: tuple[str, ...] | list[str] = (),
        variants: bool = True,
    ) -> Assumptions:
        """The assumptions in their one spelling (the variables sorted by name), so that
        equal builds are equal keys."""
        pairs = environment.items() if isinstance(environment, dict) else environment
        return Assumptions(tuple(sorted(dict(pairs).items())), tuple(argv), variants)

    def value(self, name: str) -> str | None:
        """The value of an environment variable (None: unset)."""
        for key, value in self.environment:
            if key == name:
                return value
        return None

    def option(self, name: str) -> str | None:
        """The value the command line gives an option (``--tp 8`` or ``--tp=8``: "8", the
        last one given, as a config's reader keeps it); None: not given."""
        found = None
        for at, token in enumerate(self.argv):
            if token == name and at + 1 < len(self.argv):
                found = self.argv[at + 1]
            elif token.startswith(f"{name}="):
                found = token.split("=", 1)[1]
        return found

    def varied(self, name: str, value: str | None) -> Assumptions:
        """These assumptions with one environment variable set to ``value`` (None: unset),
        for :data:`ARGV` with no command-line arguments, or for an option (``--tp``) with
        the command line giving it ``value`` (None: not given) and the rest kept."""
        if name == ARGV:
            if value == ARGV_UNKNOWN:
                return replace(self, argv_known=False)
            return replace(self, argv=())
        if is_option(name):
            kept: list[str] = []
            skip = False
            for token in self.argv:
                if skip:
                    skip = False
                elif token == name:
                    skip = True
                elif not token.startswith(f"{name}="):
                    kept.append(token)
            given = (name, value) if value is not None else ()
            return replace(self, argv=(*kept, *given))
        others = {key: text for key, text in self.environment if key != name}
        if value is not None:
            others[name] = value
        return Assumptions.of(others, self.argv, self.variants)

    @property
    def key(self) -> str:
        """One line naming the build, for cache keys (the settings, not the verdicts)."""
        environment = "\0".join(f"{name}={value}" for name, value in self.environment)
        known = "" if self.argv_known else "\1?"
        return f"{environment}\1{chr(0).join(self.argv)}\1{int(self.variants)}{known}"


@dataclass(frozen=True)
class Assumption:
    """A value the analysis assumed that decides this verdict: ``variable`` is an
    environment variable's name, an option of the command line (``--tp``), or
    :data:`ARGV`; ``value`` what the kernel's module
    read (for an unset variable, the default it falls back to; None when it has none);
    ``configured``: set by the configuration rather than left unset."""

    variable: str
    value: str | tuple[str, ...] | None
    configured: bool = False

    @property
    def text(self) -> str:
        """``assuming `DEEPSEEK_V4_VARIANT` unset: `pro```: how every adapter words it."""
        if self.variable == ARGV:
            shown = " ".join(self.value) if isinstance(self.value, tuple) else ""
            return f"assuming the command line `{shown}`" if shown else "assuming no arguments"
        if is_option(self.variable):
            if self.configured:
                return f"assuming `{self.variable} {self.value}`"
            got = f": `{self.value}`" if isinstance(self.value, str) else ""
            return f"assuming `{self.variable}` not given{got}"
        if not self.configured:
            fallback = f": `{self.value}`" if isinstance(self.value, str) else ""
            return f"assuming `{self.variable}` unset{fallback}"
        return f"assuming `{self.variable}={self.value}`"


@dataclass(frozen=True)
class Variant:
    """The loop under another value of a variable its verdict assumed: what the analysis
    says when ``variable`` is ``value`` (None: unset; for :data:`ARGV`, no arguments; for
    an option, not given)."""

    variable: str
    value: str | None
    verdict: str  # a LoopReport's verdict
    code: str
    message: str
    depth: int | None = None

    @property
    def label(self) -> str:
        """``DEEPSEEK_V4_VARIANT=flash``: the build this verdict is for."""
        if self.variable == ARGV:
            return "no arguments"
        if is_option(self.variable):
            given = f" {self.value}" if self.value is not None else " not given"
            return f"{self.variable}{given}"
        return f"{self.variable} unset" if self.value is None else f"{self.variable}={self.value}"
