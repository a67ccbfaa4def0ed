"""Article HTML as the writer stores it: sanitised against script injection, and measured; and
the short texts around it (titles, excerpts, meta fields, alt texts, taxonomy names) as plain text.

Every body that enters ``Content.html`` (typed by a user or written by an AI provider) passes
through ``clean_html``: the tags an article uses are kept, everything else is unwrapped to its
text; scripts, styles and embedded documents are dropped with their content; event handler and
style attributes are dropped; links and images keep only http(s), mailto and tel URLs (or
relative ones), so ``javascript:`` and ``data:`` URLs go.
"""

import html
import re

import nh3

from inkwell.ai.analysis import blocks, count_words

ARTICLE_TAGS = frozenset(
    """
    a abbr b blockquote br caption cite code col colgroup dd del details dfn div dl dt em figcaption
    figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s section small span strong sub summary
    sup table tbody td tfoot th thead time tr u ul article aside
    """.split()
)
# Removed together with everything inside them, not just unwrapped.
DROPPED_WITH_CONTENT = frozenset("script style iframe object embed noscript template textarea select svg math".split())
ATTRIBUTES = {
    "*": {"id", "title", "lang", "dir"},
    # ``rel`` stays the author's own (nofollow, sponsored): no ``target`` is allowed, so no opener to protect.
    "a": {"href", "rel", "hreflang"},
    "img": {"src", "alt", "width", "height", "loading"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "td": {"colspan", "rowspan", "headers"},
    "th": {"colspan", "rowspan", "headers", "scope"},
    "col": {"span"},
    "colgroup": {"span"},
    "blockquote": {"cite"},
    "q": {"cite"},
    "del": {"cite", "datetime"},
    "ins": {"cite", "datetime"},
    "time": {"datetime"},
    "details": {"open"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel"})


def clean_html(html: str) -> str:
    """``html`` with only the article tags, attributes and URL schemes above left in it."""
    if not html:
        return ""
    return nh3.clean(
        html,
        tags=set(ARTICLE_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=None,
        strip_comments=True,
    ).strip()


def visible_word_count(html: str) -> int:
    """Words a reader sees, counted as the content analysis counts them."""
    return sum(count_words(block.text) for block in blocks(html))


PLAIN_TEXT_PASSES = 5  # entities escaped several times over are undone pass by pass
_WHITESPACE = re.compile(r"\s+")


def plain_text(value: str) -> str:
    """``value`` as plain text: every tag removed (scripts, styles and the like with their
    content), entities decoded, whitespace collapsed to single spaces. Markup hidden behind
    entities (``&lt;script&gt;``) is decoded and removed in the next pass, so what is left holds
    no markup; a lone ``<`` of the text ("5 < 10") stays. Senders escape it for HTML."""
    text = value or ""
    for _ in range(PLAIN_TEXT_PASSES):
        stripped = html.unescape(nh3.clean(text, tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT), strip_comments=True))
        if stripped == text:
            break
        text = stripped
    return _WHITESPACE.sub(" ", text).strip()


def article_text(html: str) -> str:
    """The article's visible text, one line per block: what a comment's anchor offsets count in."""
    return "\n".join(block.text for block in blocks(html))
