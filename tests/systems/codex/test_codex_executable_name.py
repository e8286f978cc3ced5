"""``codex-rs/execpolicy/src/executable_name_tests.rs`` (openai/codex), ported: Codex runs
it on Windows only (``#[cfg(all(test, windows))]``); toolkit's port of
``executable_name.rs`` takes ``windows=True`` to apply the Windows rules anywhere, and
keeps the Unix identity by default.
"""

from __future__ import annotations

import pytest

from toolkit.systems.codex.execpolicy import (
    executable_lookup_key,
    executable_path_lookup_key,
    has_windows_verbatim_or_device_prefix,
)

SOURCE = "codex-rs/execpolicy/src/executable_name_tests.rs"


@pytest.mark.parametrize(("raw_path", "expected_key", "namespace"), [
    (r"C:\workspace\Git.ExE.", "git", False),
    (r"C:\workspace\git.exe ", "git", False),
    (r"\\server\share\git.exe.", "git", False),
    (r"\\server\share\git.exe ", "git", False),
    (r"\\?\C:\workspace\git.exe", "git", True),
    (r"\\?\C:\workspace\git.exe.", "git.exe.", True),
    (r"\\?\C:\workspace\git.exe ", "git.exe ", True),
    (r"\\?\UNC\server\share\git.exe", "git", True),
    (r"\\?\UNC\server\share\git.exe.", "git.exe.", True),
    (r"\\?\UNC\server\share\git.exe ", "git.exe ", True),
    (r"\\.\C:\workspace\git.exe", "git", True),
    (r"\\.\C:\workspace\git.exe.", "git.exe.", True),
    (r"\\.\C:\workspace\git.exe ", "git.exe ", True),
    (r"\\.\UNC\server\share\git.exe", "git", True),
    (r"\\.\UNC\server\share\git.exe.", "git.exe.", True),
    (r"\\.\UNC\server\share\git.exe ", "git.exe ", True),
])
def test_windows_executable_lookup_key_matrix(raw_path: str, expected_key: str,
                                              namespace: bool) -> None:
    """windows_executable_lookup_key_matrix (the path cases)"""
    assert (executable_path_lookup_key(raw_path, windows=True),
            has_windows_verbatim_or_device_prefix(raw_path)) == (expected_key, namespace)


@pytest.mark.parametrize("alias", ["powershell.exe.", "powershell.exe ", "PowerShell.ExE. . "])
def test_windows_executable_lookup_key_matrix_aliases(alias: str) -> None:
    """windows_executable_lookup_key_matrix (the alias loop)"""
    assert executable_lookup_key(alias, windows=True) == "powershell"


def test_unix_lookup_keys_are_the_names_themselves() -> None:
    """executable_name.rs, #[cfg(not(windows))]: the raw name, the path's file name"""
    assert executable_lookup_key("Git.EXE") == "Git.EXE"
    assert executable_path_lookup_key("/usr/bin/git") == "git"
