"""``skewlsp``: start the language server (stdio by default, ``--tcp HOST:PORT`` for debugging)."""

from __future__ import annotations

import argparse
import logging
import sys

from skewlsp import __version__

# pygls's JSON-RPC layer: the logger that writes each message sent and received.
_PROTOCOL_LOGGER = "pygls.protocol"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="skewlsp",
        description="Language server predicting what pypto's SkewCrossCorePipeline does to loops.",
    )
    parser.add_argument("--version", action="version", version=f"skewlsp {__version__}")
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)"
    )
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio"
    )
    parser.add_argument("--log-file", metavar="PATH", help="write the server log to this file")
    parser.add_argument(
        "--log-level",
        default=None,
        type=str.lower,  # ruff's lower-case names; the upper-case ones still work
        choices=["error", "warning", "info", "debug"],
        help="log verbosity (default info in --log-file, warning on stderr)",
    )
    return parser.parse_args(argv)


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isdigit():
        raise SystemExit(f"skewlsp: --tcp expects HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Never log to stdout: on stdio it is the protocol channel. Without a log file the
    # log goes to stderr, which editors show (VS Code: the output channel), at the
    # level asked for.
    if args.log_file:
        logging.basicConfig(
            filename=args.log_file,
            level=(args.log_level or "info").upper(),
            filemode="a",
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    else:
        logging.basicConfig(stream=sys.stderr, level=(args.log_level or "warning").upper())
    # pygls logs every JSON-RPC message it sends (whole documents, diagnostics) at info: in
    # a log kept at the default level they would bury what the server itself says. They
    # are for debugging the protocol, so they show at debug only.
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger(_PROTOCOL_LOGGER).setLevel(logging.WARNING)
    from skewlsp.server.app import server

    if args.tcp:
        host, port = _host_port(args.tcp)
        server.start_tcp(host, port)
    else:
        from skewlsp.server.stdio import serve_stdio

        serve_stdio(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
