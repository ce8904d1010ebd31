"""Hugging Face repo ids in a message: `Qwen/Qwen3-32B`, a pasted Hub link, Slack's `<url|label>` form.

Why here and not in the grammar: the grammar reads normalized text (lower-case, links removed).
Before that happens, a Hub link becomes its bare repo id (`hub_links_to_repo_ids`, called by
normalize.py), which the grammar then reads as one name (`org/name`, see `_SHAPED` in
grammar.lark). The resolver decides what it means; the parser never touches the network.
`repo_ids_in` keeps the spelling the user pasted, since normalized text is lower-case.
"""

from __future__ import annotations

import re

# Pages on the Hub that are not model repos
_NOT_MODELS = r"(?:datasets|spaces|docs|blog|settings|papers|api|models|collections|organizations|join|login|pricing|tasks)"
# <https://huggingface.co/org/name|org/name>, <https://hf.co/org/name>, https://huggingface.co/org/name/tree/main
_HUB_LINK = re.compile(
    r"<?https?://(?:www\.)?(?:huggingface\.co|hf\.co)/(?!" + _NOT_MODELS + r"/)"
    r"([A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*)[^\s|>]*(?:\|[^>]*)?>?"
)
# A repo id as written: after a link's host, or not glued to a word, path or URL before it
_REPO = re.compile(r"(?:(?<=huggingface\.co/)|(?<=hf\.co/)|(?<![\w/.:\-]))([A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*)")
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.\-]{0,95}/[A-Za-z0-9][\w.\-]{0,95}")


def hub_links_to_repo_ids(text: str) -> str:
    """'see <https://huggingface.co/openai/gpt-oss-20b|openai/gpt-oss-20b>' -> 'see openai/gpt-oss-20b '."""
    return _HUB_LINK.sub(lambda m: f" {m.group(1).rstrip('.')} ", text)


def looks_like_repo_id(text: str) -> bool:
    """'Qwen/Qwen3-32B' yes; 'tokens/s', '1k/256', 'a/b/c' no (letters on both sides, a digit or dash in the name)."""
    if not _REPO_ID.fullmatch(text):
        return False
    org, name = text.split("/", 1)
    return bool(re.search(r"[A-Za-z]", org) and re.search(r"[A-Za-z]", name) and re.search(r"[\d\-]", name))


def repo_ids_in(text: str) -> dict[str, str]:
    """Repo ids in a raw message, lower-cased -> as written ('qwen/qwen3-32b' -> 'Qwen/Qwen3-32B')."""
    found: dict[str, str] = {}
    for match in _REPO.finditer(text):
        repo = match.group(1).rstrip(".,;:!?)")
        if looks_like_repo_id(repo):
            found.setdefault(repo.lower(), repo)
    return found
