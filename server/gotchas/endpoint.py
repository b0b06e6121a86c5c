"""The streamable HTTP endpoint: which Host names it answers to, the bearer token, the socket.

A browser page can reach a server on the user's machine by DNS rebinding, so every request
must name one of the allowed hosts (else 421) and, beyond loopback, carry the token (else
401). The allowed names follow from the bind address: a loopback bind answers to the
loopback names and its own address; a specific address to itself; a wildcard bind
(``0.0.0.0``, ``::``) to the machine's own names. ``--allowed-host`` and
``GOTCHAS_ALLOWED_HOSTS`` add the names clients really use (a DNS name, a proxy's host).
The socket is bound here, before the server starts, so a busy port is a clear, typed
refusal and the URL printed is the one that listens. A client must send each request
whole within a read deadline (:mod:`gotchas.deadline`), so slow clients cannot pile up.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gotchas.errors import GotchasError, InvalidArgument

if TYPE_CHECKING:
    from gotchas.workspace import Workspace

TOKEN_VARIABLE = "GOTCHAS_TOKEN"
HOSTS_VARIABLE = "GOTCHAS_ALLOWED_HOSTS"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "[::]", "")
MAX_HOST_LENGTH = 253


class CannotListen(GotchasError):
    """The address cannot be bound: the port is in use, the address is not this machine's,
    or binding it needs privileges. Exits 6, never a code that means something about a hold."""

    code = "cannot-listen"


class TokenRequired(GotchasError):
    """Serving beyond loopback (a non-loopback bind, or an allowed Host name that is not a
    loopback name) with no token set: anyone who reaches the port could use the tools.
    Exits 8, so a script tells it from bad input and from a busy port."""

    code = "token-required"


@dataclass(frozen=True)
class Policy:
    """What the endpoint accepts: Host header values, Origin values and the bearer token."""

    bind: str
    port: int
    names: tuple[str, ...]
    token: str | None

    @property
    def allowed_hosts(self) -> list[str]:
        """Each name with the listening port, and bare (a proxy on a default port); a name
        given with its own port stands as given."""
        found: list[str] = []
        for name in self.names:
            found += [name] if _has_port(name) else [f"{name}:{self.port}", name]
        return found

    @property
    def allowed_origins(self) -> list[str]:
        return [f"{scheme}://{host}" for host in self.allowed_hosts for scheme in ("http", "https")]

    @property
    def url(self) -> str:
        """The address a client on this machine can use (a wildcard bind is reached on loopback)."""
        host = "127.0.0.1" if is_wildcard(self.bind) else _bracketed(self.bind)
        return f"http://{host}:{self.port}/mcp"


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip() in WILDCARDS


def parse_token(raw: str | None) -> str | None:
    """The bearer token from ``GOTCHAS_TOKEN``: unset or empty means none; a blank token or
    one with whitespace inside is refused (a blank one beyond loopback is :class:`TokenRequired`,
    checked first by :func:`require_token`)."""
    if raw is None or raw == "":
        return None
    if any(ch.isspace() for ch in raw):
        raise InvalidArgument(
            f"{TOKEN_VARIABLE} must be a token without spaces (clients send it as "
            "'Authorization: Bearer <token>'); it is blank or contains whitespace"
        )
    return raw


def require_token(bind: str, extra_hosts: Sequence[str], token: str | None) -> None:
    """Refuse to serve beyond loopback without a token (unset or blank): a non-loopback bind
    address, or an allowed Host name (a proxy's, a DNS name) that is not a loopback name."""
    if token is not None and token.strip():
        return
    beyond = [] if is_loopback(bind) else [bind or "*"]
    beyond += [name for name in extra_hosts if not is_loopback(_without_port(name))]
    if beyond:
        raise TokenRequired(
            f"serving beyond loopback ({', '.join(beyond)}) needs a token: set {TOKEN_VARIABLE} to a "
            "secret without spaces (clients then send 'Authorization: Bearer <token>'), or bind "
            "to 127.0.0.1 and allow only loopback names"
        )


def _without_port(name: str) -> str:
    """``name`` as an address or host, without a ``:port`` (an IPv6 address keeps its brackets)."""
    if name.startswith("["):
        return name.partition("]")[0] + "]"
    return name.partition(":")[0]


def parse_hosts(values: Iterable[str]) -> list[str]:
    """Host names from repeated ``--allowed-host`` and the comma- or space-separated variable."""
    names: list[str] = []
    for value in values:
        for item in value.replace(",", " ").split():
            name = _host_name(item)
            if name not in names:
                names.append(name)
    return names


def _host_name(item: str) -> str:
    """One allowed host as a Host header names it: lower case, an IPv6 address in brackets,
    without a port (the listening port is added) and nothing that is not a host."""
    text = item.strip().lower()
    if "://" in text or "/" in text or "@" in text or len(text) > MAX_HOST_LENGTH:
        raise InvalidArgument(f"not a host name for --allowed-host / {HOSTS_VARIABLE}: {item!r}")
    try:
        return _bracketed(str(ipaddress.ip_address(text.strip("[]"))))
    except ValueError:
        pass
    name, colon, port = text.partition(":")
    if colon and not (port.isdigit() and 0 < int(port) < 65536):
        raise InvalidArgument(f"not a host name for --allowed-host / {HOSTS_VARIABLE}: {item!r}")
    if not name or not all(part and _label_ok(part) for part in name.split(".")):
        raise InvalidArgument(f"not a host name for --allowed-host / {HOSTS_VARIABLE}: {item!r}")
    return text


def _has_port(name: str) -> bool:
    """``host:port`` or ``[v6]:port``, as opposed to a bare name or a bracketed address."""
    return "]:" in name if name.startswith("[") else ":" in name


def _label_ok(label: str) -> bool:
    return len(label) <= 63 and all(ch.isalnum() or ch in "-_" for ch in label)


def _bracketed(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def machine_names() -> list[str]:
    """The names this machine calls itself, and the addresses they resolve to here."""
    found: list[str] = []
    for name in (socket.gethostname(), socket.getfqdn()):
        if name and name.lower() not in found:
            found.append(name.lower())
    for name in list(found):
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError:
            continue
        for info in infos:
            address = _bracketed(str(info[4][0]).split("%")[0])
            if address not in found:
                found.append(address)
    return found


def policy(bind: str, port: int, token: str | None, extra_hosts: Sequence[str]) -> Policy:
    """The accepted names for this bind address; refuses to serve beyond loopback without a token."""
    require_token(bind, extra_hosts, token)
    names: list[str] = []
    if is_loopback(bind):
        names += [_bracketed(bind.lower()), *LOOPBACK_NAMES]
    elif is_wildcard(bind):
        names += [*LOOPBACK_NAMES, *machine_names()]
    else:
        names.append(_bracketed(bind.lower()))
    names += extra_hosts
    return Policy(bind=bind, port=port, names=tuple(dict.fromkeys(names)), token=token)


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind and listen now, so failure is a typed refusal and ``--port 0`` learns its port."""
    bare = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    if bare == "localhost":
        bare = "127.0.0.1"
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if os.name == "posix":  # elsewhere SO_REUSEADDR lets a second server take the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and bare == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((bare, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = {
            errno.EADDRINUSE: "the port is in use by another program; pick another with --port",
            errno.EADDRNOTAVAIL: "the address is not one of this machine's",
            errno.EACCES: "binding this port needs privileges; use a port above 1023",
        }.get(exc.errno or 0, exc.strerror or str(exc))
        raise CannotListen(f"cannot listen on {_bracketed(bare)}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: Callable[..., Awaitable[None]], token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send(
                    {
                        "type": "http.response.body",
                        "body": b'{"error":"missing or wrong bearer token"}',
                    }
                )
                return
        await self.app(scope, receive, send)


def serve(ws: Workspace, bind: str, port: int, token: str | None, extra_hosts: Sequence[str]) -> None:
    """Streamable HTTP at /mcp until interrupted; the URL and accepted names go to stderr."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from gotchas import deadline
    from gotchas.server import build

    timeout = deadline.read_timeout(os.environ)
    rules = policy(bind, port, token, extra_hosts)  # refuse before binding anything
    sock = bind_socket(bind, port)
    rules = policy(bind, sock.getsockname()[1], token, extra_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=rules.allowed_hosts,
        allowed_origins=rules.allowed_origins,
    )
    app: Any = build(ws).streamable_http_app(transport_security=security, host=bind)
    if token:
        app = BearerAuth(app, token)
    auth = f"; send 'Authorization: Bearer ${TOKEN_VARIABLE}'" if token else ""
    print(f"gotchas: serving {rules.url}{auth}", file=sys.stderr)
    print(f"gotchas: accepting Host {', '.join(rules.names)}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", http=deadline.protocol(timeout))
    uvicorn.Server(config).run(sockets=[sock])
