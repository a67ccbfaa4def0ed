"""Words that agree with their numbers in the messages people read ("1 keyword was added")."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 keyword``, ``2 keywords`` (``plural`` for nouns that do not just take an s)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def was(count: int) -> str:
    return "was" if count == 1 else "were"


def has(count: int) -> str:
    return "has" if count == 1 else "have"
