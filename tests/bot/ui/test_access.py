"""Who may reach the chat server: logins from PAPERBOT_UI__AUTH and a users file, checked in
constant time, and the warning for an address beyond loopback. No server here (test_serve_limits.py
runs the real one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import SettingsError
from bot.settings import load_settings
from bot.ui.access import checker, exposure, logins


def test_no_login_is_asked_for_unless_one_is_set() -> None:
    assert logins(load_settings().ui) == {}


def test_auth_pairs_and_a_users_file_are_read_together(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    users = tmp_path / "users"
    users.write_text("# the reading group\ncleo:pass:with:colons\n\n  dan : d4n \n", encoding="utf-8")
    monkeypatch.setenv("PAPERBOT_UI__AUTH", "ana:s3cret, ben:pa55")
    monkeypatch.setenv("PAPERBOT_UI__USERS_FILE", str(users))
    found = logins(load_settings().ui)
    assert found == {"ana": "s3cret", "ben": "pa55", "cleo": "pass:with:colons", "dan": " d4n"}


@pytest.mark.parametrize(
    ("auth", "message"),
    [
        ("ana", "PAPERBOT_UI__AUTH, pair 1: not user:password"),
        ("ana:x,:hunter2", "PAPERBOT_UI__AUTH, pair 2: not user:password"),
        ("ana:hunter2,ana:other", "user 'ana' is given twice"),
        (" , ", "holds no user:password pair"),
    ],
)
def test_a_bad_auth_setting_names_the_pair_and_never_shows_a_password(
    monkeypatch: pytest.MonkeyPatch, auth: str, message: str
) -> None:
    monkeypatch.setenv("PAPERBOT_UI__AUTH", auth)
    settings = load_settings()
    assert "hunter2" not in repr(settings)  # the secret stays out of logs and tracebacks
    with pytest.raises(SettingsError, match=message) as raised:
        logins(settings.ui)
    assert "hunter2" not in str(raised.value)


def test_a_users_file_that_cannot_be_read_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAPERBOT_UI__USERS_FILE", str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match=r"PAPERBOT_UI__USERS_FILE=.*missing.*cannot read it"):
        logins(load_settings().ui)
    bad = tmp_path / "users"
    bad.write_text("ana:ok\nben\n", encoding="utf-8")
    monkeypatch.setenv("PAPERBOT_UI__USERS_FILE", str(bad))
    with pytest.raises(SettingsError, match=r"users line 2: not user:password"):
        logins(load_settings().ui)


def test_the_login_check_takes_only_the_right_pair() -> None:
    allowed = checker({"ana": "s3cret", "ben": "pä55"})
    assert allowed("ana", "s3cret") and allowed("ben", "pä55")
    assert not allowed("ana", "pä55")
    assert not allowed("ana", "s3cret ")
    assert not allowed("nobody", "s3cret")
    assert not allowed("nobody", "")
    assert not allowed("ana", "\ud800")  # a lone surrogate from a form is a wrong password, not a crash


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_needs_no_warning(host: str) -> None:
    assert exposure(host, 7860, with_login=False) is None


def test_every_interface_is_warned_about_with_what_to_do() -> None:
    warning = exposure("0.0.0.0", 7860, with_login=False)
    assert warning is not None
    assert warning.startswith("--host 0.0.0.0 binds every network interface")
    assert "port 7860" in warning and "PAPERBOT_UI__AUTH" in warning and "--host 127.0.0.1" in warning
    guarded = exposure("::", 8000, with_login=True)
    assert guarded is not None and "every network interface" in guarded and "unencrypted" in guarded
