"""Analysis over a policy: replay of logged calls, suggestions, diffs, locks, risk, check.

Uses the model (``core``), the policy and the systems' readers (through the registry);
renders through ``core.display``; imports no face.
"""
