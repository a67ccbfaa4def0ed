"""Word handling shared by the local provider: tokens, stop words, a light stemmer, seeds."""

import hashlib
import re

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

# Function words: they carry no topic, so they are neither features nor parts of a name.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further get gets getting had hadn't has hasn't have haven't
    having he her here hers herself him himself his how i i'm if in into is isn't it it's its itself
    just let's me more most my myself no nor not now of off on once only or other ought our ours
    ourselves out over own same she should shouldn't so some such than that that's the their theirs
    them themselves then there there's these they this those through to too under until up very was
    wasn't we were weren't what what's when where which while who whom why will with won't would
    wouldn't you you're your yours yourself yourselves i'd i'll i've you'd you'll you've we'd we'll
    we're we've they'd they'll they're they've do's s t
    """.split()
)

# Search modifiers: common across every topic ("best", "near me", "tips"), so they would link
# unrelated keywords; they are kept in the text but left out of clustering features and names.
MODIFIERS = frozenset(
    """
    best top cheap cheapest affordable free near online new good great easy simple vs versus
    guide guides tips tricks ideas review reviews list examples ways things beginners beginner
    ultimate complete today really much many need needs often way ways choose choosing worth cost
    costs price prices pricing deal deals sale cheapest buy buying vs per
    """.split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words; an apostrophe inside a word keeps it whole ("don't")."""
    return [token.replace("’", "'") for token in _TOKEN.findall(text.lower())]


def stem(word: str) -> str:
    """A light suffix stripper: plural, -ing, -ed and a final e, so "charges", "charging" and
    "charge" meet. Both sides of a comparison go through it, so its stems need not be words."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith(("xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouslz":
                word = word[:-1]
            break
    if len(word) >= 5 and word.endswith("e"):
        word = word[:-1]
    return word


def content_words(text: str) -> list[str]:
    """The words of ``text`` that can carry its topic: no stop words, modifiers or bare numbers."""
    return [word for word in tokenize(text) if word not in STOP_WORDS and word not in MODIFIERS and not word.isdigit()]


_SMALL_WORDS = frozenset("a an and as at but by for in of on or the to vs via with".split())
# Abbreviations searchers type in lower case that read wrong in a headline as "Ev" or "Seo".
_ACRONYMS = frozenset("ai api b2b b2c crm csv diy ev evs faq fha gps hiit hr hvac ira iso kwh led llc ppc roi rv seo sql ssl suv tv uk usa ux ui va vpn".split())


def title_case(text: str) -> str:
    """Headline case: small words stay lower-case except first; words with capitals or digits
    ("iPhone", "401k", "EV") keep their spelling."""
    words = text.split()
    cased = []
    for index, word in enumerate(words):
        if any(ch.isupper() for ch in word) or any(ch.isdigit() for ch in word):
            cased.append(word)
        elif word in _ACRONYMS:
            cased.append(word.upper())
        elif index and word in _SMALL_WORDS:
            cased.append(word)
        else:
            cased.append(word[:1].upper() + word[1:])
    return " ".join(cased)


def with_acronyms(text: str) -> str:
    """Running text with known abbreviations in capitals: "ev charger" -> "EV charger"."""
    return " ".join(word.upper() if word.lower() in _ACRONYMS else word for word in text.split())


def seed_of(*parts: object) -> int:
    """A stable integer from the inputs (unlike ``hash``, the same in every process)."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")
