"""Config files OpenCode refuses or skips, as ``loadFile`` in
``packages/opencode/src/config/config.ts`` (anomalyco/opencode) reads them:
``const text = await readConfigFile(filepath); if (!text) return {}`` then
``ConfigParse.jsonc`` (jsonc-parser without ``allowEmptyContent``).

- an empty file is ``{}``; a file of whitespace only is *not* empty to ``!text``, and
  jsonc-parser meets the end of the input where a value must be: ``ValueExpected``, OpenCode
  refuses it (toolkit keeps that difference and says how to fix it);
- a folder named ``opencode.jsonc`` cannot be read as a file (EISDIR): OpenCode fails to load
  its config, so toolkit reports it instead of skipping it silently (h16 finding 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError


def test_an_empty_file_is_an_empty_config(tmp_path: Path) -> None:
    (tmp_path / "opencode.json").write_text("")
    proj = tk.load(tmp_path, home=False, managed=False, runtime="opencode")
    # no rule: the build agent's built-in "*": allow
    assert proj.check_call("bash", {"command": "ls"}, runtime="opencode").effect is Effect.ALLOW


def test_a_file_of_whitespace_is_refused_as_opencode_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "opencode.json").write_text("   \n")
    with pytest.raises(DefinitionError) as err:
        tk.load(tmp_path, home=False, managed=False, runtime="opencode")
    assert (err.value.file, err.value.line) == ("opencode.json", 2)
    message = str(err.value)
    assert "ValueExpected" in message and "only whitespace" in message
    assert "write {} or empty it" in message


def test_a_folder_named_like_the_config_is_reported(tmp_path: Path) -> None:
    (tmp_path / "opencode.json").write_text("{}")
    (tmp_path / "opencode.jsonc").mkdir()
    with pytest.raises(DefinitionError) as err:
        tk.load(tmp_path, home=False, managed=False, runtime="opencode")
    assert err.value.file == "opencode.jsonc"
    assert "is a folder, not a file" in str(err.value)
