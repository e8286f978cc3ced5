"""Claude Code's documented permission behaviour, one case per documentation sentence.

Each case builds a project (settings layers, files), checks one call, and asserts the
effect, the deciding step and the deciding rule. The comment on each case quotes the
sentence it follows, from code.claude.com/docs/en/<page> (read from the
ericbuess/claude-code-docs mirror at ec68a5b, 2026-08-22).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.claude import build_project, permissions


@dataclass(frozen=True)
class Case:
    """One documented behaviour: layers + a call -> effect, reason, deciding rule."""

    id: str
    doc: str  # the sentence, and its page#section
    layers: dict[str, Any]
    tool: str
    args: dict[str, Any]
    effect: str
    reason: str | None = None
    rule: str | None = None  # the deciding rule's text
    layer: str | None = None  # the deciding rule's layer
    options: dict[str, Any] = field(default_factory=dict)  # mode, cwd (relative), hook


def bash(command: str) -> dict[str, str]:
    return {"command": command}


def path(p: str) -> dict[str, str]:
    return {"file_path": p}


P = permissions
CASES = [
    # -- layers and precedence ------------------------------------------------------------------
    Case("managed-deny-beats-allowedTools",
         "permissions#settings-precedence: 'a managed settings deny can't be overridden by "
         "--allowedTools'",
         {"managed": P(deny=["Bash(npm publish *)"]), "cli": ["--allowedTools",
                                                              "Bash(npm publish *)"]},
         "Bash", bash("npm publish --tag next"), "explicit-deny", "deny-rule",
         "Bash(npm publish *)", "managed"),
    Case("disallowedTools-adds-to-managed",
         "permissions#settings-precedence: '--disallowedTools can add restrictions beyond what "
         "managed settings define'",
         {"managed": P(deny=["Bash(sudo *)"]), "project": P(["Bash(git *)"]),
          "cli": ["--disallowedTools", "Bash(git push *)"]},
         "Bash", bash("git push origin main"), "explicit-deny", "deny-rule",
         "Bash(git push *)", "cli"),
    Case("user-allow-project-deny",
         "permissions#settings-precedence: 'if user settings allow a permission and project "
         "settings deny it, the deny rule blocks it'",
         {"user": P(["Bash(docker *)"]), "project": P(deny=["Bash(docker *)"])},
         "Bash", bash("docker ps"), "explicit-deny", "deny-rule", "Bash(docker *)", "project"),
    Case("user-deny-project-allow",
         "permissions#settings-precedence: 'a user-level deny blocks a project-level allow, "
         "because deny rules from any scope are evaluated before allow rules'",
         {"user": P(deny=["WebFetch"]), "project": P(["WebFetch(domain:example.com)"])},
         "WebFetch", {"url": "https://example.com/"}, "explicit-deny", "deny-rule", "WebFetch",
         "user"),
    Case("local-allow-does-not-outrank-project-ask",
         "settings#permission-rules-combine-differently: 'an allow rule there doesn't outrank an "
         "ask rule from a project or managed file'",
         {"local": P(["Bash(git push *)"]), "project": P(ask=["Bash(git push *)"])},
         "Bash", bash("git push"), "ask", "ask-rule", "Bash(git push *)", "project"),
    Case("lists-merge",
         "settings#lists-merge-instead-of-overriding: 'When you set the same list key, such as "
         "permissions.allow, in more than one file, Claude Code combines the lists'",
         {"user": P(["Bash(make *)"]), "project": P(["Bash(npm test *)"])},
         "Bash", bash("npm test && make"), "allow", "allow-rule", "Bash(npm test *)", "project"),
    Case("scalar-from-highest-layer",
         "settings#settings-precedence: 'Project local settings' rank above 'Shared project "
         "settings' (a scalar key comes from the highest layer that sets it)",
         {"local": P(defaultMode="dontAsk"), "project": P(defaultMode="acceptEdits")},
         "Bash", bash("make"), "implicit-deny", "mode"),
    Case("auto-ignored-in-project",
         "settings-reference#permissions-defaultmode: 'auto doesn't take effect from project or "
         "local settings'",
         {"project": P(defaultMode="auto"), "user": P(defaultMode="plan")},
         "Edit", path("a.txt"), "implicit-deny", "mode"),
    Case("bypass-ignored-in-local",
         "SPEC section 11: 'auto and bypassPermissions set in project or local files are "
         "ignored' (a repository must not switch checks off)",
         {"local": P(defaultMode="bypassPermissions")},
         "Bash", bash("make"), "ask", "mode"),
    Case("managed-only-ignores-project-allow",
         "settings-reference#allowmanagedpermissionrulesonly: 'Claude Code then ignores rules in "
         "user, project, local, and --settings files, ignores --allowedTools'",
         {"managed": {"allowManagedPermissionRulesOnly": True},
          "project": P(["Bash(make *)"]), "cli": ["--allowedTools", "Bash(make *)"]},
         "Bash", bash("make"), "ask", "mode"),
    Case("managed-only-keeps-disallowedTools",
         "SPEC section 11: 'Managed allowManagedPermissionRulesOnly: true makes managed the only "
         "source of allow/ask/deny rules (flags' --disallowedTools still count)'",
         {"managed": {"allowManagedPermissionRulesOnly": True},
          "cli": ["--disallowedTools", "Bash(make *)"]},
         "Bash", bash("make"), "explicit-deny", "deny-rule", "Bash(make *)", "cli"),
    Case("managed-only-outside-managed-does-nothing",
         "settings-reference#allowmanagedpermissionrulesonly: 'Scope: Managed only'",
         {"project": {**P(["Bash(make *)"]), "allowManagedPermissionRulesOnly": True}},
         "Bash", bash("make"), "allow", "allow-rule", "Bash(make *)", "project"),
    Case("dropins-merge-alphabetically",
         "managed-settings: 'Claude Code merges managed-settings.json first, then every *.json "
         "file in the directory in alphabetical order' (the last merged sets a scalar)",
         {"managed": P(defaultMode="acceptEdits"),
          "dropins": {"10-a.json": P(defaultMode="plan"), "20-b.json": P(defaultMode="dontAsk"),
                      ".hidden.json": P(defaultMode="bypassPermissions"),
                      "notes.txt": {"x": 1}}},
         "Bash", bash("make"), "implicit-deny", "mode"),
    Case("permission-mode-flag",
         "settings#settings-precedence: 'Command line arguments' rank above local, project and "
         "user settings",
         {"project": P(defaultMode="plan"), "cli": ["--permission-mode", "acceptEdits"]},
         "Edit", path("notes.md"), "allow", "mode"),
    Case("settings-file-anchor",
         "permissions#read-and-edit: a /path rule in 'A file passed with --settings <file>' "
         "resolves to '<directory of file>/path'",
         {"files": {"ci/policy.json": '{"permissions": {"deny": ["Edit(/locked/**)"]}}'},
          "cli": ["--settings", "ci/policy.json"]},
         "Edit", path("ci/locked/x.txt"), "explicit-deny", "deny-rule", "Edit(/locked/**)",
         "cli"),
    # -- working directories ---------------------------------------------------------------------
    Case("read-in-working-dir",
         "permissions#permission-system: Read-only tools need no approval 'within the working "
         "directory and additional directories'",
         {}, "Read", path("README.md"), "allow", "working-dir"),
    Case("read-outside-asks",
         "permissions#permission-system: reads need no approval only within the working "
         "directories (elsewhere they ask)",
         {}, "Read", path("/etc/hosts"), "ask", "mode"),
    Case("additional-directories",
         "permissions#working-directories: 'Files in additional directories follow the same "
         "permission rules as the original working directory: they become readable without "
         "prompts'",
         {"project": P(additionalDirectories=["../docs"])},
         "Read", path("../docs/guide.md"), "allow", "working-dir"),
    Case("add-dir-flag",
         "permissions#working-directories: 'During startup: use --add-dir <path>'",
         {"cli": ["--add-dir", "../shared"]},
         "Grep", {"pattern": "TODO", "path": "../shared"}, "allow", "working-dir"),
    # -- path anchors ----------------------------------------------------------------------------
    Case("double-slash-absolute",
         "permissions#read-and-edit: '//path  Absolute path from filesystem root'",
         {"project": P(deny=["Read(//etc/**)"])},
         "Read", path("/etc/passwd"), "explicit-deny", "deny-rule", "Read(//etc/**)"),
    Case("single-slash-is-not-absolute",
         "permissions#read-and-edit: 'A pattern like /Users/alice/file isn't an absolute path. "
         "The single leading slash anchors at the settings source'",
         {"project": P(deny=["Read(/etc/**)"])},
         "Read", path("/etc/passwd"), "ask", "mode"),
    Case("tilde-home",
         "permissions#read-and-edit: '~/path  Path from home directory'",
         {"project": P(deny=["Read(~/.ssh/**)"])},
         "Read", path("~/.ssh/id_ed25519"), "explicit-deny", "deny-rule", "Read(~/.ssh/**)"),
    Case("slash-in-project-settings",
         "permissions#read-and-edit: 'Project settings at .claude/settings.json -> "
         "<project root>/path'",
         {"project": P(["Edit(/docs/**)"])},
         "Edit", path("docs/a.md"), "allow", "allow-rule", "Edit(/docs/**)"),
    Case("slash-in-user-settings",
         "permissions#read-and-edit: 'A deny rule such as Read(/secrets/**) in user settings "
         "blocks ~/.claude/secrets/**, not a secrets directory in your project'",
         {"user": P(deny=["Read(/secrets/**)"])},
         "Read", path("secrets/token"), "allow", "working-dir"),
    Case("slash-in-user-settings-home",
         "permissions#read-and-edit: 'User settings at ~/.claude/settings.json -> "
         "~/.claude/path'",
         {"user": P(deny=["Read(/secrets/**)"])},
         "Read", path("~/.claude/secrets/token"), "explicit-deny", "deny-rule",
         "Read(/secrets/**)", "user"),
    Case("slash-in-local-settings",
         "permissions#read-and-edit: 'Local settings at .claude/settings.local.json -> "
         "<original cwd>/path'",
         {"local": P(deny=["Edit(/generated/**)"])},
         "Edit", path("generated/x.ts"), "explicit-deny", "deny-rule", "Edit(/generated/**)",
         "local", {"cwd": "pkg"}),
    Case("bare-filename-any-depth",
         "permissions#read-and-edit: 'Bare filenames follow gitignore semantics and match at any "
         "depth, so Read(.env) and Read(**/.env) are equivalent'",
         {"project": P(deny=["Read(.env)"])},
         "Read", path("services/api/.env"), "explicit-deny", "deny-rule", "Read(.env)"),
    Case("bare-filename-not-in-parent",
         "permissions#read-and-edit: Read(.env) 'Does not block .env in a parent directory or "
         "another project'",
         {"project": P(deny=["Read(.env)"])},
         "Read", path("../.env"), "ask", "mode"),
    Case("allow-one-segment-dir-at-cwd-only",
         "permissions#read-and-edit: 'Allow rules: Edit(src/**) matches only <cwd>/src and the "
         "files under it'",
         {"project": P(["Edit(src/**)"])},
         "Edit", path("vendor/pkg/src/lib.js"), "ask", "mode"),
    Case("allow-one-segment-dir-matches-cwd-src",
         "permissions#read-and-edit: 'Edit(src/**) as an allow rule: Matches src/app.ts Yes'",
         {"project": P(["Edit(src/**)"])},
         "Edit", path("src/app.ts"), "allow", "allow-rule", "Edit(src/**)"),
    Case("deny-one-segment-dir-any-depth",
         "permissions#read-and-edit: 'Deny and ask rules: Read(secrets/**) matches a directory "
         "named secrets at any depth under the current directory'",
         {"project": P(deny=["Read(secrets/**)"])},
         "Read", path("services/billing/secrets/key.pem"), "explicit-deny", "deny-rule",
         "Read(secrets/**)"),
    Case("double-star-any-depth",
         "permissions#read-and-edit: 'Edit(**/src/**) in any rule type: Matches "
         "vendor/pkg/src/lib.js Yes'",
         {"project": P(["Edit(**/src/**)"])},
         "Edit", path("vendor/pkg/src/lib.js"), "allow", "allow-rule", "Edit(**/src/**)"),
    Case("read-deny-blocks-write",
         "permissions#read-and-edit: 'A Read deny rule also blocks the Edit and Write tools on "
         "the same path'",
         {"project": P(deny=["Read(./config/prod.yaml)"])},
         "Write", path("config/prod.yaml"), "explicit-deny", "deny-rule",
         "Read(./config/prod.yaml)"),
    Case("read-deny-not-notebookedit",
         "permissions#read-and-edit: 'NotebookEdit isn't covered, so add an Edit deny rule for "
         "paths no tool may change'",
         {"project": P(deny=["Read(./nb/**)"], defaultMode="acceptEdits")},
         "NotebookEdit", {"notebook_path": "nb/a.ipynb"}, "allow", "mode"),
    Case("edit-allow-grants-read",
         "tools-reference: 'An Edit(...) allow rule also grants read access to the same path'",
         {"project": P(["Edit(//srv/shared/**)"])},
         "Read", path("/srv/shared/notes.txt"), "allow", "allow-rule", "Edit(//srv/shared/**)"),
    Case("grep-follows-read-rules",
         "permissions#read-and-edit: 'Claude makes a best-effort attempt to apply Read rules to "
         "all built-in tools that read files like Grep and Glob'",
         {"project": P(deny=["Read(./secrets/**)"])},
         "Grep", {"pattern": "KEY", "path": "secrets"}, "explicit-deny", "deny-rule",
         "Read(./secrets/**)"),
    Case("write-path-rule-never-consulted",
         "permissions#read-and-edit: 'If you write a path rule for Write ... Claude Code accepts "
         "the rule but never consults it'",
         {"project": P(deny=["Write(docs/**)"], defaultMode="acceptEdits")},
         "Write", path("docs/a.md"), "allow", "mode"),
    # -- WebFetch --------------------------------------------------------------------------------
    Case("domain-exact-case-insensitive",
         "permissions#webfetch: 'Matching is case-insensitive ... and strips a trailing .'",
         {"project": P(["WebFetch(domain:Example.com)"])},
         "WebFetch", {"url": "https://EXAMPLE.com./docs"}, "allow", "allow-rule",
         "WebFetch(domain:Example.com)"),
    Case("domain-subdomains-not-apex",
         "permissions#webfetch: 'WebFetch(domain:*.example.com) matches any subdomain at any "
         "depth ... but not example.com itself'",
         {"project": P(["WebFetch(domain:*.example.com)"])},
         "WebFetch", {"url": "https://example.com/"}, "ask", "mode"),
    Case("domain-subdomain-any-depth",
         "permissions#webfetch: '... such as api.example.com or a.b.example.com'",
         {"project": P(["WebFetch(domain:*.example.com)"])},
         "WebFetch", {"url": "https://a.b.example.com/x"}, "allow", "allow-rule",
         "WebFetch(domain:*.example.com)"),
    Case("domain-star-is-bare",
         "permissions#webfetch: 'WebFetch(domain:*) matches every domain and is equivalent to a "
         "bare WebFetch rule'",
         {"project": P(deny=["WebFetch(domain:*)"])},
         "WebFetch", {"url": "https://anything.example/"}, "explicit-deny", "deny-rule",
         "WebFetch(domain:*)"),
    Case("domain-inner-star-one-label",
         "permissions#webfetch: 'WebFetch(domain:example.*) matches example.org ... but not "
         "example.evil.com'",
         {"project": P(["WebFetch(domain:example.*)"])},
         "WebFetch", {"url": "https://example.evil.com/"}, "ask", "mode"),
    # -- MCP and tool-name globs -----------------------------------------------------------------
    Case("mcp-server-level",
         "permissions#mcp: 'mcp__puppeteer matches any tool provided by the puppeteer server'",
         {"project": P(["mcp__puppeteer"])},
         "mcp__puppeteer__puppeteer_navigate", {}, "allow", "allow-rule", "mcp__puppeteer"),
    Case("mcp-server-wildcard",
         "permissions#mcp: 'mcp__puppeteer__* uses wildcard syntax and also matches all tools "
         "from the puppeteer server'",
         {"project": P(deny=["mcp__puppeteer__*"])},
         "mcp__puppeteer__screenshot", {}, "explicit-deny", "deny-rule", "mcp__puppeteer__*"),
    Case("mcp-one-tool",
         "permissions#mcp: 'mcp__puppeteer__puppeteer_navigate matches the puppeteer_navigate "
         "tool'",
         {"project": P(["mcp__puppeteer__puppeteer_navigate"])},
         "mcp__puppeteer__screenshot", {}, "ask", "mode"),
    Case("mcp-allow-glob-after-prefix",
         "permissions#tool-name-wildcards: 'mcp__github__get_* matches its get_ tools'",
         {"project": P(["mcp__github__get_*"])},
         "@github/get_issue", {}, "allow", "allow-rule", "mcp__github__get_*"),
    Case("mcp-deny-all",
         "permissions#tool-name-wildcards: '\"mcp__*\" matches every MCP tool across all "
         "servers'",
         {"project": P(["mcp__github"], deny=["mcp__*"])},
         "mcp__github__get_issue", {}, "explicit-deny", "deny-rule", "mcp__*"),
    Case("unanchored-allow-glob-skipped",
         "permissions#tool-name-wildcards: 'An unanchored allow glob such as \"*\", \"B*\", or "
         "\"mcp__*\" is skipped with a warning and doesn't auto-approve anything'",
         {"project": P(["mcp__*", "B*"])},
         "mcp__github__get_issue", {}, "ask", "mode"),
    Case("star-deny-everything",
         "permissions#tool-name-wildcards: '\"*\" matches every tool'",
         {"project": P(["Read"], deny=["*"])},
         "Read", path("README.md"), "explicit-deny", "deny-rule", "*"),
    Case("mcp-parentheses-skipped",
         "SPEC section 11 / issue 14: an mcp__x(...) rule with parentheses is skipped with a "
         "warning",
         {"project": P(["mcp__github(get_issue)"])},
         "mcp__github__get_issue", {}, "ask", "mode"),
    # -- Agent and parameter rules ---------------------------------------------------------------
    Case("agent-deny",
         "permissions#agent-subagents: 'Agent(Explore) matches the Explore subagent ... Add "
         "these rules to the deny array'",
         {"project": P(deny=["Agent(Explore)"])},
         "Agent", {"subagent_type": "Explore", "prompt": "map the repo"}, "explicit-deny",
         "deny-rule", "Agent(Explore)"),
    Case("task-alias",
         "sub-agents: 'In version 2.1.63, the Task tool was renamed to Agent. Existing Task(...) "
         "references in settings and agent definitions still work as aliases'",
         {"project": P(deny=["Task(Explore)"])},
         "Task", {"subagent_type": "Explore"}, "explicit-deny", "deny-rule", "Task(Explore)"),
    Case("param-rule",
         "permissions#match-by-input-parameter: 'Agent(model:opus) Agent calls that request the "
         "Opus model tier'",
         {"project": P(ask=["Agent(model:opus)"])},
         "Agent", {"subagent_type": "general-purpose", "model": "opus"}, "ask", "ask-rule",
         "Agent(model:opus)"),
    Case("param-omitted-never-matches",
         "permissions#match-by-input-parameter: 'A parameter the model omits is never matched, "
         "so Agent(model:*) doesn't match a call that leaves model unset'",
         {"project": P(deny=["Agent(model:*)"])},
         "Agent", {"subagent_type": "general-purpose"}, "allow", "no-prompt"),
    Case("param-bool",
         "permissions#match-by-input-parameter: 'Bash(run_in_background:true) Bash calls that "
         "run in the background'",
         {"project": P(["Bash(npm run dev)"], deny=["Bash(run_in_background:true)"])},
         "Bash", {"command": "npm run dev", "run_in_background": True}, "explicit-deny",
         "deny-rule", "Bash(run_in_background:true)"),
    Case("param-primary-field-ignored",
         "permissions#match-by-input-parameter: 'A rule like Bash(command:rm *) would be "
         "bypassable by a compound command, so Claude Code ignores it'",
         {"project": P(deny=["Bash(command:rm *)"])},
         "Bash", bash("rm -rf build"), "ask", "mode"),
    # -- Bash patterns -----------------------------------------------------------------------------
    Case("space-star-word-boundary",
         "permissions#bash: 'Bash(ls *) matches ls -la but not lsof'",
         {"project": P(["Bash(ls *)"])}, "Bash", bash("lsof -i"), "ask", "mode"),
    Case("star-without-space",
         "permissions#bash: 'Bash(ls*) without a space matches both ls -la and lsof'",
         {"project": P(["Bash(ls*)"])}, "Bash", bash("lsof -i"), "allow", "allow-rule",
         "Bash(ls*)"),
    Case("trailing-star-bare-command",
         "SPEC section 11: 'A trailing * also matches the bare command (npm run * matches npm "
         "run)'",
         {"project": P(["Bash(npm run *)"])}, "Bash", bash("npm run"), "allow", "allow-rule",
         "Bash(npm run *)"),
    Case("legacy-colon-star",
         "permissions#wildcard-patterns: 'Bash(ls:*) matches the same commands as Bash(ls *)'",
         {"project": P(["Bash(git status:*)"])}, "Bash", bash("git status --short"), "allow",
         "allow-rule", "Bash(git status:*)"),
    Case("colon-literal-elsewhere",
         "permissions#wildcard-patterns: 'In a pattern like Bash(git:* push), the colon is "
         "treated as a literal character and won't match git commands'",
         {"project": P(["Bash(git:* push)"])}, "Bash", bash("git remote push"), "ask", "mode"),
    Case("leading-star",
         "permissions#bash: 'Bash(* install) matches any command ending with install'",
         {"project": P(["Bash(* install)"])}, "Bash", bash("pnpm install"), "allow",
         "allow-rule", "Bash(* install)"),
    Case("middle-star",
         "permissions#bash: 'Bash(git * main) matches git push origin main as well as git merge "
         "main'",
         {"project": P(deny=["Bash(git * main)"])}, "Bash", bash("git push origin main"),
         "explicit-deny", "deny-rule", "Bash(git * main)"),
    Case("bash-star-is-bash",
         "permissions#match-all-uses-of-a-tool: 'Bash(*) is equivalent to Bash and matches all "
         "Bash commands'",
         {"project": P(["Bash(*)"])}, "Bash", bash("make && make install"), "allow",
         "allow-rule", "Bash(*)"),
    Case("safe-env-stripped-for-allow",
         "permissions#process-wrappers: 'Bash(npm test *) matches NODE_ENV=test npm test'",
         {"project": P(["Bash(npm test *)"])}, "Bash", bash("NODE_ENV=test npm test"), "allow",
         "allow-rule", "Bash(npm test *)"),
    Case("wrapper-stripped",
         "permissions#process-wrappers: 'a rule like Bash(npm test *) also matches timeout 30 "
         "npm test'",
         {"project": P(["Bash(npm test *)"])}, "Bash", bash("timeout 30 npm test"), "allow",
         "allow-rule", "Bash(npm test *)"),
    Case("runner-not-stripped",
         "permissions#process-wrappers: 'Development environment runners such as direnv exec, "
         "devbox run, mise exec, npx, and docker exec are not in the list'",
         {"project": P(["Bash(npm test *)"])}, "Bash", bash("npx npm test"), "ask", "mode"),
    Case("command-v-not-stripped",
         "permissions#process-wrappers: 'the query form command -v, which looks up a command "
         "rather than running one' is not stripped",
         {"project": P(["Bash(git *)"])}, "Bash", bash("command -v git"), "ask", "mode"),
    Case("read-only-command",
         "permissions#read-only-commands: 'Claude Code recognizes a built-in set of Bash "
         "commands as read-only and runs them without a permission prompt in every mode'",
         {"project": P(defaultMode="plan")}, "Bash", bash("git log --oneline -5 | head -3"),
         "allow", "read-only"),
    Case("read-only-needs-ask-rule",
         "permissions#read-only-commands: 'to require a prompt for one of these commands, add "
         "an ask or deny rule for it'",
         {"project": P(ask=["Bash(cat *)"])}, "Bash", bash("cat README.md"), "ask", "ask-rule",
         "Bash(cat *)"),
    Case("cd-inside-read-only",
         "permissions#read-only-commands: 'a compound command like cd packages/api && ls runs "
         "without a prompt when each part qualifies'",
         {}, "Bash", bash("cd packages/api && ls"), "allow", "read-only"),
    Case("cd-and-git-prompts",
         "permissions#read-only-commands: 'cd with git: prompts when the cd changes into a "
         "different directory'",
         {}, "Bash", bash("cd vendor/lib && git status"), "ask", "mode"),
    Case("find-glob-prompts",
         "permissions#read-only-commands: 'commands with write-capable or exec-capable flags, "
         "such as find ... prompt when an unquoted glob is present'",
         {}, "Bash", bash("find . -name *.py"), "ask", "mode"),
    Case("redirect-is-a-write",
         "permissions#redirections: 'A rule such as Bash(git commit *) allows the command, not "
         "the target'",
         {"project": P(["Bash(git log *)"])}, "Bash", bash("git log > history.txt"), "ask",
         "mode"),
    Case("redirect-edit-allow",
         "permissions#redirections: 'The check covers your Edit allow and deny rules'",
         {"project": P(["Bash(git log *)", "Edit(/reports/**)"])}, "Bash",
         bash("git log > reports/history.txt"), "allow", "allow-rule"),
    Case("redirect-dev-null",
         "permissions#redirections: 'A /dev/null target isn't checked'",
         {}, "Bash", bash("grep -r TODO . 2>/dev/null"), "allow", "read-only"),
    Case("cat-respects-read-deny",
         "permissions#read-and-edit: 'Read and Edit deny rules apply ... to file commands "
         "Claude Code recognizes in Bash, such as cat, head, tail, and sed'",
         {"project": P(deny=["Read(./.env)"])}, "Bash", bash("cat .env"), "explicit-deny",
         "deny-rule", "Read(./.env)"),
    # -- modes --------------------------------------------------------------------------------
    Case("default-asks",
         "permission-modes#available-modes: default runs 'Reads only'",
         {}, "Bash", bash("npm install"), "ask", "mode"),
    Case("acceptEdits-edit",
         "permission-modes: 'acceptEdits mode lets Claude create and edit files in your working "
         "directory without prompting'",
         {"project": P(defaultMode="acceptEdits")}, "Edit", path("src/a.py"), "allow", "mode"),
    Case("acceptEdits-fs-command",
         "permission-modes: 'acceptEdits mode auto-approves common filesystem Bash commands: "
         "mkdir, touch, rm, rmdir, mv, cp, and sed'",
         {"project": P(defaultMode="acceptEdits")}, "Bash", bash("mkdir -p build/out"), "allow",
         "mode"),
    Case("acceptEdits-outside",
         "permission-modes: 'Paths outside that scope ... still prompt'",
         {"project": P(defaultMode="acceptEdits")}, "Bash", bash("touch /tmp/x"), "ask", "mode"),
    Case("acceptEdits-other-command",
         "permission-modes: '... and all other Bash commands except the built-in read-only set "
         "still prompt'",
         {"project": P(defaultMode="acceptEdits")}, "Bash", bash("npm install"), "ask", "mode"),
    Case("plan-blocks-edits",
         "SPEC section 11: 'plan: reads and read-only commands run, edits are denied (reason: "
         "plan mode), other commands ask'",
         {"project": P(defaultMode="plan")}, "Edit", path("src/a.py"), "implicit-deny", "mode"),
    Case("plan-asks-commands",
         "permission-modes#analyze-before-you-edit-with-plan-mode: 'commands outside the "
         "built-in read-only set prompt for approval'",
         {"project": P(defaultMode="plan")}, "Bash", bash("npm install"), "ask", "mode"),
    Case("dontAsk-denies",
         "permission-modes: 'Claude Code auto-denies every tool call that would otherwise "
         "prompt you'",
         {}, "Bash", bash("npm install"), "implicit-deny", "mode", options={"mode": "dontAsk"}),
    Case("dontAsk-ask-rule",
         "settings-reference#permissions-ask: 'In dontAsk mode Claude Code denies a matching "
         "tool use instead of prompting'",
         {"project": P(ask=["Bash(git push *)"])}, "Bash", bash("git push"), "implicit-deny",
         "mode", "Bash(git push *)", options={"mode": "dontAsk"}),
    Case("dontAsk-allow",
         "permission-modes: 'Claude runs only actions matching your permissions.allow rules, "
         "read-only Bash commands, and calls approved by a PreToolUse hook'",
         {"project": P(["Bash(npm test *)"])}, "Bash", bash("npm test"), "allow", "allow-rule",
         "Bash(npm test *)", options={"mode": "dontAsk"}),
    Case("bypass-runs",
         "permission-modes#available-modes: bypassPermissions runs 'Everything'",
         {}, "Bash", bash("npm install"), "allow", "mode",
         options={"mode": "bypassPermissions"}),
    Case("bypass-deny-still-denies",
         "permission-modes: 'Deny rules block in every mode, including bypassPermissions'",
         {"project": P(deny=["Bash(npm publish *)"])}, "Bash", bash("npm publish"),
         "explicit-deny", "deny-rule", "Bash(npm publish *)",
         options={"mode": "bypassPermissions"}),
    Case("bypass-ask-still-asks",
         "permission-modes#actions-no-mode-auto-approves: 'Tools matched by an explicit ask "
         "rule'",
         {"project": P(ask=["Bash(git push *)"])}, "Bash", bash("git push"), "ask", "ask-rule",
         "Bash(git push *)", options={"mode": "bypassPermissions"}),
    Case("auto-classifier",
         "SPEC section 11: 'auto: cannot be simulated offline - report ask with reason "
         "classifier'",
         {}, "Bash", bash("npm install"), "ask", "classifier", options={"mode": "auto"}),
    Case("auto-reads-run",
         "permission-modes#eliminate-prompts-with-auto-mode: 'Read-only actions and file edits "
         "in your working directory are auto-approved'",
         {}, "Edit", path("src/a.py"), "allow", "mode", options={"mode": "auto"}),
    Case("protected-default",
         "permission-modes#protected-paths: 'default, acceptEdits: Prompted'",
         {"project": P(["Edit(.claude/**)"], defaultMode="acceptEdits")}, "Edit",
         path(".claude/settings.json"), "ask", "protected-path"),
    Case("protected-worktrees-exempt",
         "permission-modes#protected-paths: '.claude, except for .claude/worktrees'",
         {"project": P(defaultMode="acceptEdits")}, "Edit", path(".claude/worktrees/x/a.py"),
         "allow", "mode"),
    Case("protected-dontAsk",
         "permission-modes#protected-paths: 'dontAsk: Denied'",
         {}, "Write", path(".husky/pre-commit"), "implicit-deny", "mode",
         options={"mode": "dontAsk"}),
    Case("protected-bypass",
         "permission-modes#protected-paths: 'bypassPermissions: Allowed'",
         {}, "Write", path(".git/config"), "allow", "mode",
         options={"mode": "bypassPermissions"}),
    Case("bypass-disabled",
         "permissions#permission-modes: 'To prevent bypassPermissions ... set "
         "permissions.disableBypassPermissionsMode to \"disable\" in any settings file'",
         {"user": P(disableBypassPermissionsMode="disable")}, "Bash", bash("npm install"),
         "ask", "mode", options={"mode": "bypassPermissions"}),
    # -- hooks --------------------------------------------------------------------------------
    Case("hook-allow-not-over-ask",
         "permissions#extend-permissions-with-hooks: 'a matching ask rule still prompts even "
         "when the hook returned \"allow\"'",
         {"project": P(ask=["Bash(git push *)"])}, "Bash", bash("git push"), "ask", "ask-rule",
         "Bash(git push *)", options={"hook": "allow"}),
    Case("hook-deny-over-allow",
         "permissions#extend-permissions-with-hooks: 'A blocking hook also takes precedence "
         "over allow rules'",
         {"project": P(["Bash(npm test *)"])}, "Bash", bash("npm test"), "explicit-deny",
         "hook", options={"hook": "deny"}),
    Case("hook-allow-in-dontAsk",
         "permission-modes: dontAsk runs 'calls approved by a PreToolUse hook'",
         {}, "Bash", bash("make deploy"), "allow", "hook",
         options={"hook": "allow", "mode": "dontAsk"}),
]


def test_the_documented_cases_are_enough_and_distinct() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    assert all(c.doc for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_documented_behaviour(tmp_path: Path, case: Case) -> None:
    layers = dict(case.layers)
    (tmp_path / "home").mkdir()
    args = {k: v.replace("~", str(tmp_path / "home")) if isinstance(v, str) else v
            for k, v in case.args.items()}
    proj = build_project(tmp_path, **layers)
    options = dict(case.options)
    if "cwd" in options:
        options["cwd"] = str(Path(proj.root) / options["cwd"])
    d = proj.check_call(case.tool, args, **options)
    assert d.effect.value == case.effect, f"{case.doc}\n{d.report()}"
    if case.reason is not None:
        assert d.reason.value == case.reason, d.report()
    if case.rule is not None:
        assert d.rule.text == case.rule, d.report()
        assert d.rule.file is not None and d.rule.line is not None, d.report()
    if case.layer is not None:
        assert d.rule.layer == case.layer, d.report()
