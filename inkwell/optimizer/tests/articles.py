"""Hand-written articles whose analysis is known (worked out in test_report.py)."""

from inkwell.optimizer.selectors import SiteContext

TITLE = "Trail Shoes for Hill Runs"
FOCUS_KEYWORD = "trail shoes"
META_TITLE = "Trail Shoes for Hill Runs: A Field Guide"  # 40 characters
META_DESCRIPTION = "Trail shoes for hill runs: how to pick a pair that grips, fits and lasts through every wet and rocky mile."  # 106 characters
SITE_HOSTS = frozenset({"example.com", "cms.example.net"})
INTERNAL = '<a href="/socks/">our socks guide</a>'
INTERNAL_ON_DOMAIN = '<a href="https://www.example.com/care/">shoe care</a>'
EXTERNAL = '<a href="https://maps.example.org/">trail maps</a>'
IMAGES = '<img src="/a.png" alt="Shoes on a wet rock"><img src="/b.png" alt="A hill path">'
# 8 paragraphs of 5 sentences of 7 one-syllable words: 280 words, 40 sentences.
FILLER = "".join("<p>" + " ".join(["We run on the hill each day."] * 5) + "</p>" for _ in range(8))


def body(*, internal: str = f"{INTERNAL} and {INTERNAL_ON_DOMAIN}", external: str = EXTERNAL, images: str = IMAGES) -> str:
    """308 visible words, the focus keyword three times; the links and images as given."""
    return (
        "<p>Good trail shoes keep you safe on the hill.</p>"
        "<h2>Why trail shoes matter</h2>"
        f"{FILLER}"
        f"<p>Read {internal}, then {external}.</p>"
        f"{images}"
        "<p>Pick trail shoes that fit.</p>"
    )


def fields(**overrides) -> dict:
    return {"html": body(), "title": TITLE, "meta_title": META_TITLE, "meta_description": META_DESCRIPTION, "focus_keyword": FOCUS_KEYWORD, **overrides}


def context(target: int = 300, generated_image_alts: tuple[str, ...] = ()) -> SiteContext:
    return SiteContext(target_word_count=target, site_hosts=SITE_HOSTS, generated_image_alts=generated_image_alts)
