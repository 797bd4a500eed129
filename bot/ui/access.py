"""Who may reach the chat server: the logins it asks for (from the UI settings) and the warning for
an address other machines can reach. No gradio here; bot.ui.serve hands the result to Gradio.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Callable

from bot.errors import SettingsError
from bot.settings import UISettings

Login = Callable[[str, str], bool]  # Gradio's auth callable: (user, password) -> allowed


def _pairs(text: str, separator: str, where: Callable[[int], str]) -> dict[str, str]:
    """{user: password} from `user:password` items; the password never appears in an error.

    Example: _pairs("ana:x,ben:y", ",", ...) -> {'ana': 'x', 'ben': 'y'}
    """
    logins: dict[str, str] = {}
    items = [item.strip() for item in text.split(separator)]
    for number, item in enumerate(items, start=1):
        if not item or item.startswith("#"):
            continue
        user, colon, password = item.partition(":")
        if not colon or not user.strip() or not password:
            raise SettingsError(f"{where(number)}: not user:password (a user name, a colon, then a password)")
        if user.strip() in logins:
            raise SettingsError(f"{where(number)}: user {user.strip()!r} is given twice; keep one password for it")
        logins[user.strip()] = password
    return logins


def logins(ui: UISettings) -> dict[str, str]:
    """Every user:password of PAPERBOT_UI__AUTH and PAPERBOT_UI__USERS_FILE; {} when neither is set.

    Example: PAPERBOT_UI__AUTH='ana:s3cret' -> {'ana': 's3cret'}
    """
    found: dict[str, str] = {}
    if ui.auth is not None:
        found = _pairs(ui.auth.get_secret_value(), ",", lambda n: f"PAPERBOT_UI__AUTH, pair {n}")
        if not found:
            raise SettingsError("PAPERBOT_UI__AUTH is set but holds no user:password pair; set one, or unset it")
    if ui.users_file is not None:
        path = ui.users_file.expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(
                f"PAPERBOT_UI__USERS_FILE={str(path)!r}: cannot read it ({exc}); give a UTF-8 file of "
                "user:password lines"
            ) from exc
        from_file = _pairs(text, "\n", lambda n: f"{path} line {n}")
        if not from_file:
            raise SettingsError(f"{path} holds no user:password line; add one, or unset PAPERBOT_UI__USERS_FILE")
        for user in from_file.keys() & found.keys():
            raise SettingsError(f"user {user!r} is in both PAPERBOT_UI__AUTH and {path}; keep it in one of them")
        found |= from_file
    return found


def checker(known: dict[str, str]) -> Login:
    """Gradio's auth callable over `known`; compares in constant time, so a wrong guess takes as long
    as a nearly right one. Example: checker({'ana': 'x'})('ana', 'x') -> True"""
    encoded = {user: password.encode() for user, password in known.items()}

    def allowed(user: str, password: str) -> bool:
        wanted = encoded.get(user)
        given = password.encode("utf-8", "surrogatepass")
        # Compared against something even for an unknown user, so timing does not tell users apart.
        return hmac.compare_digest(wanted or b"\0" * len(given), given) and wanted is not None

    return allowed


def _addresses(host: str) -> set[str]:
    """The IP addresses `host` binds. Example: _addresses("localhost") -> {'127.0.0.1', '::1'}"""
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except OSError:
        return set()  # _check_address in bot.ui.serve reports an unknown host


def exposure(host: str, port: int, with_login: bool) -> str | None:
    """The warning for binding `host`, None when only this machine can connect.

    Example: exposure("0.0.0.0", 7860, False) -> "--host 0.0.0.0 binds every network interface: ..."
    """
    addresses = _addresses(host)
    if not addresses or all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
        return None
    if any(ipaddress.ip_address(a.split("%")[0]).is_unspecified for a in addresses):
        where = f"--host {host} binds every network interface"
    else:
        where = f"--host {host} is reachable from other machines ({', '.join(sorted(addresses))})"
    if with_login:
        return (
            f"{where}: the chat asks for a login, but passwords and answers cross the network unencrypted "
            "(plain HTTP); put a TLS proxy in front, or pass --host 127.0.0.1"
        )
    return (
        f"{where}: anyone who reaches port {port} can ask questions, read every abstract and change the "
        "reading lists, with no login; set PAPERBOT_UI__AUTH=user:password (or PAPERBOT_UI__USERS_FILE), "
        "or pass --host 127.0.0.1 to keep it to this machine"
    )
